import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Whether another user could redirect what the job writes at `path`: through a link of
/// theirs on the way to it, or a directory on the way that is theirs or that others may
/// change. The job refuses to keep its ledger or write its reports in such a place, as
/// OpenSSH refuses a key file under a directory others may write to.
package enum SafePath {
    /// Why `path` is not safe, in words, or nil. Each part of the path as given, and of the
    /// directory it leads to once links are followed, must belong to the user or to root
    /// (a link too); each directory on the way must not be writable by others, unless it is
    /// sticky (as /tmp), where no one may move or remove what is not theirs. A directory
    /// writable by its group passes only when the group is the user's own. A part that does
    /// not exist yet would be made in the directory before it, whose rule then applies too:
    /// under a directory anyone may write to, what the job creates could be renamed away.
    package static func problem(with path: String) -> String? {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        if let problem = check(absolute, as: path) { return problem }
        guard let resolved = resolved(path) else { return nil }
        return resolved == absolute ? nil : check(resolved, as: "\(path) (which leads to \(resolved))")
    }

    /// Where `path` leads once the links of the part of it that exists are followed, as the
    /// kernel follows them (a `..` after a link goes up from the link's target): the real
    /// path of its longest existing prefix, then the parts that do not exist yet.
    static func resolved(_ path: String) -> String? {
        let start = path.hasPrefix("/") ? "" : FileManager.default.currentDirectoryPath
        var parts = (start + "/" + path).split(separator: "/").map(String.init)
        var missing: [String] = []
        while true {
            let prefix = "/" + parts.joined(separator: "/")
            if let real = realpath(prefix, nil) {
                defer { free(real) }
                let base = String(cString: real)
                guard !missing.isEmpty else { return base }
                let rest = URL(fileURLWithPath: missing.joined(separator: "/"), relativeTo: URL(fileURLWithPath: base))
                return rest.standardizedFileURL.path
            }
            guard let last = parts.popLast() else { return nil }
            missing.insert(last, at: 0)
        }
    }

    /// Checks each existing part of `absolute` (no `.` or `..`), without following links.
    private static func check(_ absolute: String, as shown: String) -> String? {
        let parts = absolute.split(separator: "/").map(String.init)
        var prefix = ""
        var parentMode: mode_t = 0
        var parentIsDirectory = false
        for (index, part) in ([""] + parts).enumerated() {
            prefix = index == 0 ? "/" : (prefix == "/" ? "/" : prefix + "/") + part
            let openParent = parentIsDirectory && parentMode & 0o002 != 0 && parentMode & S_ISVTX == 0
            var status = stat()
            guard lstat(prefix, &status) == 0 else {
                guard openParent else { return nil }
                return "\(shown): \(String(prefix.dropLast(part.count + 1)).nonEmptyPath) can be written by anyone "
                    + "(mode \(String(parentMode & 0o7777, radix: 8))), who could rename away \(prefix) once it is "
                    + "created; use another directory"
            }
            let owner = status.st_uid
            if owner != 0, owner != geteuid() {
                return "\(shown): \(prefix) belongs to another user (uid \(owner)), who could redirect what roundup "
                    + "writes there; use a directory whose every part is yours or root's"
            }
            if openParent {
                return "\(shown): \(String(prefix.dropLast(part.count + 1)).nonEmptyPath) can be written by anyone "
                    + "(mode \(String(parentMode & 0o7777, radix: 8))), who could replace \(prefix); use another directory"
            }
            let isDirectory = status.st_mode & S_IFMT == S_IFDIR
            if isDirectory, status.st_mode & 0o020 != 0, status.st_mode & S_ISVTX == 0, status.st_gid != getegid(),
                index < parts.count
            {
                return "\(shown): \(prefix) can be written by its group (gid \(status.st_gid), mode "
                    + "\(String(status.st_mode & 0o7777, radix: 8))), whose members could replace what is in it; "
                    + "use another directory"
            }
            parentMode = status.st_mode
            parentIsDirectory = isDirectory
        }
        return nil
    }
}

extension String {
    fileprivate var nonEmptyPath: String { isEmpty ? "/" : self }
}
