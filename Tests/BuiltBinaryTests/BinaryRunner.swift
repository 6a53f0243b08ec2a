import ChildProcess
import Foundation
import GRDB
import TestSupport
import Testing

/// The built `roundup` executable, found beside the test bundle (SwiftPM puts products
/// and test bundles in the same directory), or at `ROUNDUP_BINARY`.
let roundupBinary: String? = {
    if let path = ProcessInfo.processInfo.environment["ROUNDUP_BINARY"] { return path }
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent("roundup").path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isExecutableFile(atPath: candidate)
        {
            return candidate
        }
        directory.deleteLastPathComponent()
    }
    return nil
}()

/// The environment the binary runs with in most tests: a home of its own, a plain PATH,
/// and the token.
func binaryEnvironment(_ home: TemporaryDirectory, token: String) -> [String: String] {
    ["HOME": home.path, "PATH": "/usr/bin:/bin", "STARLING_ACCESS_TOKEN": token]
}

/// `environment` with no need to keep to the real bank's pace against the emulator on this
/// machine, unless it names `ROUNDUP_MAX_REQUESTS_PER_SECOND` itself (empty: the default).
func unpaced(_ environment: [String: String]) -> [String: String] {
    environment.merging(["ROUNDUP_MAX_REQUESTS_PER_SECOND": "1000"]) { given, _ in given }
}

