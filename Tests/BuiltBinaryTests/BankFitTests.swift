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
        var bank = TestBank(token: "round-to-five-token")
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
                environment: binaryEnvironment(home, token: "round-to-five-token"))
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
            #expect(markdown.contains("- Each payment is rounded up to the next 5 GBP."))
            #expect(
                markdown.contains(
                    "- The round-ups add up to 4.79 GBP; the multiplier of 2 makes that 9.58 GBP; "
                        + "the weekly cap cuts it to 9.00 GBP: **9.00 GBP** moved."))
        }
    }

    /// Loans and fixed-term deposits are left alone by default: no request about them, no
    /// goal in them; the dry run, the real run, its report and `check` list them as skipped.
    @Test func onlyPrimaryAndAdditionalAccountsByDefault() async throws {
        let home = try TemporaryDirectory()
        var bank = TestBank(token: "account-types-token")
        let personal = bank.account("GBP", name: "Personal")
        let joint = bank.account("GBP", name: "Joint", type: "ADDITIONAL")
        let loan = bank.account("GBP", name: "Loan", type: "LOAN")
        let deposit = bank.account("GBP", name: "Fixed", type: "FIXED_TERM_DEPOSIT")
        for account in [personal, joint, loan, deposit] { bank.spend(account, 4_35, settled: Self.settled) }
        let environment = binaryEnvironment(home, token: "account-types-token")
        try await withEmulator(bank.state) { server in
            let arguments = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL]
            let dry = try await roundup(arguments + ["--dry-run"], environment: environment)
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(
                dry.stdout.contains("skipped: a LOAN account; accountTypes is PRIMARY, ADDITIONAL"), "\(dry.stdout)")
            #expect(summaryRow(dry.stdout, "Fixed (GBP)")?.last == "skipped")

            let result = try await roundup(arguments + ["--json"], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            let transfers = await server.bank.transfers
            #expect(Set(transfers.map(\.accountUid)) == [personal, joint])
            let goals = await server.bank.state.goals
            #expect(goals[loan] == nil && goals[deposit] == nil, "no goal is made in a loan or a deposit")
            let paths = await server.bank.requests.map(\.path)
            #expect(!paths.contains { $0.contains(loan) || $0.contains(deposit) }, "nothing is asked about them")
            let accounts = try report(result.stdout)
            let skipped = accounts.filter { $0["status"] as? String == "skipped" }
            #expect(skipped.compactMap { $0["accountType"] as? String } == ["LOAN", "FIXED_TERM_DEPOSIT"])
            #expect(skipped.allSatisfy { $0["exitCode"] as? Int == 0 })

            let check = try await roundup(["check", "--api-base-url", server.baseURL], environment: environment)
            #expect(check.stdout.contains("ok    Loan (GBP): skipped: a LOAN account"), "\(check.stdout)")

            // Chosen types: the loan too, from the next week on.
            let config = try writeConfig("accountTypes: [PRIMARY, LOAN]\n", in: home)
            let next = try await roundup(
                ["run", "--end-date", "2026-11-22", "--api-base-url", server.baseURL, "--config", config, "--json"],
                environment: environment)
            #expect(next.status == 0, "\(next.stderr)")
            let statuses = try report(next.stdout).map { "\($0["name"] ?? "") \($0["status"] ?? "")" }
            #expect(statuses == ["Personal nothing to do", "Joint skipped", "Loan nothing to do", "Fixed skipped"])
        }
    }

    /// With Starling's own round-up on, the account is skipped in dry and real runs alike
    /// (`nativeRoundUp: skip`, the default), with a warning; a 404 from that endpoint
    /// means it was never set up. `allow` goes on, still leaving out what the bank rounded up.
    @Test func theBanksOwnRoundUpSkipsTheAccountUnlessAllowed() async throws {
        let home = try TemporaryDirectory()
        var bank = TestBank(token: "native-round-up-token")
        let on = bank.account("GBP", name: "Native on", nativeRoundUp: true)
        let off = bank.account("GBP", name: "Native off", nativeRoundUp: false)
        let never = bank.account("GBP", name: "Never set up")
        for account in [on, off, never] { bank.spend(account, 4_35, settled: Self.settled) }
        bank.spend(on, 2_50, settled: Self.settled) {
            $0.roundUp = .init(goalCategoryUid: "c0000000-0000-4000-8000-000000000001", amount: .init("GBP", 50))
        }
        let environment = binaryEnvironment(home, token: "native-round-up-token")
        try await withEmulator(bank.state) { server in
            let arguments = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL]
            let dry = try await roundup(arguments + ["--dry-run"], environment: environment)
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(summaryRow(dry.stdout, "Native on (GBP)")?.last == "skipped")
            #expect(dry.stdout.contains("Starling's own round-up is on for this account"), "\(dry.stdout)")

            let result = try await roundup(arguments + ["--json"], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("Native on (GBP): skipped: Starling's own round-up is on"))
            #expect(Set(await server.bank.transfers.map(\.accountUid)) == [off, never])
            #expect(await server.bank.state.goals[on] == nil)
            let states = try report(result.stdout).map { "\($0["status"] ?? "") \($0["nativeRoundUp"] ?? "")" }
            #expect(states == ["skipped active", "transferred inactive", "transferred inactive"], "\(result.stdout)")
            let markdown = try String(
                contentsOfFile: home.path + "/.local/state/roundup/reports/roundup-\(Self.week).md", encoding: .utf8)
            #expect(markdown.contains("Starling's own round-up is on for this account"))

            let check = try await roundup(["check", "--api-base-url", server.baseURL], environment: environment)
            #expect(check.stdout.contains("WARN  Native on (GBP): Starling's own round-up is on, so runs skip"))
            #expect(check.stdout.contains("Starling's own round-up: off"), "\(check.stdout)")

            let config = try writeConfig("nativeRoundUp: allow\n", in: home)
            let allowed = try await roundup(arguments + ["--config", config, "--json"], environment: environment)
            #expect(allowed.status == 0, "\(allowed.stderr)")
            let moved = await server.bank.transfers.filter { $0.accountUid == on }
            #expect(moved.map(\.amount.minorUnits) == [65], "the payment the bank rounded up is left out")
            let account = try #require(try report(allowed.stdout).first)
            #expect(account["leftOut"] as? [String: Int] == ["rounded-up-by-bank": 1])
        }
    }

    /// `spending: cards`: card payments only, not cash from an ATM, debits, transfers, fees.
    @Test func aCardOnlyWeek() async throws {
        let home = try TemporaryDirectory()
        var bank = TestBank(token: "card-only-token")
        let gbp = bank.account("GBP", name: "Personal")
        bank.spend(gbp, 3_20, settled: Self.settled) { $0.sourceSubType = "CONTACTLESS" }  // 0.80
        bank.spend(gbp, 12_49, settled: Self.settled) { $0.sourceSubType = "ONLINE" }  // 0.51
        bank.spend(gbp, 20_01, settled: Self.settled) { $0.sourceSubType = "ATM" }  // cash: 0.99
        let others = ["DIRECT_DEBIT", "FASTER_PAYMENTS_OUT", "CARD_FEE_CHARGE", "LOAN_REPAYMENT"]
        for (index, source) in others.enumerated() {
            bank.spend(gbp, 10_90 + Int64(index), settled: Self.settled) {  // 0.10, 0.09, 0.08, 0.07
                $0.source = source
                $0.sourceSubType = nil
            }
        }
        let environment = binaryEnvironment(home, token: "card-only-token")
        try await withEmulator(bank.state) { server in
            let arguments = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--json", "--dry-run"]
            let all = try await roundup(arguments, environment: environment)
            #expect(try report(all.stdout).first?["total"] as? String == "2.64", "spending: all counts every payment")

            let config = try writeConfig("spending: cards\n", in: home)
            let cards = try await roundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--json", "--config", config],
                environment: environment)
            #expect(cards.status == 0, "\(cards.stderr)")
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [1_31])
            let account = try #require(try report(cards.stdout).first)
            #expect(account["leftOut"] as? [String: Int] == ["not-a-card-payment": 5])
        }
    }

    /// Ten accounts against a bank that refuses more than 5 requests a second: at the
    /// default pace no request is refused and no second holds more than 5; without the
    /// pace the same bank refuses requests, and the run still ends right by waiting.
    @Test func tenAccountsNeverAboveTheRate() async throws {
        let home = try TemporaryDirectory()
        var bank = TestBank(token: "rate-limit-token")
        for index in 1...10 { bank.spend(bank.account("GBP", name: "Account \(index)"), 4_35, settled: Self.settled) }
        let limited = EmulatorBehaviour(rateLimit: RateLimit(perSecond: 5, perDay: 100_000))
        var environment = binaryEnvironment(home, token: "rate-limit-token")
        environment["ROUNDUP_MAX_REQUESTS_PER_SECOND"] = ""  // the default, 5
        try await withEmulator(bank.state, behaviour: limited) { server in
            let result = try await roundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--json"], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(await server.bank.transfers.count == 10)
            let requests = await server.bank.requests
            #expect(requests.allSatisfy { $0.status != 429 }, "no request was refused")
            #expect(Self.busiestSecond(requests) <= 5)
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect(object?["requests"] as? Int == requests.count, "the report counts every request")
        }
        // Unpaced, the same bank refuses requests: the test would see it.
        try await withEmulator(bank.state, behaviour: limited) { server in
            let config = try writeConfig("retryAttempts: 1\n", in: home)
            let result = try await roundup(
                ["run", "--dry-run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config],
                environment: binaryEnvironment(home, token: "rate-limit-token"))
            #expect(result.status == 75, "\(result.stderr)")
            #expect(await server.bank.requests.contains { $0.status == 429 }, "without the pace, the bank refuses")
        }
    }

    /// The most requests that arrived within one second of each other.
    static func busiestSecond(_ requests: [RecordedRequest]) -> Int {
        let times = requests.map(\.arrived.millisecondsSince1970).sorted()
        var busiest = 0
        var first = 0
        for last in times.indices {
            while times[last] - times[first] >= 1000 { first += 1 }
            busiest = max(busiest, last - first + 1)
        }
        return busiest
    }

    /// A catch-up stops at a week boundary before the day's requests would pass 80 % of
    /// `maxRequestsPerDay`, says so, and the next run continues: every week moves once.
    @Test func aCatchUpStopsAtTheDailyBudget() async throws {
        let home = try TemporaryDirectory()
        var bank = TestBank(token: "daily-budget-token")
        let gbp = bank.account("GBP", name: "Personal")
        bank.goal(gbp, name: "Round-ups", uid: "90c00000-0000-4000-8000-0000000000d1")
        let ends = ["2026-10-04", "2026-10-11", "2026-10-18", "2026-10-25", "2026-11-01", "2026-11-08", Self.week]
        for end in ends { bank.spend(gbp, 4_35, settled: londonWeek(end).start.adding(milliseconds: 3_600_000)) }
        let environment = binaryEnvironment(home, token: "daily-budget-token")
        try await withEmulator(bank.state) { server in
            let base = ["run", "--api-base-url", server.baseURL, "--json"]
            let first = try await roundup(base + ["--end-date", ends[0]], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            let perWeek = try #require(
                (try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])?["requests"] as? Int
            )
            // A catch-up asks for the accounts, the bank's own round-up, the goals, the standing
            // orders, the direct debits and the goal's recurring transfer once per run: its
            // later weeks cost six requests less than its first.
            let later = perWeek - 6
            // Room under 80 % for some of the weeks, not all: each week is taken to cost what
            // the one before it did (the first, what the first run's did).
            let threshold = 3 * perWeek
            var expected: [Int] = []
            var (spent, last) = (perWeek, perWeek)
            while expected.count < ends.count - 1, spent + last <= threshold {
                let cost = expected.isEmpty ? perWeek : later
                expected.append(cost)
                (spent, last) = (spent + cost, cost)
            }
            try #require(expected.count >= 2 && expected.count < ends.count - 1)
            let stopsBefore = ends[1 + expected.count]
            let perDay = (threshold * 10 + 7) / 8
            let config = try writeConfig("maxRequestsPerDay: \(perDay)\n", in: home)
            let catchUp = try await roundup(
                base + ["--end-date", Self.week, "--catch-up", "--config", config], environment: environment)
            #expect(catchUp.status == 0, "\(catchUp.stderr)")
            let reports = try JSONSerialization.jsonObject(with: Data(catchUp.stdout.utf8)) as? [[String: Any]]
            #expect(reports?.map { $0["requests"] as? Int } == expected)
            #expect(catchUp.stderr.contains("stopped before the week ending \(stopsBefore)"), "\(catchUp.stderr)")
            #expect(catchUp.stderr.contains("80 % of maxRequestsPerDay (\(perDay))"))
            #expect(await server.bank.transfers.count == 1 + expected.count)

            // The day's allowance is spent: the next run stops before its first week, and a
            // dry run says the same.
            for extra in [[], ["--dry-run"]] {
                let again = try await roundup(
                    base + ["--end-date", Self.week, "--catch-up", "--config", config] + extra, environment: environment
                )
                #expect(again.status == 0, "\(again.stderr)")
                #expect(
                    again.stderr.contains("stopped before the week ending \(stopsBefore)"), "\(extra): \(again.stderr)")
                #expect(await server.bank.transfers.count == 1 + expected.count)
            }

            let roomier = try writeConfig("maxRequestsPerDay: 10000\n", in: home)
            let rest = try await roundup(
                base + ["--end-date", Self.week, "--catch-up", "--config", roomier], environment: environment)
            #expect(rest.status == 0, "\(rest.stderr)")
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == Array(repeating: 65, count: 7))
        }
    }
}
