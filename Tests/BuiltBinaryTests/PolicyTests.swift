import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// The policies in the config file, through the built binary against the emulator.
@Suite struct PolicyTests {
    static let week = "2026-11-15"
    static let settled = londonWeek(week).start.adding(milliseconds: 3_600_000)

    @Test func multiplierCapExclusionsWholeAmountsGoalsByUidAndNewGoalTargets() async throws {
        let home = try TemporaryDirectory()
        let token = "policy-token"
        var bank = TestBank(token: token)
        let gbp = bank.account("GBP", name: "Personal")
        bank.goal(gbp, name: "Round-ups", uid: "90c00000-0000-4000-8000-0000000000a1")
        bank.spend(gbp, 435, settled: Self.settled)  // 0.65
        bank.spend(gbp, 45_00, settled: Self.settled)  // whole: saves 1.00 with wholeAmountsSaveAUnit
        bank.spend(gbp, 0, settled: Self.settled)  // zero: saves nothing even so
        bank.spend(gbp, 1_01, settled: Self.settled) { $0.source = "DIRECT_DEBIT" }  // excluded source
        bank.spend(gbp, 2_02, settled: Self.settled) { $0.spendingCategory = "GAMBLING" }  // excluded category
        let eur = bank.account("EUR", name: "Euro")
        bank.goal(eur, name: "Round-ups", uid: "90c00000-0000-4000-8000-0000000000b1")
        bank.goal(eur, name: "Holiday", uid: "90c00000-0000-4000-8000-0000000000b2")
        bank.spend(eur, 9_90, settled: Self.settled)  // 0.10
        let usd = bank.account("USD", name: "Dollar")
        bank.spend(usd, 19_75, settled: Self.settled)  // 0.25

        let config = try writeConfig(
            """
            multiplier: 3
            weeklyCap:
              GBP: 4.00
            wholeAmountsSaveAUnit: true
            excludeSources: [DIRECT_DEBIT]
            excludeSpendingCategories: [GAMBLING]
            goals:
              \(eur): 90c00000-0000-4000-8000-0000000000b2
            newGoalTarget:
              USD: 250.00
            """, in: home)
        let environment = binaryEnvironment(home, token: token)
        try await withEmulator(bank.state) { server in
            let result = try await roundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config, "--json"],
                environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            let transfers = await server.bank.transfers
            // GBP: (0.65 + 1.00) × 3 = 4.95, capped at 4.00. EUR: 0.10 × 3. USD: 0.25 × 3.
            #expect(transfers.map(\.amount.minorUnits).sorted() == [30, 75, 400])
            #expect(transfers.first { $0.amount.currency == "EUR" }?.goalUid == "90c00000-0000-4000-8000-0000000000b2")
            let created = await server.bank.state.goals[usd]?.first
            #expect(created?.name == "Round-ups")
            #expect(created?.target == 250_00)

            let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let accounts = try #require(report?["accounts"] as? [[String: Any]])
            let personal = try #require(accounts.first { $0["currency"] as? String == "GBP" })
            #expect(personal["roundUpSum"] as? String == "1.65")
            #expect(personal["multiplier"] as? Int == 3)
            #expect(personal["capApplied"] as? String == "4.00")
            #expect(personal["total"] as? String == "4.00")
            #expect(personal["leftOut"] as? [String: Int] == ["excluded-source": 1, "excluded-spending-category": 1])
            #expect(
                (personal["transactions"] as? [[String: Any]])?.compactMap { $0["roundUp"] as? String }
                    == ["0.65", "1.00", "0.00"])
        }
    }

    /// A bank whose GBP account holds 102.00 and spent 1.50 and 2.43 (round-up 1.07).
    static func lowBalanceBank(token: String, scopes: [String]? = nil) -> BankState {
        var bank = TestBank(token: token)
        let gbp = bank.account("GBP", name: "Personal", balance: 102_00)
        bank.goal(gbp, name: "Round-ups", uid: "90c00000-0000-4000-8000-0000000000c1")
        bank.spend(gbp, 1_50, settled: settled)
        bank.spend(gbp, 2_43, settled: settled)
        if let scopes { bank.state.scopes = scopes }
        return bank.state
    }

    @Test func aMinimumBalanceReducesTheTransferAndSaysSo() async throws {
        let home = try TemporaryDirectory()
        let config = try writeConfig("minimumBalance:\n  GBP: 101.00\n", in: home)
        let environment = binaryEnvironment(home, token: "low")
        try await withEmulator(Self.lowBalanceBank(token: "low")) { server in
            let arguments = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config]
            let dry = try await roundup(arguments + ["--dry-run"], environment: environment)
            #expect(dry.status == 0)
            #expect(dry.stdout.contains("a real run would move 1.00 GBP into \"Round-ups\" (reduced from 1.07 GBP"))

            let result = try await roundup(arguments, environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [1_00], "only down to the minimum")
            #expect(
                summaryRow(result.stdout, "Personal (GBP)") == [
                    "Personal (GBP)", "2", "1.00 GBP", "Round-ups", "transferred",
                ])
            #expect(
                result.stdout.contains(
                    "moved 1.00 GBP into \"Round-ups\" (reduced from 1.07 GBP to keep the balance of 102.00 GBP "
                        + "at or above the minimum of 101.00 GBP)"))
            let markdown = try String(
                contentsOfFile: home.path + "/.local/state/roundup/reports/roundup-\(Self.week).md", encoding: .utf8)
            #expect(
                markdown.contains(
                    "- The round-ups add up to 1.07 GBP; 0.07 GBP stays in the account to keep the minimum balance "
                        + "of 101.00 GBP: **1.00 GBP** moved."))
            #expect(markdown.contains("- Minimum balance: 101.00 GBP; the balance was 102.00 GBP"))

            let history = try await roundup(["history", "--config", config], environment: environment)
            #expect(history.stdout.contains("2026-11-15 Personal: reduced from 1.07 GBP"))
        }
    }

    @Test func aMinimumBalanceCanSkipTheWeekInstead() async throws {
        let home = try TemporaryDirectory()
        let config = try writeConfig("minimumBalance:\n  GBP: 101.00\nbelowMinimumBalance: skip\n", in: home)
        let environment = binaryEnvironment(home, token: "skip")
        try await withEmulator(Self.lowBalanceBank(token: "skip")) { server in
            let arguments = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config]
            let result = try await roundup(arguments, environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(await server.bank.transfers.isEmpty)
            #expect(summaryRow(result.stdout, "Personal (GBP)")?.last == "held back")
            #expect(
                result.stdout.contains(
                    "held back 1.07 GBP: moving it would take the balance of 102.00 GBP below the minimum of 101.00 GBP"
                ))
            let again = try await roundup(arguments, environment: environment)
            #expect(again.status == 0)
            #expect(await server.bank.transfers.isEmpty, "the week is decided: a rerun moves nothing")
            let history = try await roundup(["history", "--config", config], environment: environment)
            #expect(summaryRow(history.stdout, "2026-11-09 – 2026-11-15")?.last == "held back")
        }
    }

    @Test func aMinimumBalanceNeedsTheBalanceScope() async throws {
        let home = try TemporaryDirectory()
        let config = try writeConfig("minimumBalance:\n  GBP: 101.00\n", in: home)
        let environment = binaryEnvironment(home, token: "noscope")
        let scopes = [
            "account:read", "account-list:read", "transaction:read", "savings-goal:read",
            "savings-goal-transfer:create",
        ]
        try await withEmulator(Self.lowBalanceBank(token: "noscope", scopes: scopes)) { server in
            let result = try await roundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config],
                environment: environment)
            #expect(result.status == 77)
            #expect(result.stderr.contains("lacks the scopes balance:read"))
            #expect(await server.bank.transfers.isEmpty)
            let check = try await roundup(
                ["check", "--api-base-url", server.baseURL, "--config", config], environment: environment)
            #expect(check.stdout.contains("FIX   scopes: the token lacks balance:read"))
        }
    }

    @Test(arguments: [
        ("minimumBalance:\n  GBP: 10.005\n", "minimumBalance for GBP: 10.005 has more decimal places than GBP allows"),
        ("belowMinimumBalance: sometimes\n", "belowMinimumBalance must be 'reduce' or 'skip', not 'sometimes'"),
        ("wholeAmountsSaveAUnit: perhaps\n", "'wholeAmountsSaveAUnit' must be true or false"),
        ("minimumBalance:\n  ZZZ: 1\n", "minimumBalance: 'ZZZ' is not an ISO 4217 currency code"),
        ("roundTo: 3\n", "roundTo must be 1, 2, 5 or 10, not 3"),
        (
            "accountTypes: [PRIMARY, ADDITONAL]\n",
            "accountTypes: 'ADDITONAL' is not a value the bank uses (did you mean 'ADDITIONAL'?)"
        ),
        ("spending: card\n", "spending must be 'all' or 'cards', not 'card'"),
        ("nativeRoundUp: sometimes\n", "nativeRoundUp must be 'skip' or 'allow', not 'sometimes'"),
        ("maxRequestsPerSecond: 0\n", "maxRequestsPerSecond must be from 1 to 10000, not 0"),
    ])
    func aBadPolicyIsNamed(config: String, message: String) async throws {
        let home = try TemporaryDirectory()
        let path = try writeConfig(config, in: home)
        // The file's own pace, not the tests' usual one from the environment.
        let result = try await roundup(
            ["run", "--config", path],
            environment: ["HOME": home.path, "STARLING_ACCESS_TOKEN": "t", "ROUNDUP_MAX_REQUESTS_PER_SECOND": ""])
        #expect(result.status == 78)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}

/// Colour: only on a terminal, never with NO_COLOR or TERM=dumb, always with --color always.
/// The terminal is a pseudo-terminal from util-linux's `script`.
@Suite struct ColourTests {
    static let escape = "\u{1B}["

    @Test func colourOnlyOnATerminalAndNeverWithNoColor() async throws {
        let home = try TemporaryDirectory()
        let binary = try #require(roundupBinary)
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: "tty")
        try await withEmulator(state) { server in
            let command = "\(binary) run --dry-run --end-date 2026-11-15 --api-base-url \(server.baseURL)"
            let base = binaryEnvironment(home, token: "tty").merging(["TERM": "xterm"]) { $1 }
            func onTerminal(_ extra: [String: String], _ flags: String = "") async throws -> Execution {
                try await run(
                    "/usr/bin/script", ["-qec", command + flags, "/dev/null"],
                    environment: base.merging(extra) { $1 })
            }
            let terminal = try await onTerminal([:])
            #expect(terminal.status == 0, "\(terminal.stdout)")
            #expect(terminal.stdout.contains(Self.escape + "33mdry run"), "statuses are coloured on a terminal")
            #expect(!(try await onTerminal(["NO_COLOR": "1"])).stdout.contains(Self.escape))
            #expect(!(try await onTerminal(["TERM": "dumb"])).stdout.contains(Self.escape))
            #expect(try await onTerminal(["NO_COLOR": ""]).stdout.contains(Self.escape), "an empty NO_COLOR is unset")
            #expect(!(try await onTerminal([:], " --color never")).stdout.contains(Self.escape))

            let piped = try await roundup(command.split(separator: " ").dropFirst().map(String.init), environment: base)
            #expect(piped.status == 0)
            #expect(!piped.stdout.contains(Self.escape), "no colour into a pipe or file")
            let forced = try await roundup(
                command.split(separator: " ").dropFirst().map(String.init) + ["--color", "always"], environment: base)
            #expect(forced.stdout.contains(Self.escape + "33mdry run"))
        }
    }
}
