import Foundation
import TestSupport
import Testing

@testable import RoundUpOutput

#if canImport(Glibc)
import Glibc
#endif

/// A file the job trusts (its config, its token file) is read only when no one else could
/// have written it, only when it is a plain file, and only up to a limit; errors are told in
/// a person's words.
@Suite struct TrustedFileTests {
    @Test func aFileOnlyItsOwnerCanWriteIsReadWhole() throws {
        let temporary = try TemporaryDirectory()
        let path = temporary.path + "/config.yaml"
        try "payday: 25\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, 0o600) == 0)
        let read = TrustedFile.read("the config file", at: path, limit: 64)
        #expect((try? read.get()) == Array("payday: 25\n".utf8))
    }

    @Test func aFileAnyoneCanWriteIsRefusedSayingHowToFixIt() throws {
        let temporary = try TemporaryDirectory()
        let path = temporary.path + "/config.yaml"
        try "apiBaseURL: http://elsewhere\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, 0o666) == 0)
        guard case .failure(.refused(let why)) = TrustedFile.read("the config file", at: path, limit: 64) else {
            Issue.record("a file anyone can write was trusted")
            return
        }
        #expect(
            why
                == "the config file \(path) can be written by anyone (mode 666), who could rewrite it; run: chmod go-w \(path)"
        )
    }

    @Test func onlyAPlainFileOfAtMostTheLimitIsRead() throws {
        let temporary = try TemporaryDirectory()
        let fifo = temporary.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opened without waiting for a writer, and refused.
        guard case .failure(.notPlain) = TrustedFile.read("the token file", at: fifo, limit: 64) else {
            Issue.record("a FIFO was read")
            return
        }
        guard case .failure(.notPlain) = TrustedFile.read("the token file", at: temporary.path, limit: 64) else {
            Issue.record("a directory was read")
            return
        }
        let large = temporary.path + "/large"
        try String(repeating: "x", count: 65).write(toFile: large, atomically: false, encoding: .utf8)
        guard case .failure(.tooLarge(65)) = TrustedFile.read("the token file", at: large, limit: 64) else {
            Issue.record("a file over the limit was read")
            return
        }
        guard case .failure(.unopenable) = TrustedFile.read("the token file", at: temporary.path + "/none", limit: 64)
        else {
            Issue.record("a missing file was read")
            return
        }
    }

    @Test func aPlaceAnyoneCanRenameThingsInIsNoPlaceToWrite() throws {
        let temporary = try TemporaryDirectory()
        let open = temporary.path + "/open"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
        #expect(chmod(open, 0o777) == 0)
        let problem = try #require(SafePath.problem(with: open + "/state"))
        #expect(problem.contains("\(open) can be written by anyone (mode 777)"))
        // A sticky directory, as /tmp is, lets no one move what is not theirs.
        #expect(chmod(open, 0o1777) == 0)
        #expect(SafePath.problem(with: open + "/state") == nil)
        #expect(SafePath.problem(with: temporary.path + "/state") == nil)
    }

    @Test func anErrorIsTheSystemsReasonWithTheFileItConcerns() throws {
        let temporary = try TemporaryDirectory()
        let missing = temporary.path + "/missing.yaml"
        do {
            _ = try String(contentsOfFile: missing, encoding: .utf8)
            Issue.record("a missing file was read")
        } catch {
            #expect(plainDescription(error) == "No such file or directory: \(missing)")
        }
        #expect(plainDescription(NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))) == "No space left on device")
    }

    @Test func everyByteIsWrittenThroughAPipe() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let text = String(repeating: "round-up ", count: 1000)
        #expect(writeAll(ends[1], text) == nil)
        close(ends[1])
        var read: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = Glibc.read(ends[0], &buffer, buffer.count)
            guard count > 0 else { break }
            read += buffer[..<count]
        }
        #expect(String(decoding: read, as: UTF8.self) == text)
        // A closed descriptor says why it could not be written.
        #expect(writeAll(ends[1], "more") == EBADF)
    }
}
