import Foundation
import RoundUp
import StarlingAPI
import StarlingEmulator
import TestSupport
import Testing

@testable import RoundUpJob
@testable import RoundUpOutput
@testable import RoundUpReports

/// The hand-written report JSON says exactly what `JSONEncoder` says of the same report.
@Suite struct ReportJSONTests {
    static func encoded(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// `JSONEncoder`'s output with its one difference of layout taken away: it writes an
    /// empty array or object over three lines, where `ReportJSON` writes `[]` and `{}`.
    static func encodedCompactly(_ value: some Encodable) throws -> String {
        String(decoding: try encoded(value), as: UTF8.self)
            .replacing(#/\[\n\n *\]/#, with: "[]").replacing(#/\{\n\n *\}/#, with: "{}")
    }

    @Test func everyFieldAndAwkwardTextAsJSONEncoderWritesThem() async throws {
        let token = "json-token"
        var state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        state.accounts[1].balance = 100_50
        let harness = try JobHarness(token: token)
        let config =
            JobHarness.quickRetries + "multiplier: 2\nweeklyCap:\n  GBP: 5.00\nminimumBalance:\n  EUR: 100.00\n"
        try await withEmulator(state) { server in
            var reports: [WeekReport] = []
            for dryRun in [true, false] {
                let result = await harness.run(server, endDate: "2026-11-15", dryRun: dryRun, config: config)
                reports.append(try #require(result.report))
            }
            var awkward = reports[1]
            awkward.retries = 3
            awkward.error = "a \"quoted\" \\ back/slash\ttab\nnewline \u{7} bell é 😀"
            awkward.accounts[0].transactions[0].counterParty = "Caf\u{E9} \"Le Bon\" \\ \u{1} <b>"
            awkward.accounts[0].leftOut["zzz"] = 9
            reports.append(awkward)
            // The fields that apply: a cap, a multiplier, a minimum balance, a created goal.
            #expect(reports[1].accounts.contains { $0.capApplied != nil })
            #expect(reports[1].accounts.contains { $0.heldBack != nil })
            #expect(reports[1].accounts.contains { $0.goal?.created == true })
            for report in reports {
                #expect(String(decoding: report.json(), as: UTF8.self) == (try Self.encodedCompactly(report)))
            }
            let many = Data(ReportJSON.encode(reports))
            #expect(String(decoding: many, as: UTF8.self) == (try Self.encodedCompactly(reports)))
        }
    }

    /// `full` sets every field, so a field added to a structure but not to `ReportJSON` is in
    /// `JSONEncoder`'s output and not in the hand-written one, and the bytes differ.
    @Test func everyFieldSetOrNotIsWrittenByteForByteAsJSONEncoderWritesIt() throws {
        #expect(ReportFixtures.unset(in: ReportFixtures.full) == [], "the full report leaves these unset")
        let reports = [ReportFixtures.full, ReportFixtures.bare, ReportFixtures.sparse]
        for report in reports {
            #expect(String(decoding: report.json(), as: UTF8.self) == (try Self.encodedCompactly(report)))
        }
        #expect(String(decoding: ReportJSON.encode(reports), as: UTF8.self) == (try Self.encodedCompactly(reports)))
    }
}

/// Report files: written a piece at a time, with the token removed even where it falls
/// across two pieces, and put in place only when whole.
@Suite struct ReportFileTests {
    @Test func aTokenAcrossTwoPiecesIsStillRemoved() throws {
        let directory = try TemporaryDirectory()
        let token = try #require(AccessToken("Secret-Token-123"))
        let path = directory.path + "/report.json"
        let file = try ReportFile(
            in: WriteDirectory(directory.path, sharing: .ownerOnly, create: false), name: "report.json", token: token)
        // The token starts 5 bytes before the first piece is due to be written.
        try file.append(Array(repeating: UInt8(ascii: "a"), count: ReportFile.pieceSize - 5))
        try file.append("Secret-Token-123 and again Secret-Token-123\n")
        #expect(!FileManager.default.fileExists(atPath: path), "nothing in place before the commit")
        try file.commit()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("Secret-Token-123"))
        #expect(text.hasSuffix("<redacted> and again <redacted>\n"))
        #expect(text.utf8.count == ReportFile.pieceSize - 5 + "<redacted> and again <redacted>\n".utf8.count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["report.json"])
    }

    @Test func anAbandonedFileLeavesTheOldOneInPlace() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/report.md"
        try "old".write(toFile: path, atomically: true, encoding: .utf8)
        let file = try ReportFile(
            in: WriteDirectory(directory.path, sharing: .ownerOnly, create: false), name: "report.md", token: nil)
        try file.append("new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 2)
        file.abandon()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["report.md"])
    }
}
