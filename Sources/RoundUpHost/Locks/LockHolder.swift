import Foundation
import RoundUp

#if canImport(Glibc)
import Glibc
#endif

extension AccountLock {
    /// Who holds the lock on `accountUid` of the bank at `baseURL` now, or nil when no one
    /// does. It only looks: the lock is never taken, so a run starting meanwhile is not held up.
    package static func currentHolder(baseURL: String, accountUid: String) -> Holder? {
        let name = name(baseURL: baseURL, accountUid: accountUid)
        guard var holder = peer(of: name) ?? Holder.owner(ofAbstractName: name) else { return nil }
        if let pid = holder.pid { holder.command = Holder.command(of: pid) }
        return holder
    }

    /// Who holds an account's lock, as far as this process can tell: the pid and uid (from
    /// the kernel, or /proc), and the command line /proc gives for the pid. Any local user
    /// can take a lock's name first; this names them plainly, whatever their program.
    package struct Holder: Error, Equatable, CustomStringConvertible {
        var pid: Int32?
        package var uid: UInt32?
        /// The holder's command line, made printable and cut short.
        var command: String?

        package var description: String {
            guard let pid else {
                return "a process this user cannot see (another user's, which does not answer on the lock)"
            }
            let user = uid.map { " of user \($0)" } ?? ""
            return "process \(pid)\(user)" + (command.map { " (\($0))" } ?? "")
        }

        /// Whether the holder is known to run as another user than this process.
        package var isAnotherUsers: Bool { uid.map { $0 != geteuid() } ?? (pid == nil) }

        /// The process with the abstract socket `name` open, found through /proc: the
        /// socket's inode in /proc/net/unix, then the process whose descriptors include it.
        /// Only this user's processes (or all, for root) show their descriptors.
        static func owner(ofAbstractName name: String) -> Holder? {
            guard let bytes = procFile("/proc/net/unix") else { return nil }
            let table = String(decoding: bytes, as: UTF8.self)
            // Num RefCount Protocol Flags Type St Inode Path; an abstract path starts with @.
            let inodes = table.split(separator: "\n").dropFirst().compactMap { line -> String? in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 8, fields[7] == "@" + name else { return nil }
                return String(fields[6])
            }
            guard !inodes.isEmpty else { return nil }
            // Held, by a process whose descriptors this user may not read unless found below.
            let targets = Set(inodes.map { "socket:[\($0)]" })
            let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            for entry in processes {
                guard let pid = Int32(entry), pid != getpid() else { continue }
                let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
                for descriptor in descriptors {
                    let link = try? FileManager.default.destinationOfSymbolicLink(
                        atPath: "/proc/\(pid)/fd/\(descriptor)")
                    guard let link, targets.contains(link) else { continue }
                    var status = stat()
                    let uid = stat("/proc/\(pid)", &status) == 0 ? status.st_uid : nil
                    return Holder(pid: pid, uid: uid)
                }
            }
            return Holder()
        }

        /// The whole of a /proc file. Such a file says it is empty, and Foundation's readers
        /// stop after its first page: a busy machine's socket table is longer.
        static func procFile(_ path: String) -> [UInt8]? {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return count == 0 ? bytes : nil }
                bytes += chunk[0..<count]
            }
        }

        /// `pid`'s command line as /proc gives it, printable, at most 120 characters.
        static func command(of pid: Int32) -> String? {
            guard let bytes = procFile("/proc/\(pid)/cmdline"), !bytes.isEmpty else { return nil }
            let words = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            let line = printable(words.joined(separator: " "))
            guard !line.isEmpty else { return nil }
            return line.count > 120 ? String(line.prefix(119)) + "…" : line
        }
    }
}
