import Foundation
import JobTestSupport
import RoundUp
import RoundUpCommands
import RoundUpVocabulary
import StarlingEmulator
import TestSupport
import Testing

/// `saveInto`: a week divided among several goals, a leg for each, each moved once, through
/// libcurl against the emulator with deduplication off (a transfer sent twice shows).
@Suite struct SeveralGoalsTests {
    static let weekEnd = "2026-11-15"
    static let emergency = "90000000-0000-4000-8000-0000000000e1"
    static let holiday = "90000000-0000-4000-8000-0000000000e2"
    static let roundUps = "90000000-0000-4000-8000-0000000000e3"
    static let noDedup = EmulatorBehaviour(deduplicatesTransfers: false)
    static let fill = "saveInto:\n  fill: [Emergency fund, Holiday, Round-ups]\n"

    /// One GBP account whose week rounds up to 2.29, with Emergency fund 1.00 short of its
    /// target, Holiday at its target, and Round-ups without one.
    static func bank(emergencyRoom: Int64 = 100, roundUpsTarget: Int64? = nil) -> (TestBank, String) {
        var bank = TestBank()
        let account = bank.account("GBP", name: "Personal", balance: 100_00)
        bank.goal(account, name: "Emergency fund", uid: emergency, target: 500_00, saved: 500_00 - emergencyRoom)
        bank.goal(account, name: "Holiday", uid: holiday, target: 300_00, saved: 300_00)
        bank.goal(account, name: "Round-ups", uid: roundUps, target: roundUpsTarget, saved: 12_00)
        let start = londonWeek(weekEnd).start
        // 0.99 + 0.99 + 0.31 = 2.29 to round up.
        for (hour, spent) in [(1, Int64(1)), (2, 1), (3, 69)] {
            bank.spend(account, spent, settled: start.adding(milliseconds: Int64(hour) * 3_600_000))
        }
        return (bank, account)
    }

    /// Each transfer the bank made: its goal and amount.
    static func moved(_ server: EmulatorServer) async -> [String: Int64] {
        await server.bank.transfers.reduce(into: [:]) { $0[$1.goalUid, default: 0] += $1.amount.minorUnits }
    }

