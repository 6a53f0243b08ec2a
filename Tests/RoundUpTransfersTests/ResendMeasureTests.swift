import JobTestSupport
import RoundUp
import RoundUpHost
import StarlingEmulator
import TestSupport
import Testing

/// What a week is measured against around a transfer sent again, in-process through libcurl
/// against the emulator.
@Suite struct ResendMeasureTests {
    /// 11.50 in a GBP account with a minimum of 10.00 and a goal, and 0.99 of round-up in each
    /// of the weeks to 8 and 15 November; the week to 1 November already run. `faults` then
    /// meet the catch-up to the 15th, whose result `check` is given with the emulator.
    static func catchUp(
        goal: String, faults: [FaultRule], _ check: (CommandResult, EmulatorServer) async throws -> Void
    ) async throws {
        var bank = TestBank()
        let account = bank.account("GBP", balance: 11_50)
        bank.goal(account, name: "Round-ups", uid: goal)
        for week in ["2026-11-08", "2026-11-15"] {
            bank.spend(account, 1_01, settled: londonWeek(week).start.adding(milliseconds: 3_600_000))
        }
        let harness = try JobHarness(token: bank.state.token)
        let config = JobHarness.quickRetries + "minimumBalance: {GBP: 10.00}\noverdraft: allow\n"
        // The feed shows a transfer an hour after it was made: the goal's total shows it at once.
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(feedLag: .seconds(3600))) { server in
            let first = await harness.run(server, endDate: "2026-11-01", config: config)
            #expect(first.status == .ok, "\(first.diagnostics)")
            await server.bank.injectFaults(faults)
            try await check(await harness.run(server, endDate: "2026-11-15", catchUp: true, config: config), server)
        }
    }

    /// A catch-up's later weeks are measured against the balance less what its earlier weeks
    /// may have moved: a transfer the bank carried out without saying so (its answer a 503,
    /// the feed not showing it yet, the goal's total grown by it) counts as moved.
    @Test func aLaterWeekCountsAnEarlierWeeksTransferThatMayHaveMoved() async throws {
        try await Self.catchUp(
            goal: "90a10000-0000-4000-8000-000000000301", faults: [.first(1, [.addMoney], .failAfterApplying(503))]
        ) { caught, server in
            #expect(caught.status == .temporaryFailure, "\(caught.diagnostics)")
            // The first week's 0.99 moved; the second has 0.51 of room above the minimum.
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [99, 51], "\(caught.output)")
            #expect(await server.bank.state.accounts[0].balance == 10_00)
        }
    }

    /// A send whose goal's total then grew by another amount holds the week for a person;
    /// what it may have moved still counts against the catch-up's later weeks.
    @Test func aLaterWeekCountsAnEarlierWeeksTransferHeldAfterItsSend() async throws {
        try await Self.catchUp(
            goal: "90a10000-0000-4000-8000-000000000303",
            faults: [
                .first(1, [.addMoney], .failAfterApplying(503)),
                // The goal's total read after the send shows 1.06, not the 0.99 sent.
                FaultRule(
                    endpoints: [.savingsGoal], when: .onRequests([2]),
                    faults: [.rewrittenBody("\"minorUnits\":99", "\"minorUnits\":106")]),
            ]
        ) { caught, server in
            #expect(caught.status == .configuration, "\(caught.output)")
            #expect(caught.output.contains("held"), "\(caught.output)")
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [99, 51], "\(caught.output)")
            #expect(await server.bank.state.accounts[0].balance == 10_00)
        }
    }

    /// `resolve --check` says what `--retry` would do now: nothing yet while the feed has not
    /// had its `feedSettleMinutes` to show an unanswered send, and the mandate's own
    /// `lastDate` counts where `lastPayment` has none.
    @Test func checkSaysARetryWouldWaitForTheFeed() async throws {
        var bank = TestBank()
        let account = bank.account("GBP", balance: 100_00)
        bank.goal(account, name: "Round-ups", uid: "90a10000-0000-4000-8000-000000000302")
        bank.spend(account, 1_01, settled: londonWeek("2026-11-15").start.adding(milliseconds: 3_600_000))
        let harness = try JobHarness(token: bank.state.token)
        let config = JobHarness.quickRetries.replacingOccurrences(
            of: "feedSettleMinutes: 0", with: "feedSettleMinutes: 30")
        try await withEmulator(bank.state) { server in
            await server.bank.injectFaults([
                FaultRule(endpoints: [.addMoney], when: .always, faults: [.serverError(503)])
            ])
            let failed = await harness.run(server, endDate: "2026-11-15", config: config)
            #expect(failed.status != .ok, "\(failed.output)")
            let check = await harness.resolve(server, .check, account: account, endDate: "2026-11-15", config: config)
            #expect(check.output.contains("`--retry` would send nothing yet"), "\(check.output)")
            #expect(await server.bank.transfers.isEmpty)
        }
    }
}
