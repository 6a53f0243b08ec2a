import Foundation
import RoundUp
import TestSupport
import Testing

@testable import RoundUpOutput

#if canImport(Glibc)
import Glibc
#endif

/// Files written through a held directory, without the job: whole or not at all, never
/// through a planted link, and only in a directory no one else can change.
@Suite struct WriteDirectoryTests {
    func contents(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }

    @Test func aFileIsWrittenWholeWithTheModeAskedWhateverTheUmask() throws {
        let temporary = try TemporaryDirectory()
        let directory = try WriteDirectory(temporary.path + "/reports", sharing: .ownerOnly, create: true)
        let file = try directory.create("week.json", mode: 0o600)
        try file.write("{\"schemaVersion\": 1}\n")
        // Not there under its name until committed.
        #expect(!directory.contains("week.json"))
        try file.commit()
        #expect(contents(directory.path + "/week.json") == "{\"schemaVersion\": 1}\n")
        let status = try #require(directory.status(of: "week.json"))
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(directory.names() == ["week.json"])
        // The directory it made is its owner's alone.
        var made = stat()
        #expect(stat(directory.path, &made) == 0)
        #expect(made.st_mode & 0o777 == 0o700)
    }

    @Test func aLinkPlantedAtTheNameIsReplacedNeverWrittenThrough() throws {
        let temporary = try TemporaryDirectory()
        let victim = temporary.path + "/victim"
        try "keep me".write(toFile: victim, atomically: false, encoding: .utf8)
        let directory = try WriteDirectory(temporary.path + "/reports", sharing: .ownerOnly, create: true)
        #expect(symlink(victim, directory.path + "/week.md") == 0)
        let file = try directory.create("week.md", mode: 0o600)
        try file.write("the report")
        try file.commit()
        #expect(contents(victim) == "keep me")
        let status = try #require(directory.status(of: "week.md"))
        #expect(status.st_mode & S_IFMT == S_IFREG)
        #expect(contents(directory.path + "/week.md") == "the report")
    }

    @Test func anAbandonedFileLeavesWhatWasThereAndNoTemporaryName() throws {
        let temporary = try TemporaryDirectory()
        let directory = try WriteDirectory(temporary.path, sharing: .ownerOnly, create: false)
        try "before".write(toFile: temporary.path + "/savings.svg", atomically: false, encoding: .utf8)
        let file = try directory.create("savings.svg", mode: 0o644)
        try file.write("half a pict")
        file.abandon()
        #expect(contents(temporary.path + "/savings.svg") == "before")
        #expect(directory.names() == ["savings.svg"])
    }

    @Test func aDirectoryOthersCanWriteToIsRefusedSayingHowToFixIt() throws {
        let temporary = try TemporaryDirectory()
        let shared = temporary.path + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        #expect(chmod(shared, 0o777) == 0)
        do {
            _ = try WriteDirectory(shared, sharing: .ownerOnly, create: false)
            Issue.record("a directory anyone can write to was taken")
        } catch {
            #expect(error.kind == .refused)
            #expect(error.description.contains("can be written by others (mode 777)"))
            #expect(error.description.contains("chmod 700 \(shared)"))
        }
        // A directory shared on purpose (a textfile collector's) is taken.
        _ = try WriteDirectory(shared, sharing: .shared, create: false)
    }

    @Test func aDirectoryThatIsNotThereIsUnwritableUnlessCreated() throws {
        let temporary = try TemporaryDirectory()
        do {
            _ = try WriteDirectory(temporary.path + "/missing", sharing: .ownerOnly, create: false)
            Issue.record("a missing directory was opened")
        } catch {
            #expect(error.kind == .unwritable)
            #expect(error.description == "cannot open \(temporary.path)/missing: No such file or directory")
        }
    }

    @Test func leftoversAnHourOldAreRemovedAndFreshOnesKept() throws {
        let temporary = try TemporaryDirectory()
        let directory = try WriteDirectory(temporary.path, sharing: .ownerOnly, create: false)
        let old = temporary.path + "/.week.json.1a2b.partial"
        let fresh = temporary.path + "/.week.json.3c4d.partial"
        let kept = temporary.path + "/.hidden"
        for path in [old, fresh, kept] { try "x".write(toFile: path, atomically: false, encoding: .utf8) }
        let now = Instant.now
        let twoHoursAgo = Date(timeIntervalSince1970: Double(now.millisecondsSince1970) / 1000 - 7200)
        try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: old)
        try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: kept)
        directory.removeLeftovers(now: now)
        #expect(directory.names().sorted() == [".hidden", ".week.json.3c4d.partial"])
    }
}
