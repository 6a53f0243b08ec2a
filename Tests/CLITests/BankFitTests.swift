import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// How the job fits the real bank and the options savers ask for: `roundTo`,
/// `accountTypes`, `nativeRoundUp`, `spending`, through the built binary against the
/// emulator.
@Suite struct BankFitTests {
    static let week = "2026-11-15"
    static let settled = londonWeek(week).start.adding(milliseconds: 3_600_000)

    func report(_ stdout: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]
        return try #require(object?["accounts"] as? [[String: Any]])
    }

    /// `roundTo: 5`: each payment to the next five units, in pounds and in yen alike; a
    /// multiple saves nothing; then the multiplier and the cap as before.
    @Test func roundingToFiveUnits() async throws {
        let home = try TemporaryDirectory()
        var bank = TestBank(token: "five")
        let gbp = bank.account("GBP", name: "Personal")
        bank.spend(gbp, 3_20, settled: Self.settled)  // 1.80
        bank.spend(gbp, 10_00, settled: Self.settled)  // a multiple: 0
        bank.spend(gbp, 12_01, settled: Self.settled)  // 2.99
        let jpy = bank.account("JPY", name: "Yen")
        bank.spend(jpy, 1203, settled: Self.settled)  // 2
        let config = try writeConfig("roundTo: 5\nmultiplier: 2\nweeklyCap:\n  GBP: 9.00\n", in: home)
        try await withEmulator(bank.state) { server in
            let result = try await roundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config, "--json"],
                environment: binaryEnvironment(home, token: "five"))
            #expect(result.status == 0, "\(result.stderr)")
            // GBP: (1.80 + 0 + 2.99) × 2 = 9.58, capped at 9.00. JPY: 2 × 2.
            #expect(await server.bank.transfers.map(\.amount.minorUnits).sorted() == [4, 9_00])
            let personal = try #require(try report(result.stdout).first { $0["currency"] as? String == "GBP" })
            #expect(personal["roundTo"] as? Int == 5)
            #expect(personal["roundUpSum"] as? String == "4.79")
            #expect(
                (personal["transactions"] as? [[String: Any]])?.compactMap { $0["roundUp"] as? String }
                    == ["1.80", "0.00", "2.99"])
            let markdown = try String(
                contentsOfFile: home.path + "/.local/state/roundup/reports/roundup-\(Self.week).md", encoding: .utf8)
            #expect(markdown.contains("- Round-up: 4.79 GBP (each payment to the next 5 GBP) × 2, capped at 9.00 GBP"))
        }
    }

    @Test func aRoundToThatIsNotAStepIsNamed() async throws {
        let home = try TemporaryDirectory()
        let path = try writeConfig("roundTo: 3\n", in: home)
        let result = try await roundup(
            ["run", "--config", path], environment: ["HOME": home.path, "STARLING_ACCESS_TOKEN": "t"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("roundTo must be 1, 2, 5 or 10, not 3"), "\(result.stderr)")
    }
}
