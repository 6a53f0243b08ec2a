import Foundation
import JobTestSupport
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// Bad data from the bank for one account: that account is skipped with a message naming
/// the problem, nothing moves for it, the others still run, and the run exits 65.
@Suite struct BadDataTests {
    let weekEnd = "2026-11-15"

    struct BadFeed: Sendable, CustomStringConvertible {
        let description: String
        let endpoint: Endpoint
        let fault: Fault
        /// Words the account's message must contain.
        let says: String
    }

    static let cases: [BadFeed] = [
        BadFeed(
            description: "truncated JSON", endpoint: .settledFeed, fault: .malformedBody(.truncated),
            says: "not valid JSON"),
        BadFeed(description: "not JSON", endpoint: .settledFeed, fault: .malformedBody(.html), says: "not valid JSON"),
        BadFeed(
            description: "an empty body", endpoint: .settledFeed, fault: .malformedBody(.empty),
            says: "the body is empty"),
        BadFeed(
            description: "the wrong shape", endpoint: .settledFeed, fault: .malformedBody(.wrongShape),
            says: "feedItems"),
        BadFeed(
            description: "minorUnits as text", endpoint: .settledFeed,
            fault: .rewrittenBody(#""minorUnits":1234"#, #""minorUnits":"12.34""#),
            says: "minorUnits is not a whole number"),
        BadFeed(
            description: "minorUnits null", endpoint: .settledFeed,
            fault: .rewrittenBody(#""minorUnits":1234"#, #""minorUnits":null"#),
            says: "minorUnits is null, expected a whole number"),
        BadFeed(
            description: "minorUnits beyond 64 bits", endpoint: .settledFeed,
            fault: .rewrittenBody(#""minorUnits":1234"#, #""minorUnits":99999999999999999999"#), says: "out of range"),
        BadFeed(
            description: "minorUnits with a fraction", endpoint: .settledFeed,
            fault: .rewrittenBody(#""minorUnits":1234"#, #""minorUnits":12.34"#), says: "not a whole number"),
        BadFeed(
            description: "negative minorUnits", endpoint: .settledFeed,
            fault: .rewrittenBody(#""minorUnits":1234"#, #""minorUnits":-1234"#), says: "negative amount"),
        BadFeed(
            description: "a currency that is not the account's", endpoint: .settledFeed,
            fault: .rewrittenBody(#""currency":"GBP","minorUnits":1234"#, #""currency":"EUR","minorUnits":1234"#),
            says: "is in 'EUR', but the account is in GBP"),
        BadFeed(
            description: "an unknown currency", endpoint: .settledFeed,
            fault: .rewrittenBody(#""currency":"GBP","minorUnits":1234"#, #""currency":"ZZZ","minorUnits":1234"#),
            says: "is in 'ZZZ'"),
        BadFeed(
            description: "a missing field", endpoint: .settledFeed,
            fault: .rewrittenBody(#""direction":"OUT","#, ""), says: "direction is missing"),
        BadFeed(
            description: "a settlement time that is not a time", endpoint: .settledFeed,
            fault: .rewrittenBody(#""settlementTime":""#, #""settlementTime":"soon "#),
            says: "not an ISO 8601 timestamp"),
        BadFeed(
            description: "a goal list of the wrong shape", endpoint: .savingsGoals, fault: .malformedBody(.wrongShape),
            says: "savingsGoalList"),
        BadFeed(
            description: "a goal uid that is not a string", endpoint: .savingsGoals,
            fault: .rewrittenBody(#""savingsGoalUid":""#, #""savingsGoalUid":7,"x":""#), says: "savingsGoalUid"),
    ]

    @Test("bad data for one account skips it alone, with exit 65", arguments: cases)
    func badDataForOneAccount(bad: BadFeed) async throws {
        var bank = TestBank()
        let first = bank.account("GBP", name: "First")
        let broken = bank.account("GBP", name: "Broken")
        let last = bank.account("GBP", name: "Last")
        let inside = londonWeek(weekEnd).start.adding(milliseconds: 3_600_000)
        for account in [first, broken, last] {
            bank.goal(account, name: "Round-ups", uid: "90b00000-0000-4000-8000-0000000000" + account.suffix(2))
            bank.spend(account, 1_234, settled: inside)
            bank.spend(account, 150, settled: inside)
        }
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state) { server in
            await server.bank.injectFaults([
                FaultRule(endpoints: [bad.endpoint], pathContains: broken, when: .always, faults: [bad.fault])
            ])
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .dataError, "\(result.diagnostics)")
            let moved = await server.bank.transfers.map { "\($0.accountUid) \($0.amount.minorUnits)" }.sorted()
            #expect(moved == ["\(first) 116", "\(last) 116"])
            let report = try #require(result.report)
            #expect(report.accounts.map(\.status) == [.transferred, .failed, .transferred])
            let detail = report.accounts[1].detail ?? ""
            #expect(detail.contains(bad.says), "\(detail)")
            #expect(detail.contains("nothing was moved for this account") || detail.contains("malformed"), "\(detail)")
            let stderr = result.diagnostics.joined(separator: "\n")
            #expect(stderr.contains("Broken (GBP): "), "\(stderr)")
            #expect(stderr.contains(bad.says), "\(stderr)")
            let entries = try harness.ledger().accountWeeks()
            #expect(entries.map(\.accountUid).sorted() == [first, last])
        }
    }

    @Test("an account in a currency the job cannot place is skipped, with exit 65")
    func unknownAccountCurrency() async throws {
        var bank = TestBank()
        let good = bank.account("EUR")
        let odd = bank.account("XAU", name: "Gold")
        bank.spend(good, 101, settled: londonWeek(weekEnd).start)
        bank.spend(odd, 101, settled: londonWeek(weekEnd).start)
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state) { server in
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .dataError)
            #expect(await server.bank.transfers.map(\.accountUid) == [good])
            #expect(result.diagnostics.joined().contains("Gold (XAU): the account's currency 'XAU'"))
        }
    }
}
