import Foundation
package import RoundUp

#if canImport(Glibc)
package import Glibc
#endif

/// A directory the job writes files into, held by an open handle from the moment it is
/// checked: each file is created relative to that handle under a name nobody can guess
/// (`O_CREAT|O_EXCL|O_NOFOLLOW`), written whole, and renamed into place. A symbolic link
/// planted at any name in the directory, the final one or the temporary one, is never
/// written through: the temporary name cannot exist beforehand, and a rename replaces a
/// link rather than following it.
package final class WriteDirectory: @unchecked Sendable {
    package let path: String
    private let descriptor: Int32

    /// Who may write to a directory the job writes into.
    package enum Sharing {
        /// Only its owner, the user running the job (reports): one that others can write
        /// to, or that another user owns, is refused.
        case ownerOnly
        /// Anyone the directory lets in (a textfile collector's directory, 2770 or 1733):
        /// the names the job uses are guarded one by one instead.
        case shared
    }

    /// Opens `path`, creating it (mode 0700, with its parents) when `create` is set and it
    /// is missing, and checks it against `sharing` once opened.
    package init(_ path: String, sharing: Sharing, create: Bool) throws(FileRefusal) {
        self.path = path
        if create, access(path, F_OK) != 0 {
            // Where no one else may change it, or nothing is created.
            if sharing == .ownerOnly, let problem = SafePath.problem(with: path) {
                throw FileRefusal(.refused, problem)
            }
            do {
                try FileManager.default.createDirectory(
                    atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw FileRefusal(.unwritable, "cannot create \(path): \(plainDescription(error))")
            }
        }
        descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileRefusal(.unwritable, "cannot open \(path): \(errorText(errno))") }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw FileRefusal(.unwritable, "cannot open \(path): \(errorText(code))")
        }
        if sharing == .ownerOnly {
            let mode = status.st_mode & 0o7777
            if status.st_uid != geteuid() {
                close(descriptor)
                throw FileRefusal(
                    .refused,
                    "\(path) belongs to another user (uid \(status.st_uid)), who could plant links in it; "
                        + "use a directory of your own")
            }
            if mode & 0o022 != 0 {
                close(descriptor)
                throw FileRefusal(
                    .refused,
                    "\(path) can be written by others (mode \(String(mode, radix: 8))), who could plant links "
                        + "in it; make it yours alone with: chmod 700 \(path)")
            }
            if let problem = SafePath.problem(with: path) {
                close(descriptor)
                throw FileRefusal(.refused, problem)
            }
            // Said now, before anything is asked of the bank, not after the money moved.
            if access(path, W_OK | X_OK) != 0 {
                let code = errno
                close(descriptor)
                throw FileRefusal(.unwritable, "cannot write to \(path): \(errorText(code))")
            }
        }
    }

    deinit { close(descriptor) }

    /// What stands at `name` in the directory, without following a link; nil when nothing does.
    package func status(of name: String) -> stat? {
        var status = stat()
        return fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0 ? status : nil
    }

    /// Whether anything, a link included, stands at `name`.
    package func contains(_ name: String) -> Bool { status(of: name) != nil }

    /// Whether this is the directory at `path` (the same device and inode), whatever links
    /// or spellings lead to either.
    package func isSame(as path: String) -> Bool {
        var mine = stat()
        var other = stat()
        guard fstat(descriptor, &mine) == 0, stat(path, &other) == 0 else { return false }
        return mine.st_dev == other.st_dev && mine.st_ino == other.st_ino
    }

    /// A new file to become `name` once committed, created with `mode` under a temporary
    /// name nobody can guess.
    package func create(_ name: String, mode: mode_t) throws(FileRefusal) -> NewFile {
        for _ in 0..<8 {
            let temporary = ".\(name).\(String(UInt64.random(in: .min ... .max), radix: 16)).partial"
            let file = openat(descriptor, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if file >= 0 {
                // The mode asked for, whatever the umask.
                _ = fchmod(file, mode)
                return NewFile(directory: self, name: name, temporary: temporary, descriptor: file)
            }
            guard errno == EEXIST else {
                throw FileRefusal(.unwritable, "cannot write \(path)/\(name): \(errorText(errno))")
            }
        }
        throw FileRefusal(.unwritable, "cannot write \(path)/\(name): no free temporary name")
    }

    /// Points the symbolic link `name` at `target` (a name in this directory), atomically.
    package func link(_ name: String, to target: String) throws(FileRefusal) {
        for _ in 0..<8 {
            let temporary = ".\(name).\(String(UInt64.random(in: .min ... .max), radix: 16)).link"
            guard symlinkat(target, descriptor, temporary) == 0 else {
                if errno == EEXIST { continue }
                throw FileRefusal(.unwritable, "cannot link \(path)/\(name): \(errorText(errno))")
            }
            try rename(temporary, to: name)
            return
        }
        throw FileRefusal(.unwritable, "cannot link \(path)/\(name): no free temporary name")
    }

    /// Renames `name` to `newName` within the directory; on failure `name` is removed.
    package func rename(_ name: String, to newName: String) throws(FileRefusal) {
        guard renameat(descriptor, name, descriptor, newName) == 0 else {
            let code = errno
            remove(name)
            throw FileRefusal(.unwritable, "cannot write \(path)/\(newName): \(errorText(code))")
        }
    }

    /// Renames `name` to `newName` and keeps `name` if that fails.
    package func move(_ name: String, to newName: String) throws(FileRefusal) {
        guard renameat(descriptor, name, descriptor, newName) == 0 else {
            throw FileRefusal(.unwritable, "cannot rename \(path)/\(name): \(errorText(errno))")
        }
    }

    /// Removes the entry `name` (a link itself, never its target).
    package func remove(_ name: String) { unlinkat(descriptor, name, 0) }

    /// The names in the directory.
    package func names() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }

    /// Temporary files of this user's that a run stopped half-way left behind, an hour old
    /// or more, removed.
    package func removeLeftovers(now: Instant) {
        for name in names() where name.hasPrefix(".") && (name.hasSuffix(".partial") || name.hasSuffix(".link")) {
            guard let status = status(of: name), status.st_uid == geteuid(),
                Int64(status.st_mtim.tv_sec) * 1000 < now.millisecondsSince1970 - 3_600_000
            else { continue }
            remove(name)
        }
    }
}

