import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether another user could redirect what the job writes at `path`: through a link of
/// theirs on the way to it, or a directory on the way that is theirs or that others may
/// change. The job refuses to keep its ledger or write its reports in such a place, as
/// OpenSSH refuses a key file under a directory others may write to.
package enum SafePath {
    /// Why `path` is not safe, in words, or nil. Each part of the way to it, every link
    /// passed and every directory entered (`finding`), must belong to the user or to root;
    /// each directory on the way must not be writable by others, unless it is
    /// sticky (as /tmp), where no one may move or remove what is not theirs. A directory
    /// writable by its group passes only when the group is the user's own. A part that does
    /// not exist yet would be made in the directory before it, whose rule then applies too:
    /// under a directory anyone may write to, what the job creates could be renamed away.
    package static func problem(with path: String) -> String? {
        finding(path).map { $0.words(writing: true) }
    }

    /// Why a file the job reads and trusts (its config, its token file), open as
    /// `descriptor` at `path`, could have been written by another user, in words with what
    /// fixes it; nil when it could not. `what` names it ("the config file"). The directories
    /// on the way to it are held to the rule `problem(with:)` gives, and so is the file
    /// itself: it must belong to this user or to root, and neither others nor a group not
    /// the user's own may write to it. Another user who could rewrite the config could point
    /// `apiBaseURL` at a listener of theirs, which would then be sent the token.
    package static func readProblem(_ what: String, at path: String, descriptor: Int32) -> String? {
        var file = stat()
        guard fstat(descriptor, &file) == 0 else { return "cannot read \(what) \(path): \(errorText(errno))" }
        let mode = String(file.st_mode & 0o7777, radix: 8)
        if file.st_uid != 0, file.st_uid != geteuid() {
            return "\(what) \(path) belongs to another user (uid \(file.st_uid)), who could rewrite it; use one "
                + "of your own (or root's)"
        }
        if file.st_mode & 0o002 != 0 {
            return "\(what) \(path) can be written by anyone (mode \(mode)), who could rewrite it; run: "
                + "chmod go-w \(path)"
        }
        if file.st_mode & 0o020 != 0, file.st_gid != getegid() {
            return "\(what) \(path) can be written by its group (gid \(file.st_gid), mode \(mode)), whose members "
                + "could rewrite it; run: chmod go-w \(path)"
        }
        if let other = AccessList.othersWhoMayWrite(descriptor: descriptor) {
            return "\(what) \(path) has an access control list that lets \(other) write to it, who could rewrite "
                + "it; run: setfacl -b \(path)"
        }
        return finding(path).map { "\(what) \($0.words(writing: false))" }
    }

    /// What makes `path` unsafe, found by following it as the kernel does, a part at a
    /// time: each link read and its target followed in turn (a `..` after it goes up from
    /// where it led), so that every directory entered and every link passed, links in the
    /// middle of the way included, is held to the rule `problem(with:)` gives and to
    /// `AccessList`'s. Stops at a part that does not exist yet, or at the end; a link that
    /// cannot be read, or a 41st (where the kernel gives up), is refused.
    private static func finding(_ path: String) -> Finding? {
        let start = path.hasPrefix("/") ? "" : FileManager.default.currentDirectoryPath + "/"
        var pending = (start + path).split(separator: "/").map(String.init)
        var current = "/"
        var currentStatus = stat()
        guard lstat("/", &currentStatus) == 0 else { return nil }
        var links = 0
        while !pending.isEmpty {
            let part = pending.removeFirst()
            if part.isEmpty || part == "." { continue }
            if part == ".." {
                current = (current as NSString).deletingLastPathComponent.nonEmptyPath
                guard lstat(current, &currentStatus) == 0 else { return nil }
                continue
            }
            let next = current == "/" ? "/" + part : current + "/" + part
            let parentMode = currentStatus.st_mode
            let openParent = parentMode & 0o002 != 0 && parentMode & S_ISVTX == 0
            var status = stat()
            guard lstat(next, &status) == 0 else {
                guard openParent else { return nil }
                return Finding(
                    kind: .couldBeRenamedAway, shown: path, directory: current, part: next, mode: parentMode, id: 0)
            }
            if status.st_uid != 0, status.st_uid != geteuid() {
                return Finding(
                    kind: .anotherUsers, shown: path, directory: current, part: next, mode: 0, id: status.st_uid)
            }
            if openParent {
                return Finding(kind: .replaceable, shown: path, directory: current, part: next, mode: parentMode, id: 0)
            }
            if status.st_mode & S_IFMT == S_IFLNK {
                links += 1
                guard links <= 40, let target = linkTarget(next) else {
                    return Finding(kind: .unfollowable, shown: path, directory: current, part: next, mode: 0, id: 0)
                }
                if target.hasPrefix("/") {
                    current = "/"
                    guard lstat("/", &currentStatus) == 0 else { return nil }
                }
                pending = target.split(separator: "/").map(String.init) + pending
                continue
            }
            let isDirectory = status.st_mode & S_IFMT == S_IFDIR
            if isDirectory, !pending.isEmpty, status.st_mode & 0o022 == 0o020, status.st_mode & S_ISVTX == 0,
                status.st_gid != getegid()
            {
                return Finding(
                    kind: .groupWritable, shown: path, directory: current, part: next, mode: status.st_mode,
                    id: status.st_gid)
            }
            if isDirectory, let other = AccessList.othersWhoMayWrite(path: next) {
                return Finding(
                    kind: .accessList, shown: path, directory: current, part: next, mode: 0, id: 0, who: other)
            }
            current = next
            currentStatus = status
        }
        return nil
    }

    /// Where the link at `path` leads, read whole (a target may be as long as a path), or nil.
    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count)
        guard count > 0, count < buffer.count else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// One reason a path is unsafe, said in `words` for a place the job writes or a file it reads.
    private struct Finding {
        enum Kind {
            /// `directory` (mode `mode`) can be written by anyone, and `part` in it does not exist yet.
            case couldBeRenamedAway
            /// `part` belongs to another user, `id`.
            case anotherUsers
            /// `directory` (mode `mode`) can be written by anyone, who could replace `part` in it.
            case replaceable
            /// `part`, a directory, can be written by its group, `id`, not the user's own.
            case groupWritable
            /// `part`, a directory, has an access control list that lets `who` write to it.
            case accessList
            /// `part` is a link that cannot be followed (unreadable, or one link too many).
            case unfollowable
        }

        let kind: Kind
        let shown: String
        let directory: String
        let part: String
        let mode: mode_t
        let id: UInt32
        var who = ""

        func words(writing: Bool) -> String {
            let mode = String(self.mode & 0o7777, radix: 8)
            switch (kind, writing) {
            case (.couldBeRenamedAway, _):
                return "\(shown): \(directory) can be written by anyone (mode \(mode)), who could rename away \(part) "
                    + "once it is created; use another directory"
            case (.anotherUsers, true):
                return "\(shown): \(part) belongs to another user (uid \(id)), who could redirect what roundup "
                    + "writes there; use a directory whose every part is yours or root's"
            case (.anotherUsers, false):
                return "\(shown): \(part) belongs to another user (uid \(id)), who could put another file in its "
                    + "place; keep it where every directory on the way is yours or root's"
            case (.replaceable, true):
                return "\(shown): \(directory) can be written by anyone (mode \(mode)), who could replace \(part); "
                    + "use another directory"
            case (.replaceable, false):
                return "\(shown): \(directory) can be written by anyone (mode \(mode)), who could replace \(part); "
                    + "run: chmod go-w \(directory) (or keep it in a directory of your own)"
            case (.groupWritable, true):
                return "\(shown): \(part) can be written by its group (gid \(id), mode \(mode)), whose members "
                    + "could replace what is in it; use another directory"
            case (.groupWritable, false):
                return "\(shown): \(part) can be written by its group (gid \(id), mode \(mode)), whose members "
                    + "could replace what is in it; run: chmod go-w \(part) (or keep it in a directory of your own)"
            case (.unfollowable, _):
                return "\(shown): the link \(part) cannot be followed (it cannot be read, or too many links lead "
                    + "on from it); use a path without it"
            case (.accessList, _):
                return "\(shown): \(part) has an access control list that lets \(who) write to it, who could "
                    + "replace what is in it; run: setfacl -b \(part)" + (writing ? ", or use another directory" : "")
            }
        }
    }
}

