import ChildProcess
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// How the tests and the benchmark start processes: exactly the environment given, no
/// standard input, nothing else of this process inherited, and the child's ending and use
/// of the machine told.
@Suite struct ChildProcessTests {
    /// Runs `script` under /bin/sh and returns what it printed and how it ended.
    func shell(_ script: String, environment: [String: String] = ["PATH": "/usr/bin:/bin"]) throws
        -> (stdout: String, stderr: String, ending: Child.Ending, usage: Child.Usage)
    {
        let out = try closeOnExecPipe()
        let err = try closeOnExecPipe()
        let child = try Child.spawn(
            "/bin/sh", ["-c", script], environment: environment, stdout: out.write, stderr: err.write)
        close(out.write)
        close(err.write)
        let stdout = readAll(out.read)
        let stderr = readAll(err.read)
        let (ending, usage) = child.waitWithUsage()
        return (String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self), ending, usage)
    }

    /// A descriptor this process has open, without close-on-exec, is not the child's: a
    /// file another test is writing could otherwise not be executed while the child lives.
    @Test func aChildInheritsOnlyItsStandardStreams() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/open-for-writing"
        let descriptor = open(path, O_WRONLY | O_CREAT, 0o600)
        try #require(descriptor > 2)
        defer { close(descriptor) }
        let result = try shell("if [ -e /proc/$$/fd/\(descriptor) ]; then echo inherited; else echo closed; fi")
        #expect(result.stdout == "closed\n")
    }

    @Test func aChildGetsExactlyTheEnvironmentGivenAndNoInput() throws {
        let result = try shell(
            "env; read line && echo \"read: $line\" || echo 'no input'",
            environment: ["PATH": "/usr/bin:/bin", "ROUNDUP_CONFIG": "/etc/roundup/config.yaml"])
        var lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.popLast() == "no input")
        // What the shell itself sets (its working directory, its level) is not the parent's.
        let given = lines.filter { !$0.hasPrefix("PWD=") && !$0.hasPrefix("OLDPWD=") && !$0.hasPrefix("SHLVL=") }
        #expect(given.sorted() == ["PATH=/usr/bin:/bin", "ROUNDUP_CONFIG=/etc/roundup/config.yaml"])
    }

    @Test func howAChildEndedIsToldAsAShellTellsIt() throws {
        let failed = try shell("echo 'no bank' >&2; exit 69")
        #expect(failed.ending == .exit(69))
        #expect(failed.ending.status == 69)
        #expect(failed.stderr == "no bank\n")
        let killed = try shell("kill -TERM $$")
        #expect(killed.ending == .signal(SIGTERM))
        #expect(killed.ending.status == 128 + SIGTERM)
        #expect(killed.ending.description == "by signal \(SIGTERM)")
    }

    @Test func aChildsUseOfTheMachineIsMeasured() throws {
        let busy = try shell("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo $i")
        #expect(busy.stdout == "200000\n")
        #expect(busy.usage.cpuSeconds > 0)
        #expect(busy.usage.peakMemoryBytes > 0)
    }

    @Test func aProgramThatCannotBeStartedIsNamed() {
        do {
            _ = try Child.spawn("/nonexistent/roundup", [], environment: [:], stdout: 1, stderr: 2)
            Issue.record("a missing program was started")
        } catch {
            #expect(error.description == "posix_spawn /nonexistent/roundup failed: No such file or directory")
        }
    }
}
