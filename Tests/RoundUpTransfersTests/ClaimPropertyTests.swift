import Foundation
import JobTestSupport
import PropertyBased
import RoundUp
import RoundUpCommands
import RoundUpVocabulary
import StarlingEmulator
import Synchronization
import TestSupport
import Testing

/// Each transfer claimed once, for any order of weeks, amounts, clock skews within an hour
/// and lost answers: generated scenarios run the real job through libcurl against the
/// emulator, which does not deduplicate transfers, so a week sent twice shows.
@Suite struct ClaimPropertyTests {
    static let goalUid = "90f00000-0000-4000-8000-0000000000c2"
    static let weeks = ["2026-10-25", "2026-11-01", "2026-11-08", "2026-11-15"]
    /// Spends whose round-ups collide on purpose: 0.29, 0.67, 0.99.
    static let spends: [Int64] = [7_71, 1_33, 1_01]
    /// What goes wrong with a run's first transfer.
    static let faults: [Fault?] = [
        nil, .dropAfterApplying, .failAfterApplying(502), .dropConnection, .serverError(503),
        .rateLimitedAfterApplying(retryAfter: "0"), .rateLimited(retryAfter: "0"),
    ]

    struct Scenario: Sendable, CustomStringConvertible {
        /// Which spend each week has (an index into `spends`).
        var amounts: [Int]
        /// The bank's clock, in seconds from this machine's.
        var skew: Int
        /// The weeks run, in order (indexes into `weeks`), each with the fault of its first transfer.
        var runs: [(week: Int, fault: Int)]

        var description: String {
            "amounts \(amounts.map { ClaimPropertyTests.spends[$0] }), skew \(skew) s, runs "
                + runs.map {
                    "\(ClaimPropertyTests.weeks[$0.week]) \(ClaimPropertyTests.faults[$0.fault].map { "\($0)" } ?? "-")"
                }
                .joined(separator: ", ")
        }
    }

    static let scenarios = zip(
        Gen.int(in: 0...2).array(of: 4), Gen.int(in: -3_500...3_500),
        zip(Gen.int(in: 0...3), Gen.int(in: 0...(faults.count - 1))).array(of: 1...7)
    ).map { amounts, skew, runs in
        Scenario(amounts: amounts, skew: skew, runs: runs.map { (week: $0.0, fault: $0.1) })
    }

    /// Weeks sent more than once, and weeks left before a person, over every scenario checked.
    static let tally = Mutex((scenarios: 0, doubled: 0, beforeAPerson: 0))

    @Test func eachWeekMovesAtMostOnceAndEndsMovedOrBeforeAPerson() async throws {
        await propertyCheck(count: 40, input: Self.scenarios) { scenario in
            do {
                try await Self.check(scenario)
            } catch {
                Issue.record("\(scenario): \(error)")
            }
        }
        let (scenarios, doubled, waiting) = Self.tally.withLock { ($0.scenarios, $0.doubled, $0.beforeAPerson) }
        print(
            "case: \(scenarios) generated orders of weeks, amounts, bank clocks within an hour and lost answers: "
                + "\(waiting) week(s) left for a person, the rest moved once; money moved exactly once: "
                + (doubled == 0 ? "yes" : "NO"))
    }

    static func check(_ scenario: Scenario) async throws {
        var bank = TestBank()
        let account = bank.account("GBP", name: "Personal", balance: 100_00)
        bank.goal(account, name: "Round-ups", uid: goalUid)
        for (index, week) in weeks.enumerated() {
            bank.spend(
                account, spends[scenario.amounts[index]],
                settled: londonWeek(week).start.adding(milliseconds: 3_600_000))
        }
        let harness = try JobHarness(token: bank.state.token)
        let behaviour = EmulatorBehaviour(clockOffset: .seconds(scenario.skew))
        try await withEmulator(bank.state, behaviour: behaviour) { server in
            for run in scenario.runs {
                await server.bank.injectFaults(faults[run.fault].map { [.first(1, [.addMoney], $0)] } ?? [])
                _ = await harness.run(server, endDate: weeks[run.week])
            }
            // Then every week the scenario ran, once more, with nothing going wrong.
            await server.bank.injectFaults([])
            for week in Set(scenario.runs.map(\.week)).sorted() { _ = await harness.run(server, endDate: weeks[week]) }
            let transfers = await server.bank.transfers
            let entries = try harness.ledger().accountWeeks()
            // Every week the scenario ran has its entry: the runs did their work.
            #expect(Set(entries.map(\.weekEnd.description)) == Set(scenario.runs.map { weeks[$0.week] }), "\(scenario)")
            tally.withLock { tally in
                tally.scenarios += 1
                tally.beforeAPerson += entries.count { $0.status == .held || $0.status == .pending }
                tally.doubled += entries.count { entry in
                    transfers.count { $0.transferUid == entry.firstLeg.transferUid } > 1
                }
            }
            for entry in entries {
                let sent = transfers.filter { $0.transferUid == entry.firstLeg.transferUid }.count
                #expect(sent <= 1, "\(scenario): the week ending \(entry.weekEnd) moved \(sent) times")
                switch entry.status {
                case .done:
                    // Moved once: by this ledger, or found (a look-alike is never taken unasked).
                    #expect(sent == 1, "\(scenario): \(entry.weekEnd) is recorded as moved, and moved \(sent) times")
                case .held, .pending:
                    // A person sees it: `roundup resolve` lists it.
                    #expect(Resolve.list(stateDirectory: harness.stateDirectory).output.contains("\(entry.weekEnd)"))
                case .nothing, .abandoned:
                    #expect(sent == 0, "\(scenario)")
                }
            }
            // Every transfer the bank made is one week's, and no feed item is claimed twice.
            #expect(transfers.count == Set(transfers.map(\.transferUid)).count, "\(scenario)")
            let claimed = entries.flatMap(\.feedItemUids)
            #expect(claimed.count == Set(claimed).count, "\(scenario): \(claimed)")
            let items = await server.bank.state.feeds[account] ?? []
            for uid in claimed {
                let item = items.first { Uid.canonical($0.feedItemUid) == uid }
                #expect(item?.source == "INTERNAL_TRANSFER" && item?.counterPartyUid == goalUid, "\(scenario): \(uid)")
            }
        }
    }
}