    @Test func fillMovesTheWeekInOrderUpToEachTargetAndARerunMovesNothing() async throws {
        let (bank, account) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            let result = await harness.run(server, endDate: Self.weekEnd, config: JobHarness.quickRetries + Self.fill)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await Self.moved(server) == [Self.emergency: 100, Self.roundUps: 129])
            #expect(await server.bank.transfers.count == 2)
            let detail = result.report?.accounts.first?.detail ?? ""
            #expect(
                detail == #"moved 2.29 GBP: 1.00 into "Emergency fund" (now full), 1.29 into "Round-ups""#, "\(detail)")
            let week = try #require(
                try harness.ledger().accountWeek(accountUid: account, weekEnd: LocalDate(iso: Self.weekEnd)!))
            #expect(week.status == .done && week.minorUnits == 229)
            #expect(
                week.legs.map(\.goalUid) == [Self.emergency, Self.roundUps]
                    && week.legs.map(\.minorUnits) == [100, 129])
            #expect(Set(week.legs.compactMap(\.transferUid)).count == 2)
            let again = await harness.run(server, endDate: Self.weekEnd, config: JobHarness.quickRetries + Self.fill)
            #expect(again.status == .ok)
            #expect(again.report?.accounts.first?.status == .alreadyTransferred)
            #expect(
                again.report?.accounts.first?.detail?.contains(#"1.00 into "Emergency fund", 1.29 into "Round-ups""#)
                    == true)
            #expect(await server.bank.transfers.count == 2)
        }
    }

    @Test func sharesMoveWholePercentsWithTheSpareUnitToTheLargestRemainder() async throws {
        var (bank, _) = Self.bank()
        // Holiday has room again: 70 % of 2.29 is 1.603, 30 % is 0.687.
        bank.state.goals[bank.state.accounts[0].uid]![1].target = nil
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            let config = JobHarness.quickRetries + "saveInto:\n  shares: {Holiday: 70, Round-ups: 30}\n"
            let result = await harness.run(server, endDate: Self.weekEnd, config: config)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await Self.moved(server) == [Self.holiday: 160, Self.roundUps: 69])
            let again = await harness.run(server, endDate: Self.weekEnd, config: config)
            #expect(again.status == .ok)
            #expect(await server.bank.transfers.count == 2)
        }
    }

    @Test func whenEveryGoalIsFullTheWeekStaysInTheAccount() async throws {
        let (bank, account) = Self.bank(emergencyRoom: 0, roundUpsTarget: 12_00)
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            // With whenAllFull: last, the money would go to the last goal (a dry run records nothing).
            let last = await harness.run(
                server, endDate: Self.weekEnd, dryRun: true,
                config: JobHarness.quickRetries + Self.fill + "  whenAllFull: last\n")
            #expect(last.status == .ok)
            #expect(
                last.report?.accounts.first?.detail == #"a real run would move 2.29 GBP into "Round-ups""#,
                "\(last.report?.accounts.first?.detail ?? "")")
            let result = await harness.run(server, endDate: Self.weekEnd, config: JobHarness.quickRetries + Self.fill)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await server.bank.transfers.isEmpty)
            #expect(result.report?.accounts.first?.status == .heldBack)
            #expect(result.report?.accounts.first?.detail?.contains("every goal is at its target") == true)
            let week = try #require(
                try harness.ledger().accountWeek(accountUid: account, weekEnd: LocalDate(iso: Self.weekEnd)!))
            #expect(week.status == .nothing && week.note?.contains("whenAllFull: stay") == true)
        }
    }

    @Test func aLegThatFailsIsFinishedByTheNextRunAndTheOtherIsNotSentAgain() async throws {
        let (bank, account) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            // Every send into Round-ups is refused as the bank being unavailable, before it acts.
            await server.bank.injectFaults([
                FaultRule(
                    endpoints: [.addMoney], pathContains: Self.roundUps, when: .always, faults: [.serverError(503)])
            ])
            let config = JobHarness.quickRetries + "retryAttempts: 1\n" + Self.fill
            let first = await harness.run(server, endDate: Self.weekEnd, config: config)
            #expect(first.status != .ok)
            #expect(
                first.report?.accounts.first?.status == .partlyTransferred,
                "\(first.report?.accounts.first?.detail ?? "")")
            #expect(await Self.moved(server) == [Self.emergency: 100])
            let week = try #require(
                try harness.ledger().accountWeek(accountUid: account, weekEnd: LocalDate(iso: Self.weekEnd)!))
            #expect(week.legs.map(\.status) == [.done, .pending] && WeekFate(week) == .partlyTransferred)
            await server.bank.injectFaults([])
            let second = await harness.run(server, endDate: Self.weekEnd, config: config)
            #expect(second.status == .ok, "\(second.diagnostics)")
            #expect(second.report?.accounts.first?.status == .transferred)
            #expect(await Self.moved(server) == [Self.emergency: 100, Self.roundUps: 129])
            let puts = await server.bank.requests.filter {
                $0.endpoint == .addMoney && $0.path.contains(Self.emergency)
            }
            #expect(puts.count == 1, "Emergency fund's leg arrived and is never sent again")
        }
    }

    /// A run killed between legs: the first leg's money moved but its answer was never
    /// recorded, and the second was never sent. The next run finds the first in the feed,
    /// records it, and sends only the second.
    @Test func aRunKilledBetweenLegsIsFinishedWithoutSendingTheFirstAgain() async throws {
        let (bank, account) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            let weekEnd = LocalDate(iso: Self.weekEnd)!
            let legs = [(Self.emergency, "Emergency fund", Int64(100)), (Self.roundUps, "Round-ups", 129)].enumerated()
                .map { index, part in
                    var leg = TransferLeg(index: index, status: .pending, minorUnits: part.2)
                    (leg.goalUid, leg.goalName) = (part.0, part.1)
                    leg.transferUid = TransferUID.transferUid(
                        accountUid: account, goalUid: part.0, weekEnd: weekEnd, leg: index)
                    return leg
                }
            try FileManager.default.createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
            try harness.ledger().recordDecision(
                AccountWeek(accountUid: account, weekEnd: weekEnd, status: .pending, currency: "GBP", legs: legs),
                at: Instant.now.adding(milliseconds: -1000))
            try harness.ledger().recordSend(
                accountUid: account, weekEnd: weekEnd, leg: 0, bankTime: Instant.now.adding(milliseconds: -500),
                at: Instant.now.adding(milliseconds: -500))
            let state = await server.bank.state
            let response = await server.bank.handle(
                EmulatorRequest(
                    method: "PUT",
                    path:
                        "/api/v2/account/\(account)/savings-goals/\(Self.emergency)/add-money/\(legs[0].transferUid!)",
                    headers: ["authorization": "Bearer \(state.token)"],
                    body: Array(#"{"amount":{"currency":"GBP","minorUnits":100}}"#.utf8)))
            #expect(response.status == 200)
            let result = await harness.run(server, endDate: Self.weekEnd, config: JobHarness.quickRetries + Self.fill)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await Self.moved(server) == [Self.emergency: 100, Self.roundUps: 129])
            #expect(await server.bank.transfers.count == 2)
            let week = try #require(try harness.ledger().accountWeek(accountUid: account, weekEnd: weekEnd))
            #expect(week.status == .done && week.legs.map(\.confirmation) == [.feed, .bank])
        }
    }

    /// The answer to one leg's send is lost after the bank acted: the feed shows it, and it
    /// is not sent again; the other leg moves as usual.
    @Test func aLostAnswerToOneLegIsFoundInTheFeed() async throws {
        let (bank, _) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            await server.bank.injectFaults([
                FaultRule(
                    endpoints: [.addMoney], pathContains: Self.roundUps, when: .first(1),
                    faults: [.failAfterApplying(502)])
            ])
            let result = await harness.run(server, endDate: Self.weekEnd, config: JobHarness.quickRetries + Self.fill)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await Self.moved(server) == [Self.emergency: 100, Self.roundUps: 129])
            #expect(await server.bank.transfers.count == 2)
        }
    }

    /// The bank refuses the second leg (its goal gone): the week is held with the first leg
    /// arrived. `resolve --redirect` moves the held leg, and only it, into another goal, even
    /// the first leg's, under a transfer uid of its own.
    @Test func aRedirectMovesTheOneLegStillOpen() async throws {
        let (bank, account) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            await server.bank.injectFaults([
                FaultRule(
                    endpoints: [.addMoney], pathContains: Self.roundUps, when: .always, faults: [.serverError(404)])
            ])
            let config = JobHarness.quickRetries + Self.fill
            let first = await harness.run(server, endDate: Self.weekEnd, config: config)
            #expect(first.status == .configuration)
            #expect(first.report?.accounts.first?.status == .held)
            let weekEnd = LocalDate(iso: Self.weekEnd)!
            let held = try #require(try harness.ledger().accountWeek(accountUid: account, weekEnd: weekEnd))
            #expect(held.status == .held && held.legs.map(\.status) == [.done, .held])
            let done = await harness.resolve(
                server, .retry, account: account, endDate: Self.weekEnd, leg: 0, config: config)
            #expect(
                done.status == .usage
                    && done.diagnostics.joined().contains("is transferred: there is nothing to resolve"))
            await server.bank.injectFaults([])
            let redirect = await harness.resolve(
                server, .redirect(goal: "Emergency fund"), account: account, endDate: Self.weekEnd, config: config)
            #expect(redirect.status == .ok, "\(redirect.diagnostics)")
            #expect(await Self.moved(server) == [Self.emergency: 229])
            #expect(await server.bank.transfers.count == 2)
            let settled = try #require(try harness.ledger().accountWeek(accountUid: account, weekEnd: weekEnd))
            #expect(settled.status == .done && settled.legs.map(\.goalUid) == [Self.emergency, Self.emergency])
            #expect(settled.legs[1].earlierGoalUids == [Self.roundUps])
            #expect(Set(settled.legs.compactMap(\.transferUid)).count == 2)
            let again = await harness.run(server, endDate: Self.weekEnd, config: config)
            #expect(again.status == .ok && again.report?.accounts.first?.status == .alreadyTransferred)
            #expect(await server.bank.transfers.count == 2)
        }
    }

    /// A week held with two legs open: resolve asks which, and a retry of one sends only it;
    /// the next run finishes the other.
    @Test func aWeekWithTwoLegsOpenIsResolvedLegByLeg() async throws {
        let (bank, account) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            await server.bank.injectFaults([
                FaultRule(endpoints: [.addMoney], when: .always, faults: [.serverError(404)])
            ])
            let config = JobHarness.quickRetries + Self.fill
            _ = await harness.run(server, endDate: Self.weekEnd, config: config)
            let weekEnd = LocalDate(iso: Self.weekEnd)!
            let held = try #require(try harness.ledger().accountWeek(accountUid: account, weekEnd: weekEnd))
            #expect(held.status == .held && held.legs.map(\.status) == [.held, .held])
            await server.bank.injectFaults([])
            let which = await harness.resolve(server, .retry, account: account, endDate: Self.weekEnd, config: config)
            #expect(which.status == .usage && which.diagnostics.joined().contains("name one with --leg N"))
            let retry = await harness.resolve(
                server, .retry, account: account, endDate: Self.weekEnd, leg: 1, config: config)
            #expect(retry.status == .ok, "\(retry.diagnostics)")
            #expect(await Self.moved(server) == [Self.roundUps: 129])
            let next = await harness.run(server, endDate: Self.weekEnd, config: config)
            #expect(next.status == .ok, "\(next.diagnostics)")
            #expect(await Self.moved(server) == [Self.emergency: 100, Self.roundUps: 129])
            #expect(await server.bank.transfers.count == 2)
        }
    }

    /// `fill: app`: the goals with a target in the order the app shows them, then the first
    /// without one; one request for the order, per account and run.
    @Test func fillInTheAppsOrderAsksForTheOrderOnceAndNeedsItsScope() async throws {
        var (bank, account) = Self.bank(emergencyRoom: 100)
        // The app shows Holiday (room 0.50) first, then Emergency fund, then Round-ups.
        bank.state.goals[account]![1].target = 300_50
        bank.state.goals[account]![1].sortOrder = 0
        bank.state.goals[account]![0].sortOrder = 1
        bank.state.goals[account]![2].sortOrder = 2
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            let config = JobHarness.quickRetries + "saveInto:\n  fill: app\n"
            let result = await harness.run(server, endDate: Self.weekEnd, config: config)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await Self.moved(server) == [Self.holiday: 50, Self.emergency: 100, Self.roundUps: 79])
            let asked = await server.bank.requests.filter { $0.endpoint == .spaces }
            #expect(asked.count == 1)
        }
        var unscoped = bank
        unscoped.state.scopes.removeAll { $0 == "space:read" }
        try await withEmulator(unscoped.state, behaviour: Self.noDedup) { server in
            let other = try JobHarness(token: bank.state.token)
            let result = await other.run(
                server, endDate: Self.weekEnd, config: JobHarness.quickRetries + "saveInto:\n  fill: app\n")
            #expect(result.status == .configuration)
            #expect(result.report?.accounts.first?.detail?.contains("space:read") == true)
            #expect(await server.bank.transfers.isEmpty)
        }
    }

    /// Two state directories, one saving the week into one goal and one dividing it: whichever
    /// runs second sees the first's transfers (one of the week's amount, or parts adding up to
    /// it) and holds the week, so it is never saved twice.
    @Test(arguments: [
        (Self.fill, "savingsGoal: Holiday\n"), ("savingsGoal: Holiday\n", Self.fill),
        ("saveInto:\n  shares: {A: 20, B: 20, C: 20, D: 20, E: 20}\n", "savingsGoal: Holiday\n"),
    ])
    func aSecondStateDirectoryDividingDifferentlyHoldsTheWeek(first: String, second: String) async throws {
        let (bank, _) = Self.bank()
        let one = try JobHarness(token: bank.state.token)
        let other = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            let moved = await one.run(server, endDate: Self.weekEnd, config: JobHarness.quickRetries + first)
            #expect(moved.status == .ok, "\(moved.diagnostics)")
            let before = await Self.moved(server)
            let held = await other.run(server, endDate: Self.weekEnd, config: JobHarness.quickRetries + second)
            #expect(held.status == .configuration, "\(held.report?.accounts.first?.detail ?? "")")
            #expect(held.report?.accounts.first?.status == .held)
            #expect(await Self.moved(server) == before, "nothing moved twice")
        }
    }

    /// A person gives up the leg left open: what arrived stays counted as moved (the week
    /// is transferred, of that much), and only the rest is abandoned.
    @Test func abandoningAPartlyTransferredWeekKeepsWhatArrived() async throws {
        let (bank, account) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            await server.bank.injectFaults([
                FaultRule(
                    endpoints: [.addMoney], pathContains: Self.roundUps, when: .always, faults: [.serverError(503)])
            ])
            let config = JobHarness.quickRetries + "retryAttempts: 1\n" + Self.fill
            _ = await harness.run(server, endDate: Self.weekEnd, config: config)
            let abandon = await harness.resolve(
                server, .abandon(reason: "moved by hand"), account: account, endDate: Self.weekEnd, config: config)
            #expect(abandon.status == .ok, "\(abandon.diagnostics)")
            #expect(
                abandon.output.contains(
                    #"1.29 GBP (1.29 into "Round-ups") stays in the account, and 1.00 into "Emergency fund", which arrived, stays in its goal"#
                ), "\(abandon.output)")
            let week = try #require(
                try harness.ledger().accountWeek(accountUid: account, weekEnd: LocalDate(iso: Self.weekEnd)!))
            #expect(week.status == .done && week.minorUnits == 100 && week.legs.map(\.status) == [.done, .abandoned])
            #expect(WeekFate(week) == .transferred)
            await server.bank.injectFaults([])
            let again = await harness.run(server, endDate: Self.weekEnd, config: config)
            #expect(again.status == .ok)
            #expect(
                again.report?.accounts.first?.detail?.hasPrefix(
                    #"an earlier run moved 1.00 GBP: 1.00 into "Emergency fund"; 1.29 into "Round-ups" given up by a person"#
                )
                    == true,
                "\(again.report?.accounts.first?.detail ?? "")")
            #expect(await Self.moved(server) == [Self.emergency: 100])
        }
    }

    /// A goal the run creates stays CREATING past the wait: the week is held, divided as it
    /// would have been and recorded with every leg, and no later run divides it again or
    /// creates another goal.
    @Test func aWeekHeldForAGoalBeingCreatedIsRecordedDivided() async throws {
        let (bank, account) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        let slow = EmulatorBehaviour(deduplicatesTransfers: false, goalActivationDelay: .seconds(600))
        try await withEmulator(bank.state, behaviour: slow) { server in
            let config = JobHarness.quickRetries + "goalWaitSeconds: 0\nsaveInto:\n  fill: [Emergency fund, Spare]\n"
            let held = await harness.run(server, endDate: Self.weekEnd, config: config)
            #expect(held.status == .configuration)
            #expect(held.report?.accounts.first?.status == .held)
            let week = try #require(
                try harness.ledger().accountWeek(accountUid: account, weekEnd: LocalDate(iso: Self.weekEnd)!))
            #expect(week.status == .held && week.legs.map(\.minorUnits) == [100, 129])
            #expect(week.legs.map(\.goalName) == ["Emergency fund", "Spare"])
            let changed = JobHarness.quickRetries + "goalWaitSeconds: 0\nsaveInto:\n  shares: {Spare: 50, Other: 50}\n"
            let again = await harness.run(server, endDate: Self.weekEnd, config: changed)
            #expect(again.report?.accounts.first?.status == .held)
            let goals = await server.bank.state.goals[account]?.map(\.name) ?? []
            #expect(goals.filter { $0 == "Spare" }.count == 1 && !goals.contains("Other"), "\(goals)")
            #expect(await server.bank.transfers.isEmpty)
        }
    }

    /// A goal named in the config with the access token in its name (pasted there by
    /// mistake) is created, but the ledger never keeps the token.
    @Test func aGoalNameHoldingTheTokenKeepsItOutOfTheLedger() async throws {
        let (bank, _) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            let config =
                JobHarness.quickRetries + "saveInto:\n  shares: {Round-ups: 50, \"Hol \(bank.state.token)\": 50}\n"
            let result = await harness.run(server, endDate: Self.weekEnd, config: config)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await server.bank.transfers.count == 2)
            // No file the run wrote holds it: the ledger (and any journal beside it), the reports.
            let files = FileManager.default.enumerator(atPath: harness.stateDirectory)?.allObjects as? [String] ?? []
            #expect(files.contains("ledger.sqlite"))
            for file in files {
                let data = (try? Data(contentsOf: URL(fileURLWithPath: harness.stateDirectory + "/" + file))) ?? Data()
                #expect(data.range(of: Data(bank.state.token.utf8)) == nil, "the token is in \(file)")
            }
            let names = try harness.ledger().accountWeeks().flatMap(\.legs).compactMap(\.goalName)
            #expect(names.contains("Hol <redacted>"), "\(names)")
        }
    }

    @Test func aChangeOfSaveIntoNeverDividesADecidedWeekAgain() async throws {
        let (bank, _) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            await server.bank.injectFaults([
                FaultRule(
                    endpoints: [.addMoney], pathContains: Self.roundUps, when: .first(3), faults: [.serverError(503)])
            ])
            let config = JobHarness.quickRetries + "retryAttempts: 1\n"
            _ = await harness.run(server, endDate: Self.weekEnd, config: config + Self.fill)
            #expect(await Self.moved(server) == [Self.emergency: 100])
            let changed = config + "saveInto:\n  shares: {Holiday: 50, Round-ups: 50}\n"
            let second = await harness.run(server, endDate: Self.weekEnd, config: changed)
            #expect(second.status == .ok, "\(second.diagnostics)")
            #expect(await Self.moved(server) == [Self.emergency: 100, Self.roundUps: 129])
        }
    }

    @Test func aGoalInAnotherCurrencyOrArchivedIsNamedAsAMistake() async throws {
        var (bank, account) = Self.bank()
        bank.state.goals[account]![1].state = "ARCHIVED"
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            let result = await harness.run(server, endDate: Self.weekEnd, config: JobHarness.quickRetries + Self.fill)
            #expect(result.status == .configuration)
            #expect(result.report?.accounts.first?.detail?.contains(#"saveInto names the goal "Holiday""#) == true)
            #expect(result.report?.accounts.first?.detail?.contains("which is archived") == true)
            #expect(await server.bank.transfers.isEmpty)
        }
    }

    @Test func aGoalWithoutATargetBeforeTheLastIsRefusedUnderFill() async throws {
        let (bank, _) = Self.bank()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            let config = JobHarness.quickRetries + "saveInto:\n  fill: [Round-ups, Emergency fund]\n"
            let result = await harness.run(server, endDate: Self.weekEnd, config: config)
            #expect(result.status == .configuration)
            #expect(result.report?.accounts.first?.detail?.contains(#""Round-ups" has no target"#) == true)
            #expect(await server.bank.transfers.isEmpty)
        }
    }

    @Test func aGoalReachingItsTargetInACatchUpTakesNoMoreInTheRunsLaterWeeks() async throws {
        // Emergency fund has room for 3.00: the first week's 2.29 fits, and 0.71 of the second's fills it.
        var (bank, account) = Self.bank(emergencyRoom: 300)
        let earlier = londonWeek("2026-11-08").start
        for (hour, spent) in [(1, Int64(1)), (2, 1), (3, 69)] {
            bank.spend(account, spent, settled: earlier.adding(milliseconds: Int64(hour) * 3_600_000))
        }
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, behaviour: Self.noDedup) { server in
            let config = JobHarness.quickRetries + Self.fill
            _ = await harness.run(server, endDate: "2026-11-01", config: config)
            let result = await harness.run(server, endDate: Self.weekEnd, catchUp: true, config: config)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(result.tally.weeks.count == 2)
            #expect(await Self.moved(server) == [Self.emergency: 300, Self.roundUps: 158])
        }
    }
}
