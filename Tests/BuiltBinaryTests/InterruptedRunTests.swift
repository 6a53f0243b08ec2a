import Foundation
import RoundUp
import RoundUpLedger
import StarlingEmulator
import TestSupport
import Testing

/// A run killed after some accounts' weeks were recorded and before the others': the ledger
/// knows which accounts the run began, so an account that had no week in it yet gets its
/// week from the next `--catch-up` run, a plain run says it leaves the week behind, and the
/// accounts the killed run reached find theirs settled. Nothing moves twice.
@Suite struct InterruptedRunTests {
    static let week = "2026-11-15"
    static let settled = londonWeek(week).start.adding(milliseconds: 3_600_000)

    /// Two GBP accounts with a goal each, spending in the weeks ending `ends`.
    static func bank(_ token: String, ends: [String]) -> (TestBank, String, String) {
        var bank = TestBank(token: token)
        let first = bank.account("GBP", name: "First")
        let second = bank.account("GBP", name: "Second")
        for account in [first, second] {
            bank.goal(account, name: "Round-ups", uid: "90c00000-0000-4000-8000-0000000000" + account.suffix(2))
            for end in ends {
                bank.spend(account, 1_50, settled: londonWeek(end).start.adding(milliseconds: 3_600_000))
            }
        }
        return (bank, first, second)
    }

    /// Runs the week ending `week` and kills the run once the first account's week moved,
    /// while the second account's feed keeps failing and the run waits a minute to ask again.
    static func killAfterTheFirst(
        _ server: EmulatorServer, home: TemporaryDirectory, environment: [String: String], week: String,
        second: String
    ) async throws {
        await server.bank.injectFaults([
            FaultRule(endpoints: [.settledFeed], pathContains: second, when: .always, faults: [.serverError(503)])
        ])
        let patient = try writeConfig(
            "retryAttempts: 3\nretryFirstDelayMilliseconds: 60000\nretryMaxDelaySeconds: 60\n", in: home)
        let before = await server.bank.transfers.count
        let victim = try LaunchedRoundup(
            ["run", "--end-date", week, "--api-base-url", server.baseURL, "--config", patient],
            environment: environment, output: home.path + "/killed")
        let moved = await waitFor(victim, within: .seconds(180)) { await server.bank.transfers.count == before + 1 }
        #expect(moved, "\((try? String(contentsOfFile: home.path + "/killed.err", encoding: .utf8)) ?? "")")
        // The first account's week is recorded done once its transfer is answered and seen:
        // the kill comes after that, however loaded the machine.
        let ledger = home.path + "/.local/state/roundup/ledger.sqlite"
        let done = await waitFor(victim, within: .seconds(120)) {
            ((try? Ledger.readOnlyCopy(of: ledger).accountWeeks()) ?? []).contains { $0.status == .done }
        }
        #expect(done, "the first account's week was not recorded done")
        #expect(victim.kill())
        _ = await victim.exit()
        await server.bank.injectFaults([])
    }

