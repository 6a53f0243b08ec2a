import Foundation
import RoundUp
import RoundUpOutput
import RoundUpVocabulary

#if canImport(Glibc)
import Glibc
#endif

/// One roundup process per account per machine: while a real run works on an account, no
/// other roundup process does, whatever its config, state directory or user. A crontab
/// entry and a systemd timer both installed, or a second config, would otherwise each read
/// the feed at once, find no transfer, and send one. The lock puts them one after the
/// other; the feed check then finds what the first moved (into any of the account's goals,
/// for a week the second has never seen).
///
/// The lock is a name in the abstract Unix socket namespace, bound by the holder. A lock
/// file would not do: the systemd unit's PrivateTmp and ProtectSystem=strict give it a
/// file system of its own, but it shares the machine's network namespace, where abstract
/// names live. The kernel frees the name when the holder's socket closes, however the
/// process ends, so a killed run never leaves a stale lock.
///
/// Limits: the name is per network namespace, so two machines (or containers with their
/// own network) running for one account are not covered; and any local user can bind a
/// name first, which makes runs wait and then skip the account (exit 75) naming that
/// process (`Holder`), and `status` warn of it.
package final class AccountLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// The lock's name for `accountUid` at the bank `baseURL`: a hash of the bank's host and
    /// port and the account, so that emulators on other ports, with the same seeded uids,
    /// have locks of their own. The host is taken in one spelling (`bank(of:)`), so that
    /// two ways of writing one address share a lock.
    package static func name(baseURL: String, accountUid: String) -> String {
        let key = TransferUID.uuidV5(namespace: namespace, name: "\(bank(of: baseURL)) \(Uid.canonical(accountUid))")
        return "roundup/account/\(key)"
    }

    /// `host:port` of `baseURL` in one spelling: lower case, without a trailing dot or
    /// IPv6 brackets, the scheme's port when none is written, and every loopback address
    /// (`localhost`, `127.0.0.1`, `::1`) as one. Names that resolve to one machine in other
    /// ways (two DNS names for one address) are not recognised.
    package static func bank(of baseURL: String) -> String {
        let url = URLComponents(string: baseURL.trimmingCharacters(in: .whitespaces))
        var host = (url?.host ?? baseURL).lowercased()
        host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        while host.hasSuffix(".") { host.removeLast() }
        let loopback =
            host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "0:0:0:0:0:0:0:1"
            || host.hasPrefix("127.")
        let port = url?.port ?? (url?.scheme?.lowercased() == "http" ? 80 : 443)
        return "\(loopback ? "loopback" : host):\(port)"
    }

    private static let namespace: [UInt8] = [
        0x3d, 0x71, 0x0a, 0x52, 0xe4, 0x1b, 0x4f, 0x08, 0x9c, 0x27, 0x61, 0xb5, 0x0e, 0xd3, 0x48, 0x9a,
    ]

    /// Takes the lock `name`, trying every 100 ms for up to `wait`; when it is still held
    /// after that, who holds it.
    package static func acquire(_ name: String, wait: Duration) async throws -> Result<AccountLock, Holder> {
        let deadline = ContinuousClock.now + wait
        while true {
            if let lock = try bind(name) { return .success(lock) }
            guard ContinuousClock.now < deadline else { return .failure(holder(of: name)) }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The lock, or nil when another socket has the name.
    private static func bind(_ name: String) throws -> AccountLock? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw AccountLockError(operation: "socket", code: errno) }
        let bound = withAddress(name) { address, length in Glibc.bind(descriptor, address, length) }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            if code == EADDRINUSE { return nil }
            throw AccountLockError(operation: "bind", code: code)
        }
        // Listening lets a waiting process connect and learn who holds the lock.
        guard listen(descriptor, 64) == 0 else {
            let code = errno
            close(descriptor)
            throw AccountLockError(operation: "listen", code: code)
        }
        return AccountLock(descriptor: descriptor)
    }

    /// Who holds `name`: the kernel's answer to a connection (SO_PEERCRED) when the holder
    /// listens, else the process that has the name's socket open, where /proc shows it.
    static func holder(of name: String) -> Holder {
        var holder = peer(of: name) ?? Holder.owner(ofAbstractName: name) ?? Holder()
        if let pid = holder.pid { holder.command = Holder.command(of: pid) }
        return holder
    }

    /// The credentials of the process listening on `name`; nil when none answers.
    static func peer(of name: String) -> Holder? {
        let descriptor = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard withAddress(name, { address, length in connect(descriptor, address, length) }) == 0 else {
            return nil
        }
        // struct ucred: pid_t pid, uid_t uid, gid_t gid.
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0, credentials.0 > 0 else {
            return nil
        }
        return Holder(pid: credentials.0, uid: credentials.1)
    }

    /// Calls `body` with the abstract socket address of `name`: a zero byte, then the name.
    private static func withAddress(
        _ name: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8.prefix(MemoryLayout.size(ofValue: address.sun_path) - 1))
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path[0] = 0
            for (index, byte) in bytes.enumerated() { path[index + 1] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + bytes.count)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

/// The lock's socket could not be made.
struct AccountLockError: Error, CustomStringConvertible {
    let operation: String
    let code: Int32
    var description: String { "cannot take the account's lock (\(operation): \(String(cString: strerror(code))))" }
}
