import Foundation

/// The state directory opened for a run: created if missing, locked for a real run, and its
/// ledger open. The lock is held for as long as this value lives.
struct StateDirectory: Sendable {
    let path: String
    let ledger: Ledger
    /// Nil for a dry run, which writes nothing and takes no lock.
    private let lock: RunLock?

    /// Opens `path`, waiting up to `lockWait` for another run to finish when `locking`.
    static func open(_ path: String, locking: Bool, lockWait: Duration) async throws(RunFailure) -> StateDirectory {
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw RunFailure(
                .configuration, "cannot create the state directory \(path): \(error.localizedDescription)")
        }
        var lock: RunLock?
        if locking {
            do {
                lock = try await RunLock.acquire(in: path, wait: lockWait)
            } catch {
                throw RunFailure(
                    .configuration, "cannot lock the state directory \(path): \(error.localizedDescription)")
            }
            guard lock != nil else {
                throw RunFailure(
                    .temporaryFailure, "another roundup run is using \(path); try again when it has finished")
            }
        }
        do {
            return StateDirectory(path: path, ledger: try Ledger(path: Ledger.path(in: path)), lock: lock)
        } catch {
            throw RunFailure(.configuration, "cannot open the ledger in \(path): \(error)")
        }
    }
}