    @Test func anAccountAKilledFirstRunNeverReachedGetsItsWeekFromTheNextCatchUp() async throws {
        let (bank, first, second) = Self.bank("killed-first-run", ends: [Self.week])
        let home = try TemporaryDirectory()
        let environment = binaryEnvironment(home, token: "killed-first-run")
        var once = false
        try await withEmulator(bank.state) { server in
            try await Self.killAfterTheFirst(
                server, home: home, environment: environment, week: Self.week, second: second)
            #expect(await server.bank.transfers.map(\.accountUid) == [first])

            let catchUp = try await roundup(
                ["run", "--catch-up", "--end-date", Self.week, "--api-base-url", server.baseURL],
                environment: environment)
            #expect(catchUp.status == 0, "\(catchUp.stderr)")
            #expect(await server.bank.transfers.map(\.accountUid).sorted() == [first, second].sorted())
            #expect(summaryRow(catchUp.stdout, "First (GBP)")?.last == "already transferred")
            #expect(summaryRow(catchUp.stdout, "Second (GBP)")?.last == "transferred")

            // That run ended well: the next catch-up has nothing to do.
            let again = try await roundup(
                ["run", "--catch-up", "--end-date", Self.week, "--api-base-url", server.baseURL],
                environment: environment)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("nothing to catch up"), "\(again.stderr)")
            let transfers = await server.bank.transfers.map(\.accountUid)
            once = transfers.sorted() == [first, second].sorted()
            #expect(once)
        }
        robustnessLine(
            "a first run killed after one account's transfer, before the other's week began",
            "the next --catch-up ran the week again: the other account moved, the first was already transferred",
            moneyExactlyOnce: once)
    }

    /// A run killed after one account's money moved and before the week's report: the week
    /// owes its report from the moment it was recorded, so the next run, even of another
    /// week, writes it from the ledger, once, and says so.
    @Test func aReportAKilledRunOwedIsWrittenByTheNextRun() async throws {
        let next = "2026-11-22"
        let (bank, first, second) = Self.bank("killed-before-report", ends: [Self.week, next])
        let home = try TemporaryDirectory()
        let environment = binaryEnvironment(home, token: "killed-before-report")
        let reports = home.path + "/.local/state/roundup/reports"
        let ofTheWeek = {
            ((try? FileManager.default.contentsOfDirectory(atPath: reports)) ?? []).filter {
                $0.hasPrefix("roundup-\(Self.week).") && $0.hasSuffix(".json")
            }.filter { $0 != "roundup-\(Self.week).json" }  // the link to the newest
        }
        var once = false
        try await withEmulator(bank.state) { server in
            try await Self.killAfterTheFirst(
                server, home: home, environment: environment, week: Self.week, second: second)
            #expect(ofTheWeek().isEmpty, "the killed run wrote no report of the week: \(ofTheWeek())")

            let plain = try await roundup(
                ["run", "--end-date", next, "--api-base-url", server.baseURL], environment: environment)
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(
                plain.stderr.contains(
                    "the report of the week ending \(Self.week), which its run did not write, is written now"),
                "\(plain.stderr)")
            #expect(ofTheWeek().count == 1, "\(ofTheWeek())")
            let json = try String(contentsOfFile: reports + "/roundup-\(Self.week).json", encoding: .utf8)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let accounts = try #require(report["accounts"] as? [[String: Any]])
            #expect(accounts.compactMap { $0["accountUid"] as? String } == [first], "\(accounts)")
            #expect(accounts.first?["status"] as? String == "transferred", "\(accounts)")
            #expect(accounts.first?["totalMinorUnits"] as? Int == 50, "\(accounts)")
            #expect(json.contains("written later, from the ledger"))

            let again = try await roundup(
                ["run", "--end-date", next, "--api-base-url", server.baseURL], environment: environment)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(!again.stderr.contains("is written now"), "written once: \(again.stderr)")
            #expect(ofTheWeek().count == 1, "\(ofTheWeek())")
            once = await server.bank.transfers.map(\.accountUid).sorted() == [first, first, second].sorted()
            #expect(once)
        }
        robustnessLine(
            "a run killed after one account's transfer, before the week's report",
            "the next run, of the next week, wrote the killed week's report from the ledger, once",
            moneyExactlyOnce: once)
    }

    /// The next week's plain run says it leaves the killed week behind for the account it
    /// never reached, and the catch-up after it rounds that week up, however many runs
    /// ended well in between.
    @Test func aPlainRunAfterAKilledOneSaysTheWeekIsLeftBehindAndACatchUpRoundsItUp() async throws {
        let next = "2026-11-22"
        let (bank, first, second) = Self.bank("killed-then-plain", ends: [Self.week, next])
        let home = try TemporaryDirectory()
        let environment = binaryEnvironment(home, token: "killed-then-plain")
        var once = false
        try await withEmulator(bank.state) { server in
            try await Self.killAfterTheFirst(
                server, home: home, environment: environment, week: Self.week, second: second)
            let plain = try await roundup(
                ["run", "--end-date", next, "--api-base-url", server.baseURL], environment: environment)
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(
                plain.stderr.contains("the week ending \(Self.week) before this one is in no week"), "\(plain.stderr)")
            #expect(await server.bank.transfers.count == 3)
            let catchUp = try await roundup(
                ["run", "--catch-up", "--end-date", next, "--api-base-url", server.baseURL], environment: environment)
            #expect(catchUp.status == 0, "\(catchUp.stderr)")
            let transfers = await server.bank.transfers.map(\.accountUid)
            once = transfers.sorted() == [first, first, second, second].sorted()
            #expect(once, "\(transfers)")
            let again = try await roundup(
                ["run", "--catch-up", "--end-date", next, "--api-base-url", server.baseURL], environment: environment)
            #expect(again.stderr.contains("nothing to catch up"), "\(again.stderr)")
            #expect(await server.bank.transfers.count == 4)
        }
        robustnessLine(
            "a run killed after one account's transfer, then a plain run of the next week",
            "the plain run said the week is left behind; the next --catch-up moved it for the other account",
            moneyExactlyOnce: once)
    }
}
