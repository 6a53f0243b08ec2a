import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// A run killed after some accounts' weeks were recorded and before the others': an
/// account that had no week in the ledger yet gets its week from the next `--catch-up`
/// run, which runs the newest week again; the accounts the killed run reached find theirs
/// settled, and nothing moves twice.
@Suite struct InterruptedRunTests {
    static let week = "2026-11-15"
    static let settled = londonWeek(week).start.adding(milliseconds: 3_600_000)

    @Test func anAccountAKilledFirstRunNeverReachedGetsItsWeekFromTheNextCatchUp() async throws {
        var bank = TestBank(token: "killed-first-run")
        let first = bank.account("GBP", name: "First")
        let second = bank.account("GBP", name: "Second")
        for account in [first, second] {
            bank.goal(account, name: "Round-ups", uid: "90c00000-0000-4000-8000-0000000000" + account.suffix(2))
            bank.spend(account, 1_50, settled: Self.settled)
        }
        let home = try TemporaryDirectory()
        let environment = binaryEnvironment(home, token: "killed-first-run")
        var once = false
        try await withEmulator(bank.state) { server in
            // The second account's feed fails, and the run waits a minute to ask again, while
            // the first account's week moves.
            await server.bank.injectFaults([
                FaultRule(endpoints: [.settledFeed], pathContains: second, when: .always, faults: [.serverError(503)])
            ])
            let patient = try writeConfig(
                "retryAttempts: 3\nretryFirstDelayMilliseconds: 60000\nretryMaxDelaySeconds: 60\n", in: home)
            let victim = try LaunchedRoundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", patient],
                environment: environment, output: home.path + "/killed")
            let moved = await waitFor(victim, within: .seconds(180)) { await server.bank.transfers.count == 1 }
            #expect(moved, "\((try? String(contentsOfFile: home.path + "/killed.err", encoding: .utf8)) ?? "")")
            // The first account's week is recorded as soon as its transfer is answered.
            try await Task.sleep(for: .milliseconds(300))
            #expect(victim.kill())
            _ = await victim.exit()
            await server.bank.injectFaults([])
            #expect(await server.bank.transfers.map(\.accountUid) == [first])

            let catchUp = try await roundup(
                ["run", "--catch-up", "--end-date", Self.week, "--api-base-url", server.baseURL],
                environment: environment)
            #expect(catchUp.status == 0, "\(catchUp.stderr)")
            #expect(catchUp.stderr.contains("the run before this one did not finish"), "\(catchUp.stderr)")
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
}
