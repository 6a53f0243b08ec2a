import Foundation
import JobTestSupport
import RoundUp
import StarlingAPI
import StarlingEmulator
import TestSupport
import Testing

@testable import RoundUpOutput
@testable import RoundUpReports

/// The report's JSON, written by hand by its one writer, reads back as the values it was
/// written from, follows the schema, and gives every stored field of the report a key.
@Suite struct ReportJSONTests {
    static func parsed(_ bytes: some Sequence<UInt8>) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(bytes))
    }

    static func schema() throws -> JSONSchema {
        try JSONSchema(file: repositoryRoot.appendingPathComponent("schema/report-v1.schema.json").path)
    }

    @Test func everyFieldAndAwkwardTextReadsBackAsItWasSet() async throws {
        let token = "json-token"
        var state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        state.accounts[1].balance = 100_50
        let harness = try JobHarness(token: token)
        let config =
            JobHarness.quickRetries + "multiplier: 2\nweeklyCap:\n  GBP: 5.00\nminimumBalance:\n  EUR: 100.00\n"
        let schema = try Self.schema()
        try await withEmulator(state) { server in
            var reports: [WeekReport] = []
            for dryRun in [true, false] {
                let result = await harness.run(server, endDate: "2026-11-15", dryRun: dryRun, config: config)
                reports.append(try #require(result.report))
            }
            var awkward = reports[1]
            awkward.retries = 3
            let error = "a \"quoted\" \\ back/slash\ttab\nnewline \u{7} bell é 😀"
            let name = "Caf\u{E9} \"Le Bon\" \\ \u{1} <b>"
            awkward.error = error
            awkward.accounts[0].transactions[0].counterPartyName = name
            awkward.accounts[0].leftOut["zzz"] = 9
            reports.append(awkward)
            // The fields that apply: a cap, a multiplier, a minimum balance, a created goal.
            #expect(reports[1].accounts.contains { $0.capApplied != nil })
            #expect(reports[1].accounts.contains { $0.heldBack != nil })
            #expect(reports[1].accounts.contains { $0.goal?.created == true })
            for (index, report) in reports.enumerated() {
                // The awkward one's made-up reason for leaving a payment out is no schema's.
                if index < 2 { #expect(schema.problems(inJSON: String(decoding: report.json(), as: UTF8.self)) == []) }
                let run = try #require(try Self.parsed(report.json()) as? [String: Any])
                let accounts = try #require(run["accounts"] as? [[String: Any]])
                #expect(accounts.map { $0["accountUid"] as? String } == report.accounts.map(\.accountUid))
                for (written, account) in zip(accounts, report.accounts) {
                    #expect(written["total"] as? String == account.total?.formattedAmount)
                    let transactions = try #require(written["transactions"] as? [[String: Any]])
                    #expect(
                        transactions.map { $0["roundUp"] as? String }
                            == account.transactions.map(\.roundUp.formattedAmount))
                    #expect(
                        transactions.map { $0["feedItemUid"] as? String } == account.transactions.map(\.uid))
                }
            }
            // Text is kept exactly, whatever it holds; JSON escapes it.
            let run = try #require(try Self.parsed(awkward.json()) as? [String: Any])
            #expect(run["error"] as? String == error && run["retries"] as? Int == 3)
            let first = try #require((run["accounts"] as? [[String: Any]])?.first)
            #expect(((first["transactions"] as? [[String: Any]])?.first?["counterParty"]) as? String == name)
            #expect((first["leftOut"] as? [String: Any])?["zzz"] as? Int == 9)
            // Several reports (a catch-up's) are an array of the same objects.
            let many = try #require(try Self.parsed(ReportJSON.encode(reports)) as? [Any])
            #expect(many.count == 3)
            for (one, report) in zip(many, reports) {
                #expect((one as? NSDictionary) == (try Self.parsed(report.json()) as? NSDictionary))
            }
        }
    }

    /// A field added to a report's structure but not to the writer has no key: `full` sets
    /// every field, and each stored field of each structure is a key of the object it is
    /// written as, by its own name or by the name the writer gives it (`renamed`).
    @Test func everyStoredFieldOfTheReportIsWritten() throws {
        let report = ReportFixtures.fullWithLegs
        #expect(ReportFixtures.unset(in: report) == ["report.accounts[1].legs"], "the full report leaves these unset")
        let run = try #require(try Self.parsed(report.json()) as? [String: Any])
        let account = try #require((run["accounts"] as? [[String: Any]])?.first)
        let value = report.accounts[0]
        let written: [(Any, [String: Any]?)] = [
            (report, run), (value, account),
            (value.transactions[0], (account["transactions"] as? [[String: Any]])?.first),
            (
                try #require(value.leftOutTransactions?.first),
                (account["leftOutTransactions"] as? [[String: Any]])?.first
            ),
            (try #require(value.goal), account["goal"] as? [String: Any]),
            (try #require(value.window), account["window"] as? [String: Any]),
            (try #require(value.forecast), account["forecast"] as? [String: Any]),
            (value.legs[0], (account["legs"] as? [[String: Any]])?.first),
            (value.legs[0].goal, ((account["legs"] as? [[String: Any]])?.first?["goal"]) as? [String: Any]),
        ]
        let renamed = [
            "WindowReport": ["start": "startUTC", "end": "endUTC"],
            "CountedTransaction": ["uid": "feedItemUid", "counterPartyName": "counterParty"],
        ]
        for (value, object) in written {
            let type = "\(Swift.type(of: value))"
            let object = try #require(object, "\(type) is written")
            let fields = Mirror(reflecting: value).children.compactMap(\.label)
            #expect(!fields.isEmpty, "\(type)")
            let missing = fields.filter { object[renamed[type]?[$0] ?? $0] == nil }
            #expect(missing == [], "\(type) has fields the JSON does not write")
        }
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
