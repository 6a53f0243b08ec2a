import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An exclusive lock on the state directory, so that two runs never work on the same
/// ledger at once. It is an advisory `flock` on a file: the kernel releases it when the
/// process ends in any way, so a killed run never leaves a stale lock behind.
public final class RunLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Takes the lock in `directory`, waiting up to `wait` for another run to finish.
    /// Nil when it is still held after that.
    public static func acquire(in directory: String, wait: Duration) async throws -> RunLock? {
        let path = directory + "/roundup.lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw RunLockError(path: path, code: errno) }
        let deadline = ContinuousClock.now + wait
        while true {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return RunLock(descriptor: descriptor) }
            guard errno == EWOULDBLOCK || errno == EINTR, ContinuousClock.now < deadline else {
                close(descriptor)
                return nil
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

extension RunLock {
    /// Whether a run holds the lock in `directory` now. Only looks: no lock file is made
    /// (one root made there would be one the system service's user could not open), and
    /// one that is not there, or cannot be opened, is held by no run.
    public static func isHeld(in directory: String) -> Bool {
        let descriptor = open(directory + "/roundup.lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }
}

/// The lock file could not be opened.
package struct RunLockError: Error, CustomStringConvertible {
    package let path: String
    package let code: Int32
    package var description: String { "cannot open the lock file \(path): \(String(cString: strerror(code)))" }

    package init(path: String, code: Int32) {
        self.path = path
        self.code = code
    }
}
