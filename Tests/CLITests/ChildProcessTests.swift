import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// How the tests start processes.
@Suite struct ChildProcessTests {
    /// A descriptor this process has open, without close-on-exec, is not the child's: a
    /// file another test is writing could otherwise not be executed while the child lives.
    @Test func aChildInheritsOnlyItsStandardStreams() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/open-for-writing"
        let descriptor = open(path, O_WRONLY | O_CREAT, 0o600)
        try #require(descriptor > 2)
        defer { close(descriptor) }
        let result = try await run(
            "/bin/sh", ["-c", "if [ -e /proc/$$/fd/\(descriptor) ]; then echo inherited; else echo closed; fi"],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.stdout == "closed\n")
    }
}
