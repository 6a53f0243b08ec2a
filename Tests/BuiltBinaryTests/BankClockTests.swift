import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// Each transfer claimed once, by the bank's own clock: a bank clock minutes off with lost
/// answers, two weeks of the same amount, another ledger's transfer of the week's amount,
/// and clocks an hour apart. Each runs the built binary against the emulator, which does
/// not deduplicate transfers and puts its own clock in every answer's `Date` header, and
/// prints a line for `scripts/robustness`.
@Suite struct BankClockTests {
    static let roundUps = "90e00000-0000-4000-8000-0000000000c1"

    /// A bank with one GBP account and its goal "Round-ups".
    static func bank(token: String) -> (TestBank, String) {
        var bank = TestBank(token: token)
        let gbp = bank.account("GBP", name: "Personal")
        bank.goal(gbp, name: "Round-ups", uid: roundUps)
        return (bank, gbp)
    }

    /// The bank with 7.71 spent in the week to 15 Nov (0.29 to round up), and a home whose
    /// config reads the feed a second time at once after an unanswered transfer.
    static func lostAnswerSetup(token: String) throws -> (TestBank, TemporaryDirectory, String) {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: token)
        bank.spend(gbp, 7_71, settled: Self.on("2026-11-12"))
        return (bank, home, try writeConfig("feedRecheckSeconds: 0\n", in: home))
    }

    /// Runs the week to 15 Nov with `config`.
    static func runWeek(_ server: EmulatorServer, _ home: TemporaryDirectory, _ config: String) async throws
        -> Execution
    {
        try await run(server, home, ["--end-date", "2026-11-15", "--config", config])
    }

    /// 10:00 UTC on `date`.
    static func on(_ date: String) -> Instant { Instant(iso8601: "\(date)T10:00:00Z")! }

    static func run(_ server: EmulatorServer, _ home: TemporaryDirectory, _ arguments: [String]) async throws
        -> Execution
    {
        try await roundup(
            ["run", "--api-base-url", server.baseURL] + arguments,
            environment: binaryEnvironment(home, token: await server.bank.state.token))
    }

    static func moved(_ server: EmulatorServer) async -> [Int64] {
        await server.bank.transfers.map(\.amount.minorUnits)
    }

    static func report(_ execution: Execution) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(execution.stdout.utf8)) as? [String: Any],
            "\(execution.stdout)")
    }

    /// Finding 1: the bank's clock 15 minutes behind, and every answer to add-money lost after
    /// the money moved. The feed is searched on the bank's clock, so the transfer is found
    /// after the first send, and three runs move the week once.
    @Test func aBankClockFifteenMinutesBehindWithLostAnswersMovesTheWeekOnce() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "clock-behind-lost")
        bank.spend(gbp, 7_71, settled: Self.on("2026-11-12"))
        let behind = EmulatorBehaviour(clockOffset: .seconds(-900))
        try await withEmulator(bank.state, behaviour: behind) { server in
            await server.bank.injectFaults([
                FaultRule(endpoints: [.addMoney], when: .always, faults: [.dropAfterApplying])
            ])
            var statuses: [Int32] = []
            for _ in 1...3 {
                let result = try await Self.run(server, home, ["--end-date", "2026-11-15"])
                statuses.append(result.status)
            }
            let moved = await Self.moved(server)
            #expect(moved == [29], "\(moved)")
            #expect(statuses == [0, 0, 0])
            robustnessLine(
                "the bank's clock 15 minutes behind, every add-money answer lost, three runs",
                "found in the feed on the bank's clock: 0.29 moved once (exits \(statuses))",
                moneyExactlyOnce: moved == [29])
        }
    }

    /// Finding 2: the same clock, and two weeks that round up to the same amount. The later
    /// week never takes the earlier week's transfer for its own: the earlier week claims its
    /// feed item, and each week moves once.
    @Test func twoWeeksOfOneAmountEachMoveOnceWithTheBankClockBehind() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "clock-behind-two-weeks")
        bank.spend(gbp, 7_71, settled: Self.on("2026-11-05"))
        bank.spend(gbp, 7_71, settled: Self.on("2026-11-12"))
        let behind = EmulatorBehaviour(clockOffset: .seconds(-900))
        try await withEmulator(bank.state, behaviour: behind) { server in
            let first = try await Self.run(server, home, ["--end-date", "2026-11-08"])
            #expect(first.status == 0, "\(first.stderr)")
            let second = try await Self.run(server, home, ["--end-date", "2026-11-15", "--json"])
            #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
            let account = try #require((try Self.report(second)["accounts"] as? [[String: Any]])?.first)
            #expect(account["status"] as? String == "transferred", "\(account)")
            let moved = await Self.moved(server)
            #expect(moved == [29, 29])
            // The earlier week, confirmed by the bank's answer, now names its feed item.
            let history = try await roundup(
                ["history", "--json"], environment: binaryEnvironment(home, token: bank.state.token))
            #expect(history.stdout.contains("e0000001-"), "\(history.stdout)")
            robustnessLine(
                "the bank's clock 15 minutes behind, weeks to 8 and 15 Nov of the same amount",
                "each week moved its own 0.29 (exits \(first.status), \(second.status))",
                moneyExactlyOnce: moved == [29, 29])
        }
    }

    /// Finding 3: ledger A saves the Sunday week to 22 Nov (0.67); ledger B, ending its weeks
    /// on Wednesday with its own state directory and the same goal, then saves the window to
    /// 25 Nov, whose 24 Nov payment also rounds up to 0.67. B finds A's transfer, which it
    /// did not send: it holds the week (78) rather than take it as moved, and `--retry`
    /// saves the 24 Nov payment.
    @Test func anotherLedgersTransferOfTheSameAmountHoldsTheWeek() async throws {
        let (sunday, wednesday) = (try TemporaryDirectory(), try TemporaryDirectory())
        var (bank, gbp) = Self.bank(token: "other-ledger-same-amount")
        bank.spend(gbp, 1_33, settled: Self.on("2026-11-17"))
        bank.spend(gbp, 5_33, settled: Self.on("2026-11-24"))
        let config = try writeConfig("weekEndsOn: wednesday\n", in: wednesday)
        try await withEmulator(bank.state) { server in
            let first = try await Self.run(server, sunday, ["--end-date", "2026-11-22"])
            #expect(first.status == 0, "\(first.stderr)")
            let second = try await Self.run(server, wednesday, ["--end-date", "2026-11-25", "--config", config])
            #expect(second.status == 78, "\(second.stdout)\(second.stderr)")
            #expect(second.stdout.contains("did not send"), "\(second.stdout)")
            #expect(await Self.moved(server) == [67])
            let retry = try await roundup(
                [
                    "resolve", "--api-base-url", server.baseURL, "--config", config, "--account", gbp, "--end-date",
                    "2026-11-25", "--retry",
                ],
                environment: binaryEnvironment(wednesday, token: bank.state.token))
            #expect(retry.status == 0, "\(retry.stdout)\(retry.stderr)")
            let moved = await Self.moved(server)
            #expect(moved == [67, 67])
            robustnessLine(
                "another ledger's transfer of this week's amount (Sunday and Wednesday ledgers, one goal)",
                "the Wednesday week is held (exit \(second.status)); --retry saves the 24 Nov payment",
                moneyExactlyOnce: moved == [67, 67])
        }
    }

    /// Clocks two hours apart: a run sends nothing (75) and says why, in its summary and its
    /// report; `check` says so too; a dry run says a real run would send nothing.
    @Test func clocksAnHourApartSendNothing() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "clock-hours-ahead")
        bank.spend(gbp, 7_71, settled: Self.on("2026-11-12"))
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(clockOffset: .seconds(7200))) { server in
            let result = try await Self.run(server, home, ["--end-date", "2026-11-15", "--json"])
            #expect(result.status == 75, "\(result.stdout)\(result.stderr)")
            let offset = try Self.report(result)["bankClockOffsetSeconds"] as? Int
            #expect(offset.map { (7190...7210).contains($0) } == true, "\(result.stdout)")
            #expect(result.stderr.contains(" ahead of this machine's: "), "\(result.stderr)")
            #expect(await Self.moved(server).isEmpty)
            let dry = try await Self.run(server, home, ["--end-date", "2026-11-15", "--dry-run"])
            #expect(dry.status == 0, "\(dry.stdout)\(dry.stderr)")
            #expect(dry.stderr.contains("a real run would send nothing"), "\(dry.stderr)")
            #expect(!dry.stdout.contains("would move") && dry.stdout.contains("would send nothing"), "\(dry.stdout)")
            let check = try await roundup(
                ["check", "--api-base-url", server.baseURL],
                environment: binaryEnvironment(home, token: bank.state.token))
            #expect(check.status == 75, "\(check.stdout)\(check.stderr)")
            #expect(check.stdout.contains("clock: the bank's clock is "), "\(check.stdout)")
            #expect(check.stdout.contains("an hour or more apart"), "\(check.stdout)")
            let moved = await Self.moved(server)
            robustnessLine(
                "the bank's clock two hours ahead",
                "nothing sent (exit \(result.status)), said in the summary, "
                    + "the report and check", moneyExactlyOnce: moved.isEmpty)
        }
    }

    /// A bank five minutes behind is said, and the week moves; one whose answers carry no
    /// `Date` keeps the configured margin, and finds its transfer after a lost answer.
    @Test(arguments: [true, false])
    func aClockMinutesOffIsSaidOrTheMarginKept(sendsDate: Bool) async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "clock-minutes-\(sendsDate)")
        bank.spend(gbp, 7_71, settled: Self.on("2026-11-12"))
        let behaviour = EmulatorBehaviour(clockOffset: .seconds(-300), sendsDate: sendsDate)
        try await withEmulator(bank.state, behaviour: behaviour) { server in
            await server.bank.injectFaults([.first(1, [.addMoney], .dropAfterApplying)])
            let result = try await Self.run(server, home, ["--end-date", "2026-11-15", "--json"])
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            let offset = try Self.report(result)["bankClockOffsetSeconds"] as? Int
            if sendsDate {
                // Read from whole seconds over loopback round trips, which a loaded machine makes slow.
                #expect(offset.map { (-310 ... -290).contains($0) } == true, "\(result.stdout)")
                #expect(result.stderr.contains(" behind this machine's"), "\(result.stderr)")
                let summary = try await Self.run(server, home, ["--end-date", "2026-11-15"])
                #expect(summary.stdout.contains("The bank's clock is "), "\(summary.stdout)")
            } else {
                #expect(offset == nil)
            }
            #expect(await Self.moved(server) == [29])
        }
    }

    // MARK: - Evidence before a transfer is sent again

    /// Finding 4: the bank answers 502 after moving the money, and its feed shows the
    /// transfer only seconds later, after the job's second look. The goal's total grew by
    /// the week's amount, so nothing is sent again; `resolve --retry` waits for the feed
    /// too; and a later run finds the transfer.
    @Test func aFeedThatShowsTheTransferLateIsWaitedFor() async throws {
        let (bank, home, config) = try Self.lostAnswerSetup(token: "feed-lag")
        let lagging = EmulatorBehaviour(feedLag: .seconds(3600))
        try await withEmulator(bank.state, behaviour: lagging) { server in
            await server.bank.injectFaults([.first(1, [.addMoney], .failAfterApplying(502))])
            let first = try await Self.runWeek(server, home, config)
            #expect(first.status == 75, "\(first.stdout)\(first.stderr)")
            #expect(first.stdout.contains("the goal's total went from"), "\(first.stdout)")
            let retry = try await roundup(
                [
                    "resolve", "--api-base-url", server.baseURL, "--config", config, "--account",
                    bank.state.accounts[0].uid, "--end-date", "2026-11-15", "--retry",
                ],
                environment: binaryEnvironment(home, token: bank.state.token))
            #expect(retry.status == 75 && retry.stderr.contains("feedSettleMinutes"), "\(retry.stderr)")
            await server.bank.showLaggingTransfers()
            let later = try await Self.runWeek(server, home, config)
            #expect(later.status == 0, "\(later.stdout)\(later.stderr)")
            let moved = await Self.moved(server)
            #expect(moved == [29])
            robustnessLine(
                "a 502 after the money moved, and a feed that shows it late (after the second look)",
                "the goal's total grew by the week's amount: not sent again (exit \(first.status)); resolve --retry "
                    + "waited; the next run found it", moneyExactlyOnce: moved == [29])
        }
    }

    /// The answer lost after the money moved, and the feed and the goal's total both lag: no
    /// answer came, so nothing is sent again in that run, nor by a run before the feed has
    /// had `feedSettleMinutes`; a run after the lag finds the transfer.
    @Test func aLostAnswerWithTheFeedAndTheGoalLaggingIsNotSentAgain() async throws {
        let (bank, home, config) = try Self.lostAnswerSetup(token: "feed-and-goal-lag")
        let lagging = EmulatorBehaviour(feedLag: .seconds(3600), goalTotalLags: true)
        try await withEmulator(bank.state, behaviour: lagging) { server in
            await server.bank.injectFaults([.first(1, [.addMoney], .dropAfterApplying)])
            let first = try await Self.runWeek(server, home, config)
            #expect(first.status == 69, "\(first.stdout)\(first.stderr)")
            let soon = try await Self.runWeek(server, home, config)
            #expect(soon.status == 75 && soon.stdout.contains("feedSettleMinutes"), "\(soon.stdout)")
            await server.bank.showLaggingTransfers()
            let later = try await Self.runWeek(server, home, config)
            #expect(later.status == 0, "\(later.stdout)\(later.stderr)")
            let moved = await Self.moved(server)
            #expect(moved == [29])
            robustnessLine(
                "an answer lost after the money moved, the feed and the goal's total late",
                "not sent again by that run (exit \(first.status)) nor the next (exit \(soon.status)); found once the "
                    + "feed showed it", moneyExactlyOnce: moved == [29])
        }
    }

    /// Finding 5: 429 after the money moved, twice. A 429 to a transfer is no proof that
    /// the bank did nothing: the feed is read, the goal's total grew, and nothing is sent again.
    @Test func aRateLimitAfterTheMoneyMovedIsNotRetriedBlindly() async throws {
        let (bank, home, config) = try Self.lostAnswerSetup(token: "late-429")
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(feedLag: .seconds(3600))) { server in
            await server.bank.injectFaults([
                .first(2, [.addMoney], .rateLimitedAfterApplying(retryAfter: "0"))
            ])
            let first = try await Self.runWeek(server, home, config)
            #expect(first.status == 75, "\(first.stdout)\(first.stderr)")
            await server.bank.showLaggingTransfers()
            let later = try await Self.runWeek(server, home, config)
            #expect(later.status == 0, "\(later.stdout)\(later.stderr)")
            let moved = await Self.moved(server)
            #expect(moved == [29])
            robustnessLine(
                "429 after the money moved, twice, with the feed late",
                "not sent again (exit \(first.status)); the next run found it", moneyExactlyOnce: moved == [29])
        }
    }

    /// A bank that fails every transfer with 503: each run sends at most twice (once more on
    /// evidence that nothing moved), and after four sends the week is held for a person.
    @Test func aWeekIsSentAtMostFourTimesByRuns() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "send-cap")
        bank.spend(gbp, 7_71, settled: Self.on("2026-11-12"))
        let config = try writeConfig("feedRecheckSeconds: 0\nfeedSettleMinutes: 0\n", in: home)
        try await withEmulator(bank.state) { server in
            await server.bank.injectFaults([
                FaultRule(endpoints: [.addMoney], when: .always, faults: [.serverError(503)])
            ])
            var statuses: [Int32] = []
            for _ in 1...3 {
                statuses.append(
                    try await Self.runWeek(server, home, config).status)
            }
            let sends = await server.bank.requests.filter { $0.endpoint == .addMoney }.count
            #expect(statuses == [69, 69, 78], "\(statuses)")
            #expect(sends == 4)
            let list = try await roundup(["resolve"], environment: binaryEnvironment(home, token: bank.state.token))
            #expect(list.stdout.contains("was sent 4 times"), "\(list.stdout)")
            robustnessLine(
                "503 on every transfer, three runs", "sent twice a run, then held after 4 sends (exits \(statuses))",
                moneyExactlyOnce: await server.bank.transfers.isEmpty)
        }
    }

    // MARK: - From the second adversarial try

    /// The bank moved the money and answered 503, its feed and goal late; the send again in
    /// that run is refused (no funds left). The refused send does not undo the wait for the
    /// first one's feed: the next run, money topped up, sends nothing.
    @Test func aRefusedSendAgainKeepsTheWaitForTheFirst() async throws {
        let home = try TemporaryDirectory()
        var bank = TestBank(token: "refused-resend")
        let gbp = bank.account("GBP", name: "Personal", balance: 29)
        bank.goal(gbp, name: "Round-ups", uid: Self.roundUps)
        bank.spend(gbp, 7_71, settled: Self.on("2026-11-12"))
        let config = try writeConfig("feedRecheckSeconds: 0\noverdraft: allow\n", in: home)
        let lagging = EmulatorBehaviour(feedLag: .seconds(3600), goalTotalLags: true)
        try await withEmulator(bank.state, behaviour: lagging) { server in
            await server.bank.injectFaults([.first(1, [.addMoney], .failAfterApplying(503))])
            let first = try await Self.runWeek(server, home, config)
            #expect(first.status == 75, "\(first.stdout)\(first.stderr)")
            #expect(first.stdout.contains("an earlier send of it went unanswered"), "\(first.stdout)")
            await server.bank.update { $0.accounts[0].balance = 10_00 }
            let again = try await Self.runWeek(server, home, config)
            #expect(again.status == 75 && again.stdout.contains("feedSettleMinutes"), "\(again.stdout)")
            let moved = await Self.moved(server)
            #expect(moved == [29])
            robustnessLine(
                "503 after the money moved, the feed and goal late, the send again refused for funds",
                "the next run still waits for the first send's feed (exit \(again.status))",
                moneyExactlyOnce: moved == [29])
        }
    }

    /// An answer lost, then the bank's `Date` jumps 17 minutes ahead: the wait for the feed is
    /// kept by this machine's clock too, and nothing is sent again.
    @Test func aDateThatJumpsDoesNotCutTheWaitShort() async throws {
        let (bank, home, config) = try Self.lostAnswerSetup(token: "date-jump")
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(feedLag: .seconds(3600), goalTotalLags: true)) {
            server in
            await server.bank.injectFaults([.first(1, [.addMoney], .dropAfterApplying)])
            let first = try await Self.runWeek(server, home, config)
            #expect(first.status == 69, "\(first.stdout)\(first.stderr)")
            await server.bank.setBehaviour(
                EmulatorBehaviour(clockOffset: .seconds(1000), feedLag: .seconds(3600), goalTotalLags: true))
            let again = try await Self.runWeek(server, home, config)
            #expect(again.status == 75 && again.stdout.contains("feedSettleMinutes"), "\(again.stdout)")
            let moved = await Self.moved(server)
            #expect(moved == [29])
            robustnessLine(
                "an answer lost, then the bank's Date 17 minutes ahead",
                "still waits for the feed (exit \(again.status))",
                moneyExactlyOnce: moved == [29])
        }
    }

    /// A gateway's 504 after the bank moved the money, its feed and goal late: a 504 is not
    /// the bank saying it did nothing, so nothing is sent again in that run.
    @Test func aGatewayTimeoutIsNotSentAgainInTheSameRun() async throws {
        let (bank, home, config) = try Self.lostAnswerSetup(token: "gateway-504")
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(feedLag: .seconds(3600), goalTotalLags: true)) {
            server in
            await server.bank.injectFaults([.first(1, [.addMoney], .failAfterApplying(504))])
            let first = try await Self.runWeek(server, home, config)
            #expect(first.status == 69, "\(first.stdout)\(first.stderr)")
            let moved = await Self.moved(server)
            #expect(moved == [29])
            robustnessLine(
                "504 from a gateway after the money moved, the feed and goal late",
                "not sent again in that run (exit \(first.status))", moneyExactlyOnce: moved == [29])
        }
    }

    /// The goal's total grew by the week's amount after a lost answer, and the feed never
    /// shows the transfer: no run sends the week again; it is held for a person.
    @Test func aGoalThatGrewIsNeverSentOver() async throws {
        let (bank, home, _) = try Self.lostAnswerSetup(token: "goal-grew")
        let config = try writeConfig("feedRecheckSeconds: 0\nfeedSettleMinutes: 0\n", in: home)
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(feedLag: .seconds(3600))) { server in
            await server.bank.injectFaults([.first(1, [.addMoney], .dropAfterApplying)])
            let first = try await Self.runWeek(server, home, config)
            #expect(first.status == 75 && first.stdout.contains("the goal's total went from"), "\(first.stdout)")
            let again = try await Self.runWeek(server, home, config)
            #expect(again.status == 78 && again.stdout.contains("the goal's total grew"), "\(again.stdout)")
            let moved = await Self.moved(server)
            #expect(moved == [29])
            robustnessLine(
                "an answer lost, the goal's total grown by the week's amount, a feed that never shows it",
                "held on the next run (exit \(again.status)), never sent over", moneyExactlyOnce: moved == [29])
        }
    }
}
