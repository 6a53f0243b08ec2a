package import Foundation
import RoundUpOutput
package import RoundUpVocabulary

/// The state directory opened for a run: created if missing, locked for a real run, and its
/// ledger open. The lock is held for as long as this value lives. A real run opens it once
/// and hands this one value to all that writes the ledger (the runner, the run's row in the
/// run table), so that nothing writes after the lock is released.
public struct StateDirectory: Sendable {
    package let path: String
    package let ledger: Ledger
    /// Nil for a dry run, which writes nothing and takes no lock.
    private let lock: RunLock?

    /// For a dry run: the ledger as it is, read into memory; nothing is created, changed
    /// or locked, and the directory may be missing or read-only.
    package static func read(_ path: String, weekZone: TimeZone) throws(CommandFailure) -> StateDirectory {
        do {
            return StateDirectory(
                path: path, ledger: try Ledger.readOnlyCopy(of: Ledger.path(in: path), weekZone: weekZone), lock: nil)
        } catch {
            throw CommandFailure(.configuration, "cannot read the ledger in \(path): \(plainDescription(error))")
        }
    }

    /// Opens and locks `path`, waiting up to `lockWait` for another run to finish.
    package static func open(_ path: String, lockWait: Duration, weekZone: TimeZone) async throws(CommandFailure)
        -> StateDirectory
    {
        try create(path)
        let lock: RunLock?
        do {
            lock = try await RunLock.acquire(in: path, wait: lockWait)
        } catch {
            throw CommandFailure(
                .configuration, "cannot lock the state directory: \(plainDescription(error))")
        }
        guard let lock else {
            throw CommandFailure(
                .temporaryFailure, "another roundup run is using \(path); try again when it has finished")
        }
        return try withLedger(path, lock: lock, weekZone: weekZone)
    }

    /// Opens `path` without its lock: only for recording a run that never held it (refused
    /// the lock, or stopped before it took it). Such a run touched no week; its row in the
    /// run table is all it writes.
    package static func openUnlocked(_ path: String) throws(CommandFailure) -> StateDirectory {
        try create(path)
        return try withLedger(path, lock: nil, weekZone: nil, migrates: false)
    }

    /// Creates `path` for its owner alone if it is missing.
    private static func create(_ path: String) throws(CommandFailure) {
        try refuseIfOthersCanWrite(path)
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CommandFailure(
                .configuration, "cannot create the state directory \(path): \(plainDescription(error))")
        }
    }

    private static func withLedger(_ path: String, lock: RunLock?, weekZone: TimeZone?, migrates: Bool = true)
        throws(CommandFailure) -> StateDirectory
    {
        try refuseLinks(in: path)
        do {
            return StateDirectory(
                path: path, ledger: try Ledger(path: Ledger.path(in: path), weekZone: weekZone, migrates: migrates),
                lock: lock)
        } catch {
            throw CommandFailure(.configuration, "cannot open the ledger in \(path): \(plainDescription(error))")
        }
    }

    /// The ledger and its journals are opened only as files of the state directory itself,
    /// never through a symbolic link that would take a write elsewhere.
    private static func refuseLinks(in path: String) throws(CommandFailure) {
        for name in ["ledger.sqlite", "ledger.sqlite-wal", "ledger.sqlite-shm", "ledger.sqlite-journal"] {
            var status = stat()
            guard lstat("\(path)/\(name)", &status) == 0, status.st_mode & S_IFMT != S_IFREG else { continue }
            throw CommandFailure(
                .configuration,
                "\(path)/\(name) is not a plain file (a link or another kind of file); roundup writes its ledger "
                    + "only as a file of the state directory itself: move it out of the way")
        }
    }

    /// Why a run would refuse `path` as its state directory (another user's, or others can
    /// write to it), in the run's own words; nil when it would take it. For `roundup check`.
    public static func refusal(of path: String) -> String? {
        do throws(CommandFailure) {
            try refuseIfOthersCanWrite(path)
            return nil
        } catch {
            return error.message
        }
    }

    /// A state directory that others can write to, or that another user owns, could have
    /// its ledger replaced or its lock taken: refused.
    private static func refuseIfOthersCanWrite(_ path: String) throws(CommandFailure) {
        if let problem = SafePath.problem(with: path) {
            throw CommandFailure(.configuration, "the state directory \(problem)")
        }
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        guard status.st_uid == geteuid() else {
            throw CommandFailure(
                .configuration,
                "the state directory \(path) belongs to another user (uid \(status.st_uid)); use a directory of "
                    + "your own")
        }
        let mode = status.st_mode & 0o777
        guard mode & 0o022 == 0 else {
            throw CommandFailure(
                .configuration,
                "the state directory \(path) can be written by others (mode \(String(mode, radix: 8))); "
                    + "make it yours alone with: chmod 700 \(path)")
        }
    }

    /// The job's own files that others can read (the state directory, the ledger and its
    /// journals, the lock, and in the report directory its reports, the savings chart and
    /// its temporary files), made the owner's alone; says which. Nothing else in the report
    /// directory is touched, nor the directory itself: it may be a directory of the saver's
    /// that holds other things.
    package func tighten(reportDirectory: String) -> [String] {
        var paths = [
            "ledger.sqlite", "ledger.sqlite-wal", "ledger.sqlite-shm", "ledger.sqlite-journal",
            "roundup.lock",
        ].map { path + "/" + $0 }
        paths.append(path)
        if let reports = try? FileManager.default.contentsOfDirectory(atPath: reportDirectory) {
            let own = reports.filter { name in
                name.hasPrefix("roundup-") || name.hasPrefix("savings.")
                    || (name.hasPrefix(".") && name.hasSuffix(".partial"))
            }
            paths += own.map { reportDirectory + "/" + $0 }
        }
        var notices: [String] = []
        for file in paths {
            var status = stat()
            guard lstat(file, &status) == 0, status.st_mode & 0o077 != 0 else { continue }
            let isDirectory = status.st_mode & S_IFMT == S_IFDIR
            // Only the state directory itself is a directory made private; a file with
            // another name elsewhere (a hard link) may be the saver's, and is left alone.
            guard (status.st_mode & S_IFMT == S_IFREG && status.st_nlink == 1) || (isDirectory && file == path)
            else { continue }
            let mode = status.st_mode & 0o777
            let wanted: mode_t = isDirectory ? 0o700 : 0o600
            if chmod(file, wanted) == 0 {
                notices.append(
                    "\(file) could be read by others (mode \(String(mode, radix: 8))); it is now \(String(wanted, radix: 8))"
                )
            }
        }
        return notices
    }
}
