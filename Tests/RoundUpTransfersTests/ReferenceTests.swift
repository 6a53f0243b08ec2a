import Foundation
import JobTestSupport
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// The reference each transfer carries, `Round-up w/e 15 Nov 2026`: sent with every
/// attempt, kept in the ledger, and, where the bank shows it in the feed, used only to rule
/// out another week's transfer.
@Suite struct ReferenceTests {
    let weekEnd = "2026-11-15"
    let goal = "90a10000-0000-4000-8000-0000000000a1"

    /// One GBP account with a goal "Round-ups" and a card payment of 10.01 in the week.
    func bank() -> (TestBank, String) {
        var bank = TestBank()
        let account = bank.account("GBP")
        bank.goal(account, name: "Round-ups", uid: goal)
        bank.spend(account, 10_01, settled: londonWeek(weekEnd).start.adding(milliseconds: 3_600_000))
        return (bank, account)
    }

    @Test func everyTransferCarriesTheWeekAndTheLedgerKeepsIt() async throws {
        let (bank, _) = bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state) { server in
            // The first attempt is cut off before the bank acts: the next run's resend carries
            // the same reference.
            await server.bank.injectFaults([.first(1, [.addMoney], .dropConnection)])
            let stopped = await harness.run(server, endDate: weekEnd)
            #expect(stopped.status == .unavailable, "\(stopped.diagnostics)")
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .ok, "\(result.diagnostics)")
            let transfers = await server.bank.transfers
            #expect(transfers.map(\.reference) == ["Round-up w/e 15 Nov 2026"])
            #expect(await server.bank.requests.filter { $0.endpoint == .addMoney }.count == 2)
            let references = try harness.ledger().accountWeeks().map(\.firstLeg.reference)
            #expect(references == ["Round-up w/e 15 Nov 2026"])
        }
    }

    /// A transfer of this week's amount into the goal, made after the week ended, that
    /// another state directory made for the week before, late.
    func lateTransferOfTheWeekBefore(_ bank: inout TestBank, _ account: String, reference: String?) {
        let late = Instant(iso8601: "2026-11-16T07:00:00Z")!
        bank.spend(account, 99, settled: late) {
            $0.source = "INTERNAL_TRANSFER"
            $0.counterPartyType = "CATEGORY"
            $0.counterPartyUid = goal
            $0.counterPartyName = "Round-ups"
            $0.spendingCategory = "SAVING"
            $0.reference = reference
        }
    }

    /// A week that ends the day before this one begins might, counted in a time zone
    /// behind this one's, share its first hours, and another ledger's transfer for it holds
    /// this week (`PaymentIdentityTests`); one for the week before that cannot.
    @Test func aTransferWhoseReferenceNamesAnotherWeekIsNotTakenForThisOne() async throws {
        var (bank, account) = bank()
        lateTransferOfTheWeekBefore(&bank, account, reference: "Round-up w/e 1 Nov 2026")
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(feedReference: true)) { server in
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [99])
            #expect(result.report?.accounts.first?.status == .transferred)
        }
    }

    @Test func withoutAReferenceTheSameTransferHoldsTheWeekForAPerson() async throws {
        // The control for the test above: the feed alone cannot tell the weeks apart, and a
        // transfer this ledger did not send is never taken as this week's: the week is held.
        var (bank, account) = bank()
        lateTransferOfTheWeekBefore(&bank, account, reference: nil)
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state) { server in
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .configuration, "\(result.diagnostics)")
            #expect(await server.bank.transfers.isEmpty)
            let account = try #require(result.report?.accounts.first)
            #expect(account.status == .held)
            #expect(account.detail?.contains("did not send") == true, "\(account.detail ?? "")")
        }
    }

    @Test func aCatchUpAgainstABankThatShowsReferencesMovesEachWeekOnce() async throws {
        var bank = TestBank()
        let account = bank.account("GBP")
        for week in ["2026-11-01", "2026-11-08", "2026-11-15"] {
            bank.spend(account, 4_01, settled: londonWeek(week).start.adding(milliseconds: 3_600_000))
        }
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(feedReference: true)) { server in
            let first = await harness.run(server, endDate: "2026-11-01")
            #expect(first.status == .ok, "\(first.diagnostics)")
            // The later weeks' answers are lost after the bank acted: the feed shows them.
            await server.bank.injectFaults([
                FaultRule(endpoints: [.addMoney], when: .always, faults: [.dropAfterApplying])
            ])
            let caughtUp = await harness.run(server, endDate: weekEnd, catchUp: true)
            #expect(caughtUp.status == .ok, "\(caughtUp.diagnostics)")
            await server.bank.injectFaults([])
            let again = await harness.run(server, endDate: weekEnd, catchUp: true)
            #expect(again.status == .ok, "\(again.diagnostics)")
            let transfers = await server.bank.transfers
            #expect(transfers.map(\.amount.minorUnits) == [99, 99, 99])
            #expect(
                Set(transfers.compactMap(\.reference)) == [
                    "Round-up w/e 1 Nov 2026", "Round-up w/e 8 Nov 2026", "Round-up w/e 15 Nov 2026",
                ])
            let feed = await server.bank.state.feeds[account] ?? []
            #expect(feed.filter { $0.source == "INTERNAL_TRANSFER" }.allSatisfy { $0.reference != nil })
            let entries = try harness.ledger().accountWeeks()
            #expect(entries.count == 3 && entries.allSatisfy { $0.status == .done })
        }
    }
}
