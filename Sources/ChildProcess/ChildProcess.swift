public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for the tests of the built binary and the
/// benchmark, which also needs the child's CPU time and peak memory.
///
/// Foundation's `Process.run()` on Linux crashed now and then (a bad pointer in a memcpy
/// inside it) while the test process was busy, even with launches one at a time, so the
/// tests start processes themselves. Every descriptor opened here is close-on-exec, so a
/// child inherits only its own stdin, stdout and stderr, and a pipe reaches end of file as
/// soon as its one child exits.
public struct Child: Sendable {
    public let pid: pid_t

    /// How a child ended.
    public enum Ending: Equatable, Sendable, CustomStringConvertible {
        case exit(Int32)
        case signal(Int32)

        public var description: String {
            switch self {
            case .exit(let status): "with exit status \(status)"
            case .signal(let signal): "by signal \(signal)"
            }
        }

        /// As a shell reports it: the exit status, or 128 plus the signal.
        public var status: Int32 {
            switch self {
            case .exit(let status): status
            case .signal(let signal): 128 + signal
            }
        }
    }

    public struct SpawnError: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        public var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    /// Starts `executable` with `arguments` and exactly `environment`, stdin from `stdin`
    /// (else /dev/null), and stdout and stderr on the given descriptors; with
    /// `ownProcessGroup`, in a process group of its own, which `killGroup` ends whole.
    public static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String], stdin: Int32? = nil,
        stdout: Int32, stderr: Int32, ownProcessGroup: Bool = false
    ) throws(SpawnError) -> Child {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        // Nothing else of this process goes with the child: a file another thread has open
        // for writing, inherited, would make exec of that file fail with ETXTBSY for as
        // long as the child lives (a test that writes a script and then runs it).
        closeFrom(3, &actions)

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
        posix_spawnattr_setflags(
            &attributes,
            Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (ownProcessGroup ? POSIX_SPAWN_SETPGROUP : 0)))
        if ownProcessGroup { posix_spawnattr_setpgroup(&attributes, 0) }

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

    /// Sends SIGKILL to the child's process group (`ownProcessGroup`): what it started too.
    public func killGroup() { kill(-pid, SIGKILL) }

    /// Blocks until the child has ended, without reaping it: its pid stays its own.
    public func waitUntilEnded() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
    }

    /// Blocks until the child ends, and reaps it.
    public func wait() -> Ending { waitWithUsage().ending }

    /// What the child used: CPU time in user and kernel mode, and its peak resident memory.
    public struct Usage: Sendable {
        public var cpuSeconds: Double
        public var peakMemoryBytes: Int
    }

    /// Blocks until the child ends, reaps it, and reports what it used.
    public func waitWithUsage() -> (ending: Ending, usage: Usage) {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1 {
            if errno != EINTR { return (.exit(-1), Usage(cpuSeconds: 0, peakMemoryBytes: 0)) }
        }
        let signal = status & 0x7f
        let ending: Ending = signal == 0 ? .exit((status >> 8) & 0xff) : .signal(signal)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        // ru_maxrss is in kilobytes on Linux.
        return (
            ending,
            Usage(
                cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
                peakMemoryBytes: usage.ru_maxrss * 1024)
        )
    }
}

/// A one-way channel whose two ends are close-on-exec from the start (a Unix socket pair:
/// `pipe2` is not visible to Swift, and setting the flag after `pipe` would race with a
/// spawn on another thread).
public func closeOnExecPipe() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [0, 0]
    let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    guard socketpair(AF_UNIX, kind, 0, &ends) == 0 else { throw Child.SpawnError(call: "socketpair", code: errno) }
    shutdown(ends[0], Int32(SHUT_WR))
    shutdown(ends[1], Int32(SHUT_RD))
    return (ends[0], ends[1])
}

/// Reads `descriptor` to end of file, then closes it.
public func readAll(_ descriptor: Int32) -> Data {
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

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up at run
/// time because its header hides it from Swift; without it the child inherits as before.
private func closeFrom(_ lowest: Int32, _ actions: inout posix_spawn_file_actions_t) {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
    else { return }
    _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(&actions, lowest)
}