extension String {
    fileprivate var nonEmptyPath: String { isEmpty ? "/" : self }
}

/// A file's or directory's POSIX access control list, as the kernel keeps it in the
/// `system.posix_acl_access` attribute: the mode's bits do not show who else a named entry
/// lets write (with one, the group bits show the list's mask instead).
enum AccessList {
    /// Who other than this user, root and the user's own group the list at `path` lets
    /// write ("user 1002", "group 50"), or nil.
    static func othersWhoMayWrite(path: String) -> String? {
        guard let getxattr = getxattr else { return nil }
        return read { getxattr(path, name, $0, $1) }
    }

    /// The same, for the file open as `descriptor`.
    static func othersWhoMayWrite(descriptor: Int32) -> String? {
        guard let fgetxattr = fgetxattr else { return nil }
        return read { fgetxattr(descriptor, name, $0, $1) }
    }

    private static let name = "system.posix_acl_access"

    // The C library's calls for extended attributes, which Swift's Glibc module does not
    // bring in: found by name, as the dynamic linker would.
    private typealias GetByPath =
        @convention(c) (
            UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int
        ) -> Int
    private typealias GetByDescriptor =
        @convention(c) (
            Int32, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int
        ) -> Int
    private static let getxattr: GetByPath? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getxattr").map {
        unsafeBitCast($0, to: GetByPath.self)
    }
    private static let fgetxattr: GetByDescriptor? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fgetxattr").map {
        unsafeBitCast($0, to: GetByDescriptor.self)
    }

    /// Reads the list through `get` and names the first entry other than the user's own that
    /// may write, once the list's mask allows it. The format: a 4-byte version (2), then
    /// 8-byte entries of tag (2 bytes), permissions (2 bytes), id (4 bytes), little-endian.
    /// A list that is there but cannot be read whole is taken to let anyone write: the
    /// check fails closed.
    private static func read(_ get: (UnsafeMutableRawPointer?, Int) -> Int) -> String? {
        var bytes: [UInt8] = []
        var count = -1
        // Its size first, then the list; again if it grew meanwhile.
        for _ in 0..<4 {
            let size = get(nil, 0)
            guard size >= 0 else { return absent(errno) ? nil : unreadable }
            bytes = [UInt8](repeating: 0, count: max(size, 4))
            count = bytes.withUnsafeMutableBytes { get($0.baseAddress, $0.count) }
            if count >= 0 { break }
            guard errno == ERANGE else { return absent(errno) ? nil : unreadable }
        }
        guard count >= 0 else { return unreadable }
        guard count >= 4 else { return count == 0 ? nil : unreadable }
        func number(_ at: Int, _ size: Int) -> UInt32 {
            (0..<size).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
        }
        var writers: [String] = []
        var maskAllowsWrite = true
        for at in stride(from: 4, to: count - 7, by: 8) {
            let (tag, permissions, id) = (number(at, 2), number(at + 2, 2), number(at + 4, 4))
            let writes = permissions & 0o2 != 0
            switch tag {
            case 0x02 where writes && id != geteuid() && id != 0: writers.append("user \(id)")
            case 0x08 where writes && id != getegid(): writers.append("group \(id)")
            case 0x10: maskAllowsWrite = writes
            default: break
            }
        }
        return maskAllowsWrite ? writers.first : nil
    }

    /// Who a list that cannot be read may let write, in words.
    private static let unreadable = "anyone (a list that cannot be read)"

    /// Whether `code` says there is no list: none set, or a file system that keeps none.
    private static func absent(_ code: Int32) -> Bool { code == ENODATA || code == ENOTSUP || code == EOPNOTSUPP }
}
