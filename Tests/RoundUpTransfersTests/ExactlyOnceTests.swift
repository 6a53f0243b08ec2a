import Foundation
import JobTestSupport
import RoundUp
import RoundUpCommands
import RoundUpVocabulary
import StarlingEmulator
import TestSupport
import Testing

/// Exactly once against a bank that does not recognise a repeated transfer uid: every
/// test runs the job through libcurl against the emulator with deduplication switched
/// off, so a transfer sent twice moves money twice and shows.
@Suite struct ExactlyOnceTests {
    static let weekEnd = "2026-11-15"
    static let goalUid = "90000000-0000-4000-8000-0000000000aa"
    static let noDedup = EmulatorBehaviour(deduplicatesTransfers: false)

    /// One GBP account with 1.01 spent in the week (0.99 to round up) and a goal.
    static func bank(balance: Int64 = 100_00, goal: Bool = true) -> (TestBank, String) {
        var bank = TestBank()
        let account = bank.account("GBP", name: "Personal", balance: balance)
        if goal { bank.goal(account, name: "Round-ups", uid: goalUid) }
        bank.spend(account, 101, settled: londonWeek(weekEnd).start.adding(milliseconds: 3_600_000))
        return (bank, account)
    }

    /// Moves money at the emulated bank as a run that then died would have: the bank
    /// carried out the transfer, and the ledger holds only the intent.
    static func movedButNotRecorded(
        _ server: EmulatorServer, harness: JobHarness, account: String, minorUnits: Int64 = 99
    ) async throws {
        let weekEnd = LocalDate(iso: weekEnd)!
        let transferUid = TransferUID.transferUid(accountUid: account, goalUid: goalUid, weekEnd: weekEnd)
        try FileManager.default.createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
        try harness.ledger().recordDecision(
            AccountWeek(
                accountUid: account, weekEnd: weekEnd, status: .pending, currency: "GBP", minorUnits: minorUnits,
                goalUid: goalUid, goalName: "Round-ups", transferUid: transferUid),
            at: Instant.now.adding(milliseconds: -1000))
        // As a run does: the send is recorded before it goes out.
        try harness.ledger().recordSend(
            accountUid: account, weekEnd: weekEnd, leg: 0, bankTime: Instant.now.adding(milliseconds: -500),
            at: Instant.now.adding(milliseconds: -500))
        let state = await server.bank.state
        let response = await server.bank.handle(
            EmulatorRequest(
                method: "PUT", path: "/api/v2/account/\(account)/savings-goals/\(goalUid)/add-money/\(transferUid)",
                headers: ["authorization": "Bearer \(state.token)"],
                body: Array(#"{"amount":{"currency":"GBP","minorUnits":\#(minorUnits)}}"#.utf8)))
        #expect(response.status == 200)
    }

    static func moved(_ server: EmulatorServer) async -> [Int64] {
        await server.bank.transfers.map(\.amount.minorUnits)
    }

    // MARK: - The transfer's answer is lost after the money moved

    static let lostAnswers: [(Fault, String)] = [
        (.failAfterApplying(502), ""), (.dropAfterApplying, ""),
        // The bank acts at once and answers after the job has given up waiting (the timeout
        // leaves room for a machine busy with every other test).
        (.latency(.seconds(8)), "requestTimeoutSeconds: 3\n"),
    ]

    @Test(
        "the answer to a transfer is lost after the money moved: found in the feed, not sent again",
        arguments: lostAnswers)
    func aLostAnswerIsLookedUpInTheFeed(fault: Fault, config: String) async throws {
        let (bank, _) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            await server.bank.injectFaults([.first(1, [.addMoney], fault)])
            let settings =
                config.isEmpty
                ? JobHarness.quickRetries
                : JobHarness.quickRetries.replacingOccurrences(of: "requestTimeoutSeconds: 60\n", with: config)
            let result = await harness.run(server, endDate: Self.weekEnd, config: settings)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await Self.moved(server) == [99])
            let puts = await server.bank.requests.filter { $0.endpoint == .addMoney }
            #expect(puts.count == 1, "never sent again blindly")
            let entry = try #require(try harness.ledger().accountWeeks().first)
            #expect(entry.status == .done && entry.firstLeg.confirmation == .feed && entry.firstLeg.feedItemUid != nil)
            #expect(result.report?.accounts.first?.status == .transferred)
        }
    }

    /// The bank shows the week's own transfer with a reference of its own making, which
    /// mentions another day and no longer names the week (and once cut within its year, a
    /// year later): after a lost answer the feed is still the week's evidence, and the money
    /// moves once. A reference read so loosely only ever holds a week; it never rules the
    /// week's own transfer out of it.
    @Test(arguments: [ReferenceRewording.bankDated, .cutTo22, .prefixed, .isoDate])
    func aReferenceTheBankRewordsNeverHidesTheWeeksOwnTransfer(rewording: ReferenceRewording) async throws {
        let (bank, _) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        let behaviour = EmulatorBehaviour(
            deduplicatesTransfers: false, feedReference: true, referenceRewording: rewording)
        try await withEmulator(bank.state, behaviour: behaviour) { server in
            await server.bank.injectFaults([.first(1, [.addMoney], .failAfterApplying(502))])
            let result = await harness.run(server, endDate: Self.weekEnd)
            #expect(await Self.moved(server) == [99], "\(result.diagnostics)")
            #expect(result.status == .ok, "\(rewording): \(result.diagnostics)")
            let puts = await server.bank.requests.filter { $0.endpoint == .addMoney }
            #expect(puts.count == 1, "never sent again")
            let again = await harness.run(server, endDate: Self.weekEnd)
            #expect(await Self.moved(server) == [99], "\(again.diagnostics)")
        }
    }

    @Test func aTransferTheBankNeverReceivedIsSentAgainAfterTheFeedShowsNothing() async throws {
        let (bank, _) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            await server.bank.injectFaults([.first(1, [.addMoney], .serverError(503))])
            let result = await harness.run(server, endDate: Self.weekEnd)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await Self.moved(server) == [99])
            // The feed was read twice before the transfer was sent again.
            let looks = await server.bank.requests.filter { $0.path.hasSuffix("/transactions-between") }
            #expect(looks.count == 3, "one look before the first send, two after the 503")
            let entries = try harness.ledger().accountWeeks()
            #expect(entries.first?.firstLeg.confirmation == .bank)
        }
    }

    @Test func aRunKilledAfterTheMoneyMovedIsFinishedFromTheFeed() async throws {
        let (bank, account) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            try await Self.movedButNotRecorded(server, harness: harness, account: account)
            let result = await harness.run(server, endDate: Self.weekEnd)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await Self.moved(server) == [99])
            let puts = await server.bank.requests.filter { $0.endpoint == .addMoney }
            #expect(puts.count == 1, "only the one made before the run died")
            #expect(result.report?.accounts.first?.status == .alreadyTransferred)
            #expect(result.report?.accounts.first?.detail?.contains("found in the feed") == true)
            let again = await harness.run(server, endDate: Self.weekEnd)
            #expect(again.status == .ok)
            #expect(await Self.moved(server) == [99])
        }
    }

    // MARK: - Two state directories

    /// A second state directory finds the first one's transfer in the feed: a transfer it
    /// did not send, which may be another week's, so the week is held, not taken as moved,
    /// until a person names it (`--check --accept`). Money moves once either way.
    @Test func twoStateDirectoriesMoveTheWeekOnceIntoOneGoal() async throws {
        let (bank, account) = Self.bank(goal: false)
        let cron = try JobHarness(token: bank.state.token)
        let timer = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            let first = await cron.run(server, endDate: Self.weekEnd)
            #expect(first.status == .ok, "\(first.diagnostics)")
            let second = await timer.run(server, endDate: Self.weekEnd)
            #expect(second.status == .configuration, "\(second.diagnostics)")
            #expect(await Self.moved(server) == [99])
            #expect(await server.bank.state.goals[account]?.count == 1, "never two goals")
            #expect(second.report?.accounts.first?.status == .held)
            let held = try #require(try timer.ledger().accountWeeks().first)
            let item = try #require(
                await server.bank.state.feeds[account]?.first {
                    $0.source == "INTERNAL_TRANSFER" && $0.direction == "OUT"
                })
            #expect(held.status == .held && held.reason?.contains("did not send") == true)
            #expect(held.reason?.contains("--accept \(item.feedItemUid.lowercased())") == true, "\(held.reason ?? "")")
            // A plain check changes nothing; naming the item records it, once.
            let checked = await timer.resolve(server, .check, account: account, endDate: Self.weekEnd)
            #expect(checked.status == .ok && checked.output.contains("Nothing changed"), "\(checked.output)")
            #expect(try timer.ledger().accountWeeks().first?.status == .held)
            let accepted = await timer.resolve(
                server, .accept(feedItem: item.feedItemUid.lowercased()), account: account, endDate: Self.weekEnd)
            #expect(accepted.status == .ok, "\(accepted.diagnostics)")
            #expect(await Self.moved(server) == [99])
            let entry = try #require(try timer.ledger().accountWeeks().first)
            #expect(entry.status == .done && entry.firstLeg.confirmation == .feed)
            #expect(entry.firstLeg.feedItemUid == item.feedItemUid.lowercased())
        }
    }

    @Test(arguments: [false, true])
    func equalAmountsInConsecutiveCappedWeeksAreEachMovedOnce(secondAnswerLost: Bool) async throws {
        var bank = TestBank()
        let account = bank.account("GBP", name: "Personal")
        bank.goal(account, name: "Round-ups", uid: Self.goalUid)
        for end in ["2026-11-08", "2026-11-15"] {
            for pence in [101, 250, 333] {
                bank.spend(account, Int64(pence), settled: londonWeek(end).start.adding(milliseconds: 7_200_000))
            }
        }
        let harness = try JobHarness(token: bank.state.token)
        let capped = JobHarness.quickRetries + "weeklyCap:\n  GBP: 1.00\n"
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            let first = await harness.run(server, endDate: "2026-11-01", config: capped)
            #expect(first.status == .ok)
            if secondAnswerLost {
                // The second week's transfer moves, a second after the first, and its answer is lost.
                await server.bank.injectFaults([
                    FaultRule(endpoints: [.addMoney], when: .onRequests([2]), faults: [.dropAfterApplying])
                ])
            }
            let caught = await harness.run(server, endDate: Self.weekEnd, catchUp: true, config: capped)
            #expect(caught.status == .ok, "\(caught.diagnostics)")
            #expect(await Self.moved(server) == [100, 100])
            let entries = try harness.ledger().accountWeeks()
            #expect(entries.map(\.status) == [.nothing, .done, .done])
        }
    }

    // MARK: - What needs a person

    @Test func aTransferOfAnotherAmountSinceTheWeekEndedHoldsTheWeekUntilResolved() async throws {
        let (bank, account) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            // Money put into the goal by hand in the app since the week ended.
            try await Self.movedButNotRecorded(server, harness: harness, account: account, minorUnits: 500)
            try FileManager.default.removeItem(atPath: harness.stateDirectory)
            let held = await harness.run(server, endDate: Self.weekEnd)
            #expect(held.status == .configuration)
            #expect(held.report?.accounts.first?.status == .held)
            // Said once, in the summary; not again on stderr.
            #expect(held.held.joined().contains("5.00 GBP") && held.output.contains("5.00 GBP"))
            #expect(!held.diagnostics.joined().contains("5.00 GBP"))
            #expect(await Self.moved(server) == [500], "nothing moved for the week")
            // Runs leave it be.
            #expect(await harness.run(server, endDate: Self.weekEnd).status == .configuration)
            #expect(await Self.moved(server) == [500])
            // A person says: send it.
            let resolved = await harness.resolve(server, .retry, account: account, endDate: Self.weekEnd)
            #expect(resolved.status == .ok, "\(resolved.diagnostics)")
            #expect(resolved.output.contains("Moved 0.99 GBP"))
            #expect(await Self.moved(server) == [500, 99])
            let entry = try #require(try harness.ledger().accountWeeks().first)
            #expect(entry.status == .done && entry.resolution?.hasPrefix("retried at") == true)
            #expect(await harness.run(server, endDate: Self.weekEnd).status == .ok)
            #expect(await Self.moved(server) == [500, 99])
        }
    }

    @Test func aDeletedGoalHoldsItsWeekOnlyAndARedirectSettlesIt() async throws {
        var (bank, account) = Self.bank()
        let other = bank.account("GBP", name: "Joint")
        bank.goal(other, name: "Round-ups", uid: "90000000-0000-4000-8000-0000000000bb")
        bank.spend(account, 101, settled: londonWeek("2026-11-08").start.adding(milliseconds: 7_200_000))
        for end in ["2026-11-08", Self.weekEnd] {
            bank.spend(other, 250, settled: londonWeek(end).start.adding(milliseconds: 7_200_000))
        }
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            // The week ending 11-01 was recorded but never sent, then the goal was deleted.
            let weekEnd = LocalDate(iso: "2026-11-01")!
            try FileManager.default.createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
            try harness.ledger().recordDecision(
                AccountWeek(
                    accountUid: account, weekEnd: weekEnd, status: .pending, currency: "GBP", minorUnits: 42,
                    goalUid: Self.goalUid, goalName: "Round-ups",
                    transferUid: TransferUID.transferUid(accountUid: account, goalUid: Self.goalUid, weekEnd: weekEnd)),
                at: Instant.now.adding(milliseconds: -1000))
            await server.bank.deleteGoal(accountUid: account, goalUid: Self.goalUid)
            let caught = await harness.run(server, endDate: Self.weekEnd, catchUp: true)
            #expect(caught.status == .configuration, "a person is needed, and nothing may pass by itself")
            #expect(caught.held.joined().contains("no longer exists"))
            // Every other account-week moved, the same account's later weeks included.
            #expect(await Self.moved(server).sorted() == [50, 50, 99, 99])
            let entries = try harness.ledger().accountWeeks()
            #expect(entries.filter { $0.status == .held }.map(\.weekEnd) == [weekEnd])
            #expect(entries.filter { $0.status == .done }.count == 4)
            // The listing names it; a redirect to the new goal settles it.
            #expect(Resolve.list(stateDirectory: harness.stateDirectory).output.contains("UNKNOWN_SAVINGS_GOAL"))
            let resolved = await harness.resolve(
                server, .redirect(goal: "round-ups"), account: account, endDate: "2026-11-01")
            #expect(resolved.status == .ok, "\(resolved.diagnostics)")
            #expect(await Self.moved(server).sorted() == [42, 50, 50, 99, 99])
            let entry = try #require(try harness.ledger().accountWeek(accountUid: account, weekEnd: weekEnd))
            #expect(entry.status == .done && entry.firstLeg.earlierGoalUids == [Self.goalUid])
            #expect(entry.resolution?.contains("redirected") == true)
        }
    }

    @Test func aGoalDeletedAfterTheMoneyArrivedIsCheckedAsArrived() async throws {
        let (bank, account) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            try await Self.movedButNotRecorded(server, harness: harness, account: account)
            await server.bank.deleteGoal(accountUid: account, goalUid: Self.goalUid)
            try harness.ledger().recordHeld(
                accountUid: account, weekEnd: LocalDate(iso: Self.weekEnd)!, reason: "test", at: Instant.now)
            let checked = await harness.resolve(server, .check, account: account, endDate: Self.weekEnd)
            #expect(checked.status == .ok, "\(checked.diagnostics)")
            #expect(checked.output.contains("arrived") && checked.output.contains("no longer exists"))
            #expect(await Self.moved(server) == [99])
            let entries = try harness.ledger().accountWeeks()
            #expect(entries.first?.status == .done)
        }
    }

    @Test func anAbandonedWeekIsNeverMoved() async throws {
        let (bank, account) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            await server.bank.injectFaults([.first(1, [.addMoney], .rateLimited(retryAfter: "3600"))])
            #expect(await harness.run(server, endDate: Self.weekEnd).status == .temporaryFailure)
            #expect(Resolve.list(stateDirectory: harness.stateDirectory).output.contains("unconfirmed: Personal"))
            let abandoned = await harness.resolve(
                server, .abandon(reason: "moved by hand"), account: account, endDate: Self.weekEnd)
            #expect(abandoned.status == .ok)
            let rerun = await harness.run(server, endDate: Self.weekEnd)
            #expect(rerun.status == .ok)
            #expect(rerun.report?.accounts.first?.status == .abandoned)
            #expect(await Self.moved(server).isEmpty)
            let done = await harness.resolve(server, .retry, account: account, endDate: Self.weekEnd)
            #expect(done.status == .usage, "an abandoned week is not resolved again")
        }
    }

    // MARK: - Goals that are not active yet, and clocks that disagree

    @Test func aGoalBeingCreatedIsWaitedForAndNeverDuplicated() async throws {
        let (bank, account) = Self.bank(goal: false)
        let harness = try JobHarness(token: bank.state.token)
        let behaviour = EmulatorBehaviour(deduplicatesTransfers: false, goalActivationDelay: .milliseconds(1500))
        try await withEmulator(bank.state, behaviour: behaviour) { server in
            let result = await harness.run(server, endDate: Self.weekEnd)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await Self.moved(server) == [99])
            #expect(await server.bank.state.goals[account]?.count == 1)
        }
    }

    @Test func aGoalThatStaysCreatingHoldsTheWeekWithoutASecondGoal() async throws {
        var (bank, account) = Self.bank(goal: false)
        bank.goal(account, name: "Round-ups", uid: Self.goalUid, state: "CREATING")
        let harness = try JobHarness(token: bank.state.token)
        let accountUid = account
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            let result = await harness.run(
                server, endDate: Self.weekEnd, config: JobHarness.quickRetries + "goalWaitSeconds: 1\n")
            #expect(result.status == .configuration)
            #expect(result.report?.accounts.first?.status == .held)
            #expect(result.held.joined().contains("still CREATING"))
            #expect(await Self.moved(server).isEmpty)
            #expect(await server.bank.state.goals[account]?.count == 1)
            // The held week is in the ledger, for a person to send once the goal is active.
            #expect(Resolve.list(stateDirectory: harness.stateDirectory).output.contains("still CREATING"))
            await server.bank.update { $0.goals[accountUid]![0].state = "ACTIVE" }
            let resolved = await harness.resolve(server, .retry, account: account, endDate: Self.weekEnd)
            #expect(resolved.status == .ok, "\(resolved.diagnostics)")
            #expect(await Self.moved(server) == [99])
        }
    }

    @Test("the bank's clock minutes ahead or behind", arguments: [-900, -300, 300, 900])
    func aSkewedBankClockIsAllowedFor(seconds: Int) async throws {
        let (bank, account) = Self.bank()
        let behaviour = EmulatorBehaviour(deduplicatesTransfers: false, clockOffset: .seconds(seconds))
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: behaviour) { server in
            await server.bank.injectFaults([.first(1, [.addMoney], .dropAfterApplying)])
            let first = await harness.run(server, endDate: Self.weekEnd)
            #expect(first.status == .ok, "\(first.diagnostics)")
            #expect(await harness.run(server, endDate: Self.weekEnd).status == .ok)
            #expect(await Self.moved(server) == [99])
            let feed = await server.bank.state.feeds[account] ?? []
            #expect(feed.contains { $0.source == "INTERNAL_TRANSFER" })
        }
    }

    /// A week begun before the bank's own round-up was switched on is finished, not skipped:
    /// its unconfirmed transfer is found in the feed, and nothing is sent again.
    @Test func aWeekBegunIsFinishedWhenTheBanksRoundUpIsSwitchedOn() async throws {
        let (bank, account) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            try await Self.movedButNotRecorded(server, harness: harness, account: account)
            await server.bank.update { state in state.accounts[0].nativeRoundUp = true }
            let result = await harness.run(server, endDate: Self.weekEnd)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(result.report?.accounts.map(\.status) == [.alreadyTransferred])
            #expect(await Self.moved(server) == [99])
            #expect(
                try harness.ledger().accountWeek(accountUid: account, weekEnd: LocalDate(iso: Self.weekEnd)!)?.status
                    == .done
            )
            // A week not begun is skipped.
            let next = await harness.run(server, endDate: "2026-11-08")
            #expect(next.report?.accounts.map(\.status) == [.skipped], "\(next.diagnostics) \(next.output)")
        }
    }

    // MARK: - One feed item, one week

    /// Records the week's transfer as decided and sent two hours ago, with nothing moved:
    /// its week's end and when.
    static func sentTwoHoursAgo(_ harness: JobHarness, account: String) throws -> (LocalDate, Instant) {
        let weekEnd = LocalDate(iso: Self.weekEnd)!
        let twoHoursAgo = Instant.now.adding(milliseconds: -7_200_000)
        try FileManager.default.createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
        var intent = AccountWeek(
            accountUid: account, weekEnd: weekEnd, status: .pending, currency: "GBP", minorUnits: 99,
            goalUid: Self.goalUid, goalName: "Round-ups",
            transferUid: TransferUID.transferUid(accountUid: account, goalUid: Self.goalUid, weekEnd: weekEnd))
        intent.bound(to: londonWeek(Self.weekEnd))
        try harness.ledger().recordDecision(intent, at: twoHoursAgo)
        try harness.ledger().recordSend(
            accountUid: account, weekEnd: weekEnd, leg: 0, bankTime: twoHoursAgo, at: twoHoursAgo)
        return (weekEnd, twoHoursAgo)
    }

    /// The week before was sent and its answer lost (the money moved); this week, of the
    /// same amount, is held over that transfer. A person who accepts the transfer as this
    /// week's is refused, since the week before may have made it; that week then finds it.
    @Test func acceptingTheTransferAnUnconfirmedWeekMayHaveMadeIsRefused() async throws {
        var (bank, account) = Self.bank()
        let earlier = LocalDate(iso: "2026-11-08")!
        bank.spend(account, 101, settled: londonWeek("2026-11-08").start.adding(milliseconds: 3_600_000))
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            let transferUid = TransferUID.transferUid(accountUid: account, goalUid: Self.goalUid, weekEnd: earlier)
            try FileManager.default.createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
            var intent = AccountWeek(
                accountUid: account, weekEnd: earlier, status: .pending, currency: "GBP", minorUnits: 99,
                goalUid: Self.goalUid, goalName: "Round-ups", transferUid: transferUid)
            intent.bound(to: londonWeek("2026-11-08"))
            try harness.ledger().recordDecision(intent, at: Instant.now.adding(milliseconds: -2000))
            try harness.ledger().recordSend(
                accountUid: account, weekEnd: earlier, leg: 0, bankTime: Instant.now.adding(milliseconds: -1500),
                at: Instant.now.adding(milliseconds: -1500))
            let token = await server.bank.state.token
            _ = await server.bank.handle(
                EmulatorRequest(
                    method: "PUT",
                    path: "/api/v2/account/\(account)/savings-goals/\(Self.goalUid)/add-money/\(transferUid)",
                    headers: ["authorization": "Bearer \(token)"],
                    body: Array(#"{"amount":{"currency":"GBP","minorUnits":99}}"#.utf8)))
            let held = await harness.run(server, endDate: Self.weekEnd)
            #expect(held.status == .configuration, "\(held.diagnostics)")
            let item = try #require(
                await server.bank.state.feeds[account]?.first {
                    $0.source == "INTERNAL_TRANSFER" && $0.direction == "OUT"
                })
            let accepted = await harness.resolve(
                server, .accept(feedItem: item.feedItemUid.lowercased()), account: account, endDate: Self.weekEnd)
            #expect(accepted.status == .usage, "\(accepted.diagnostics)")
            #expect(accepted.diagnostics.joined().contains("may be the transfer of the week ending 2026-11-08"))
            let finished = await harness.run(server, endDate: "2026-11-08")
            // (Exit 78 all the same: this week is still held, for the person to send.)
            #expect(finished.status == .configuration, "\(finished.diagnostics)")
            #expect(finished.report?.accounts.first?.status == .alreadyTransferred)
            #expect(try harness.ledger().accountWeek(accountUid: account, weekEnd: earlier)?.status == .done)
            #expect(await Self.moved(server) == [99])
        }
    }

    /// This week was sent two hours ago and nothing moved; another state directory has just
    /// moved a transfer of the same amount. Made long after this week's last send could have
    /// made it, it is not taken as this week's: the week is held, and nothing is sent.
    @Test func aTransferMadeLongAfterTheLastSendIsNotTheWeeks() async throws {
        let (bank, account) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        let other = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            _ = try Self.sentTwoHoursAgo(harness, account: account)
            #expect(await other.run(server, endDate: Self.weekEnd).status == .ok)
            let result = await harness.run(server, endDate: Self.weekEnd)
            #expect(result.status == .configuration, "\(result.diagnostics)")
            #expect(result.report?.accounts.first?.detail?.contains("after this week's last send") == true)
            #expect(await Self.moved(server) == [99])
        }
    }

    /// A week held for another reason (here, by hand), and a transfer of its amount made
    /// long after its last send: `resolve --retry` holds it again over that transfer, for
    /// the person to see, and sends only when asked again.
    @Test func aRetryOfAHeldWeekShowsALateTransferFirst() async throws {
        let (bank, account) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        let other = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            let (weekEnd, twoHoursAgo) = try Self.sentTwoHoursAgo(harness, account: account)
            try harness.ledger().recordHeld(accountUid: account, weekEnd: weekEnd, reason: "by hand", at: twoHoursAgo)
            #expect(await other.run(server, endDate: Self.weekEnd).status == .ok)
            let first = await harness.resolve(server, .retry, account: account, endDate: Self.weekEnd)
            #expect(first.status == .configuration, "\(first.diagnostics)")
            #expect(first.diagnostics.joined().contains("after this week's last send"), "\(first.diagnostics)")
            #expect(await Self.moved(server) == [99])
            let second = await harness.resolve(server, .retry, account: account, endDate: Self.weekEnd)
            #expect(second.status == .ok, "\(second.diagnostics)")
            #expect(await Self.moved(server) == [99, 99])
        }
    }
}
