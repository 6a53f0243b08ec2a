import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

@testable import RoundUpJob

/// The hand-written report JSON says exactly what `JSONEncoder` says of the same report.
@Suite struct ReportJSONTests {
    static func sameJSON(_ a: Data, _ b: Data) throws -> Bool {
        let x = try JSONSerialization.jsonObject(with: a) as? NSObject
        let y = try JSONSerialization.jsonObject(with: b) as? NSObject
        return x != nil && x == y
    }

    static func encoded(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    @Test func everyFieldAndAwkwardTextAsJSONEncoderWritesThem() async throws {
        let token = "json-token"
        var state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        state.accounts[1].balance = 100_50
        let harness = try JobHarness(token: token)
        let config = JobHarness.quickRetries + "multiplier: 2\nweeklyCap:\n  GBP: 5.00\nminimumBalance:\n  EUR: 100.00\n"
        try await withEmulator(state) { server in
            var reports: [RunReport] = []
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
                #expect(try Self.sameJSON(report.json(), Self.encoded(report)))
            }
            let many = Data(ReportJSON.encode(reports))
            #expect(try Self.sameJSON(many, Self.encoded(reports)))
        }
    }
}
