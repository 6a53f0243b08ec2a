import Foundation
import RoundUp
import TestSupport
import Testing

@testable import RoundUpReports
@testable import RoundUpVocabulary
@testable import RoundUpWeeklyRun

/// The zone files are looked for before a time is formatted: without them Foundation's
/// formatter stops the process. scripts/package-test removes the real ones in a Debian root
/// and runs the binary there; these hold the look-up itself to a folder of their own.
@Suite struct ZoneDataTests {
    let london = TimeZone(identifier: "Europe/London")!

    @Test func anEmptyOrMissingFolderIsMissingData() throws {
        let folder = try TemporaryDirectory()
        #expect(ZoneData.problem(with: london, in: folder.path)?.message == ZoneData.missing)
        #expect(ZoneData.problem(with: london, in: folder.path + "/none")?.message == ZoneData.missing)
        #expect(ZoneData.missing == "the time zone data is missing: install tzdata")
    }

    @Test func theZonesOwnFileIsNeededNotJustAnother() throws {
        let system = ZoneData.directory + "/Europe/London"
        try #require(FileManager.default.fileExists(atPath: system), "this machine has no \(system)")
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path + "/Europe", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ZoneData.directory + "/UTC", toPath: folder.path + "/UTC")
        // Data without this zone: a name the machine's tzdata does not have.
        let absent = "time zone 'Europe/London' is not in this machine's time zone data (\(folder.path))"
        #expect(ZoneData.problem(with: london, in: folder.path)?.message.hasPrefix(absent) == true)
        #expect(ZoneData.problem(with: london, in: folder.path)?.isTheMachines == false, "the setting's to change")
        try FileManager.default.copyItem(atPath: system, toPath: folder.path + "/Europe/London")
        #expect(ZoneData.problem(with: london, in: folder.path) == nil)
        // The name as configured is looked for too.
        let paris = ZoneData.problem(with: london, named: "Europe/Paris", in: folder.path)?.message
        #expect(paris?.contains("time zone 'Europe/Paris' is not in") == true, "\(paris ?? "")")
    }

    @Test func aFolderInThePlaceOfTheFileOrANameThatLeavesTheFolderIsNoZone() throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            atPath: folder.path + "/Europe/London", withIntermediateDirectories: true)
        let directory = ZoneData.problem(with: london, in: folder.path)?.message
        #expect(
            directory?.contains("Europe/London cannot be read (a broken link, not a file") == true, "\(directory ?? "")"
        )
        // A pipe in its place is said, not opened and waited on.
        try FileManager.default.removeItem(atPath: folder.path + "/Europe/London")
        #expect(mkfifo(folder.path + "/Europe/London", 0o600) == 0)
        #expect(ZoneData.problem(with: london, in: folder.path)?.message.contains("cannot be read") == true)
        let escaping = ZoneData.problem(with: london, named: "../../etc/passwd", in: folder.path)?.message
        #expect(escaping?.contains("'../../etc/passwd' is not in") == true, "\(escaping ?? "")")
    }

    @Test func anEmptyOrOverwrittenZoneFileIsDamaged() throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.path + "/Europe", withIntermediateDirectories: true)
        let file = folder.path + "/Europe/London"
        let whole = try Data(contentsOf: URL(fileURLWithPath: ZoneData.directory + "/Europe/London"))
        #expect(ZoneData.isCompiledZone([UInt8](whole)))
        var garbled = [UInt8](whole)
        for index in stride(from: 44, to: garbled.count, by: 7) { garbled[index] = 0xFF }
        let damaged: [Data] = [
            Data(), Data("TZif".utf8), Data(repeating: 0x41, count: 300), whole.prefix(44), whole.prefix(100),
            whole.prefix(1000), whole.dropLast(), Data("TZif2".utf8) + Data(repeating: 0, count: 400), Data(garbled),
        ]
        for contents in damaged {
            try contents.write(to: URL(fileURLWithPath: file))
            let said = ZoneData.problem(with: london, in: folder.path)?.message
            #expect(ZoneData.problem(with: london, in: folder.path)?.isTheMachines == true)
            #expect(said?.contains("the time zone file \(file) is damaged") == true, "\(said ?? "")")
        }
    }

    @Test func everyZoneFileOfThisMachineIsWholeCompiledData() throws {
        let files = try #require(FileManager.default.enumerator(atPath: ZoneData.directory))
        var checked = 0
        for case let name as String in files {
            let path = ZoneData.directory + "/" + name
            guard let bytes = FileManager.default.contents(atPath: path), bytes.starts(with: Array("TZif".utf8))
            else { continue }
            #expect(ZoneData.isCompiledZone([UInt8](bytes)), "\(name)")
            checked += 1
        }
        #expect(checked > 300, "the machine's tzdata has hundreds of zones: \(checked)")
    }

    @Test func thisMachinesZonesLoadAndFormat() throws {
        try #require(FileManager.default.fileExists(atPath: ZoneData.directory + "/UTC"), "no zone files here")
        #expect(ZoneData.problem(with: london) == nil)
        #expect(ZoneData.problem(with: TimeZone(identifier: "UTC")!, named: "UTC") == nil)
    }
}

/// A report the next run rebuilds from the ledger shows the week in the zone it was counted
/// in, whatever the zone is now.
@Suite struct LaterReportZoneTests {
    @Test func aRebuiltReportKeepsTheZoneItsWeekWasCountedIn() throws {
        let london = try #require(TimeZone(identifier: "Europe/London"))
        let auckland = try #require(TimeZone(identifier: "Pacific/Auckland"))
        let end = try #require(LocalDate(iso: "2026-11-22"))
        var entry = AccountWeek(
            accountUid: "acc00000-0000-4000-8000-000000000001", weekEnd: end, status: .done, currency: "GBP",
            minorUnits: 50)
        entry.timeZone = "Europe/London"
        let report = try LaterReports.rebuild(
            weekEnd: end, entries: [entry], zone: auckland, at: Instant(millisecondsSince1970: 1_795_000_000_000)
        ) { _, _ in ([], []) }
        #expect(report.week.timeZone.identifier == "Europe/London")
        #expect(report.week.start == Week(endingOn: end, in: london).start)
        // A ledger from before weeks kept their zone: the configured one.
        entry.timeZone = nil
        let older = try LaterReports.rebuild(
            weekEnd: end, entries: [entry], zone: auckland, at: Instant(millisecondsSince1970: 1_795_000_000_000)
        ) { _, _ in ([], []) }
        #expect(older.week.timeZone.identifier == "Pacific/Auckland")
    }
}