/// Writes `text` as `config.yaml` in `home`; returns its path.
func writeConfig(_ text: String, in home: TemporaryDirectory) throws -> String {
    let path = home.path + "/config.yaml"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// Writes the default config of `home` (`~/.config/roundup/config.yaml`) so that a run may
/// send again at once a transfer an earlier run left unanswered, as if the feed had had its
/// `feedSettleMinutes` to show it: for tests whose "next run" comes straight after.
func settledFeeds(in home: TemporaryDirectory, also extra: String = "") throws {
    let directory = home.path + "/.config/roundup"
    try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let path = directory + "/config.yaml"
    try ("feedSettleMinutes: 0\n" + extra).write(toFile: path, atomically: true, encoding: .utf8)
    chmod(path, 0o600)
}

struct Execution {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the binary with `arguments` and exactly `environment`, no standard input.
///
/// Waiting for the process and reading its pipes block, so they happen on a dispatch
/// thread: blocking Swift's cooperative pool would starve the in-process emulator that
/// the binary is talking to.
func roundup(_ arguments: [String], environment: [String: String]) async throws -> Execution {
    let binary = try #require(roundupBinary, "the roundup binary was not built beside the tests")
    return try await run(binary, arguments, environment: unpaced(environment))
}

/// Runs `executable` with `arguments` and exactly `environment`, no standard input.
func run(_ executable: String, _ arguments: [String], environment: [String: String]) async throws -> Execution {
    try await gated { try await recorded(executable, arguments, environment: environment) }
}

/// `run`, recorded in the transcript when `ROUNDUP_TRANSCRIPT` asks for it.
private func recorded(_ executable: String, _ arguments: [String], environment: [String: String]) async throws
    -> Execution
{
    guard let transcript = Transcript.shared, let binary = roundupBinary,
        executable == binary || arguments.contains(where: { $0.contains(binary) })
            || environment.values.contains(binary)
    else {
        return try await runUnrecorded(executable, arguments, environment: environment)
    }
    let entry = transcript.begin()
    let execution = try await runUnrecorded(executable, arguments, environment: environment)
    transcript.record(entry, executable: executable, arguments: arguments, execution)
    return execution
}

private func runUnrecorded(_ executable: String, _ arguments: [String], environment: [String: String])
    async throws -> Execution
{
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            do {
                let out = try closeOnExecPipe()
                let err = try closeOnExecPipe()
                let child: Child
                do {
                    child = try Child.spawn(
                        executable, arguments, environment: environment, stdout: out.write, stderr: err.write)
                } catch {
                    for end in [out.read, out.write, err.read, err.write] { close(end) }
                    throw error
                }
                close(out.write)
                close(err.write)
                let errData = DataBox()
                let group = DispatchGroup()
                group.enter()
                DispatchQueue.global().async {
                    errData.data = readAll(err.read)
                    group.leave()
                }
                let outData = readAll(out.read)
                group.wait()
                let ending = child.wait()
                continuation.resume(
                    returning: Execution(
                        status: ending.status, stdout: String(decoding: outData, as: UTF8.self),
                        stderr: String(decoding: errData.data, as: UTF8.self)))
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

/// Waits for `child` to end on a thread of its own: waiting on one of Swift's cooperative
/// threads would starve the in-process emulator that the child may still be talking to.
func ending(of child: Child) async -> Child.Ending {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: child.wait()) }
    }
}

/// With `ROUNDUP_TRANSCRIPT` naming a directory, as `scripts/compare-builds` sets it, every
/// process `run` starts that runs the binary (itself, or a shell or `script` given its path)
/// is appended to `transcript-<pid>.jsonl` there, one JSON object a line: the test and its
/// case, the call's number within them, the executable, the arguments, the exit status,
/// stdout and stderr. Unset, nothing is recorded and `run` is as it was; set, only that file
/// is written. Processes the tests start with `Child.spawn` themselves are not recorded.
private final class Transcript: @unchecked Sendable {
    static let shared: Transcript? = ProcessInfo.processInfo.environment["ROUNDUP_TRANSCRIPT"].map {
        Transcript(file: $0 + "/transcript-\(getpid()).jsonl")
    }

    struct Entry {
        var test: String
        var testCase: String?
        var sequence: Int
    }

    let file: String
    /// Guards `calls` and the file, which tests running side by side share.
    let lock = NSLock()
    var calls: [String: Int] = [:]

    init(file: String) { self.file = file }

    /// Numbers a call as it starts, so that a test's calls one after another keep their order.
    func begin() -> Entry {
        let test = Test.current.map { "\($0.id)" } ?? "(no test)"
        let testCase = Self.caseArguments()
        let key = test + "\u{0}" + (testCase ?? "")
        let sequence = lock.withLock {
            calls[key, default: 0] += 1
            return calls[key]!
        }
        return Entry(test: test, testCase: testCase, sequence: sequence)
    }

    func record(_ entry: Entry, executable: String, arguments: [String], _ execution: Execution) {
        var fields: [String: Any] = [
            "test": entry.test, "sequence": entry.sequence, "executable": executable, "arguments": arguments,
            "status": Int(execution.status), "stdout": execution.stdout, "stderr": execution.stderr,
        ]
        fields["case"] = entry.testCase
        guard var line = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return }
        line.append(0x0A)
        lock.withLock {
            let descriptor = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { return }
            _ = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
    }

    /// The arguments of the running case of a parameterized test, which tell its cases apart
    /// (they run side by side). `Test.Case` keeps them internal, so they are found by
    /// reflection (a value labelled `arguments`, however deep); should that find nothing,
    /// the case is `?`, and its calls are told apart by number only.
    static func caseArguments() -> String? {
        guard let testCase = Test.Case.current, testCase.isParameterized else { return nil }
        func find(_ label: String, in value: Any, depth: Int) -> Any? {
            for child in Mirror(reflecting: value).children {
                if child.label == label { return child.value }
                if depth > 0, let found = find(label, in: child.value, depth: depth - 1) { return found }
            }
            return nil
        }
        guard let arguments = find("arguments", in: testCase, depth: 3) else { return "?" }
        return Mirror(reflecting: arguments).children.map { argument in
            find("value", in: argument.value, depth: 0).map { String(describing: $0) } ?? "?"
        }.joined(separator: ", ")
    }
}

/// Written by one thread before `DispatchGroup.leave()`, read by another after `wait()`:
/// the group orders the two, which is why `@unchecked Sendable` is sound here.
private final class DataBox: @unchecked Sendable {
    var data = Data()
}

/// One line for `scripts/robustness`: a case thrown at the binary, what it did, and whether
/// money moved exactly once (or not at all, where nothing was to move).
func robustnessLine(_ name: String, _ outcome: String, moneyExactlyOnce: Bool) {
    print("case: \(name): \(outcome); money moved exactly once: \(moneyExactlyOnce ? "yes" : "NO")")
}

/// Whether the process `pid` has the file at `path` open, as its descriptors in /proc show.
func holdsOpen(_ pid: pid_t, _ path: String) -> Bool {
    let wanted = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    let descriptors = "/proc/\(pid)/fd"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []
    return names.contains {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + $0)) == wanted
    }
}

/// How many account-weeks the ledger in `stateDirectory` holds as done, read without
/// writing to it; 0 while there is no ledger to read.
func weeksDone(in stateDirectory: String) -> Int {
    var configuration = Configuration()
    configuration.readonly = true
    guard let ledger = try? DatabaseQueue(path: stateDirectory + "/ledger.sqlite", configuration: configuration)
    else { return 0 }
    return (try? ledger.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM week WHERE status = 'done'") }) ?? 0
}