/// A file being written into a `WriteDirectory`, under its temporary name until committed.
package final class NewFile {
    private let directory: WriteDirectory
    package let name: String
    private let temporary: String
    private var descriptor: Int32

    fileprivate init(directory: WriteDirectory, name: String, temporary: String, descriptor: Int32) {
        self.directory = directory
        self.name = name
        self.temporary = temporary
        self.descriptor = descriptor
    }

    deinit { abandon() }

    package var path: String { "\(directory.path)/\(name)" }

    package func write(_ bytes: UnsafeRawBufferPointer) throws(FileRefusal) {
        if let failed = writeAll(descriptor, bytes) {
            throw FileRefusal(.unwritable, "cannot write \(path): \(errorText(failed))")
        }
    }

    package func write(_ text: String) throws(FileRefusal) {
        let failed = writeAll(descriptor, text)
        if let failed { throw FileRefusal(.unwritable, "cannot write \(path): \(errorText(failed))") }
    }

    /// Puts the whole file in its place, on disk before it is renamed.
    package func commit() throws(FileRefusal) {
        guard descriptor >= 0 else { throw FileRefusal(.unwritable, "cannot write \(path): already closed") }
        let synced = fsync(descriptor) == 0 ? nil : errno
        close(descriptor)
        descriptor = -1
        if let synced {
            directory.remove(temporary)
            throw FileRefusal(.unwritable, "cannot write \(path): \(errorText(synced))")
        }
        try directory.rename(temporary, to: name)
    }

    /// Gives up: the temporary file goes, and whatever was at the name stays.
    package func abandon() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        directory.remove(temporary)
    }
}

/// A file or directory the job would not, or could not, write.
package struct FileRefusal: Error, CustomStringConvertible {
    package enum Kind {
        /// Writing there could harm another file or be redirected by another user: a
        /// setting to change (78).
        case refused
        /// The system would not write it (a full disk, no permission).
        case unwritable
    }

    package let kind: Kind
    package let description: String

    package init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    package var localizedDescription: String { description }
}

/// The system's words for `code`.
package func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
