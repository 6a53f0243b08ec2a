import Foundation

#if canImport(Glibc)
package import Glibc
#endif

/// A file the job reads and trusts (its config, its token file, the service's environment
/// file), read once it is known that no other user could have written it: opened without
/// waiting (a FIFO is no such file), held to `SafePath.readProblem` as opened, and read up
/// to a limit, however it grows meanwhile.
package enum TrustedFile {
    /// Why the file could not be had, for the caller to say in its own words.
    package enum Failure: Error, Sendable {
        /// It could not be opened: it does not exist, or is not accessible.
        case unopenable
        /// Not a plain file (a directory, a device, a FIFO).
        case notPlain
        /// Someone other than this user or root could have written it: why, in words.
        case refused(String)
        /// Larger than the limit, of so many bytes.
        case tooLarge(Int64)
        /// Reading it failed, with the system's reason.
        case unreadable(String)
    }

    /// The bytes of the file at `path`, named `what` in a refusal ("the config file"), at
    /// most `limit` of them. `vet`, when given, judges the file as opened first, by its own
    /// rule (the token file's, which only its owner may read).
    package static func read(
        _ what: String, at path: String, limit: Int, vet: (Int32, stat) -> String? = { _, _ in nil }
    ) -> Result<[UInt8], Failure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return .failure(.unopenable) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .failure(.notPlain) }
        if let refusal = vet(descriptor, info) ?? SafePath.readProblem(what, at: path, descriptor: descriptor) {
            return .failure(.refused(refusal))
        }
        guard info.st_size <= limit else { return .failure(.tooLarge(Int64(info.st_size))) }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes {
                Glibc.read(descriptor, $0.baseAddress! + count, $0.count - count)
            }
            if read < 0, errno == EINTR { continue }
            if read < 0 { return .failure(.unreadable(errorText(errno))) }
            guard read > 0 else { break }
            count += read
        }
        guard count <= limit else { return .failure(.tooLarge(Int64(count))) }
        return .success(Array(bytes[..<count]))
    }
}
