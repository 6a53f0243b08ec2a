import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for the tests of the built binary.
///
/// Foundation's `Process.run()` on Linux crashed now and then (a bad pointer in a memcpy
/// inside it) while the test process was busy, even with launches one at a time, so the
/// tests start processes themselves. Every descriptor the tests open is close-on-exec, so a
/// child inherits only its own stdin, stdout and stderr, and a pipe reaches end of file as
/// soon as its one child exits.
struct Child: Sendable {
    let pid: pid_t

    /// How a child ended.
    enum Ending: Equatable, Sendable, CustomStringConvertible {
        case exit(Int32)
        case signal(Int32)

        var description: String {
            switch self {
            case .exit(let status): "with exit status \(status)"
            case .signal(let signal): "by signal \(signal)"
            }
        }

        /// As a shell reports it: the exit status, or 128 plus the signal.
        var status: Int32 {
            switch self {
            case .exit(let status): status
            case .signal(let signal): 128 + signal
            }
        }
    }

    struct SpawnError: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    /// Starts `executable` with `arguments` and exactly `environment`, stdin from
    /// /dev/null, and stdout and stderr on the given descriptors.
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String], stdout: Int32, stderr: Int32
    ) throws(SpawnError) -> Child {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)

        // Default signal handling and an empty mask in the child, whatever the test runner set.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw SpawnError(call: "posix_spawn \(executable)", code: result) }
        return Child(pid: pid)
    }

    /// Blocks until the child has ended, without reaping it: its pid stays its own.
    func waitUntilEnded() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
    }

    /// Blocks until the child ends, and reaps it.
    func wait() -> Ending {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            if errno != EINTR { return .exit(-1) }
        }
        let signal = status & 0x7f
        return signal == 0 ? .exit((status >> 8) & 0xff) : .signal(signal)
    }
}

/// A one-way channel whose two ends are close-on-exec from the start (a Unix socket pair:
/// `pipe2` is not visible to Swift, and setting the flag after `pipe` would race with a
/// spawn on another thread).
func closeOnExecPipe() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [0, 0]
    let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    guard socketpair(AF_UNIX, kind, 0, &ends) == 0 else { throw Child.SpawnError(call: "socketpair", code: errno) }
    shutdown(ends[0], Int32(SHUT_WR))
    shutdown(ends[1], Int32(SHUT_RD))
    return (ends[0], ends[1])
}

/// Reads `descriptor` to end of file, then closes it.
func readAll(_ descriptor: Int32) -> Data {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            data.append(contentsOf: buffer[0..<count])
        } else if count == 0 || errno != EINTR {
            break
        }
    }
    close(descriptor)
    return data
}
