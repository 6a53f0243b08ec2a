import Foundation
import TestSupport
import Testing

@testable import RoundUpReports

/// The zone files are looked for before a time is formatted: without them Foundation's
/// formatter stops the process. scripts/package-test removes the real ones in a Debian root
/// and runs the binary there; these hold the look-up itself to a folder of their own.
@Suite struct ZoneDataTests {
    let london = TimeZone(identifier: "Europe/London")!

    @Test func anEmptyOrMissingFolderIsMissingData() throws {
        let folder = try TemporaryDirectory()
        #expect(ZoneData.problem(with: london, in: folder.path) == ZoneData.missing)
        #expect(ZoneData.problem(with: london, in: folder.path + "/none") == ZoneData.missing)
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
        #expect(ZoneData.problem(with: london, in: folder.path)?.hasPrefix(absent) == true)
        try FileManager.default.copyItem(atPath: system, toPath: folder.path + "/Europe/London")
        #expect(ZoneData.problem(with: london, in: folder.path) == nil)
        // The name as configured is looked for too.
        let paris = ZoneData.problem(with: london, named: "Europe/Paris", in: folder.path)
        #expect(paris?.contains("time zone 'Europe/Paris' is not in") == true, "\(paris ?? "")")
    }

    @Test func aFolderInThePlaceOfTheFileOrANameThatLeavesTheFolderIsNoZone() throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            atPath: folder.path + "/Europe/London", withIntermediateDirectories: true)
        #expect(ZoneData.problem(with: london, in: folder.path)?.contains("'Europe/London' is not in") == true)
        let escaping = ZoneData.problem(with: london, named: "../../etc/passwd", in: folder.path)
        #expect(escaping?.contains("'../../etc/passwd' is not in") == true, "\(escaping ?? "")")
    }

    @Test func thisMachinesZonesLoadAndFormat() throws {
        try #require(FileManager.default.fileExists(atPath: ZoneData.directory + "/UTC"), "no zone files here")
        #expect(ZoneData.problem(with: london) == nil)
        #expect(ZoneData.problem(with: TimeZone(identifier: "UTC")!, named: "UTC") == nil)
    }
}
