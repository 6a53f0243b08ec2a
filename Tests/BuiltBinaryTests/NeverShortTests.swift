import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// Never short, second pass, against the built binary and the emulator: a direct debit
/// counted as often as it falls due before payday, a week sent again measured again, each
/// goal's recurring transfer under its own name whatever order the answers come in, an odd
/// item due long after payday changing nothing, and a short list of next dates not trusted.
/// The binary reads the real clock, so every date is placed from today.
@Suite struct NeverShortTests {
    static let week = SafeToSaveRunTests.week
    static let today = SafeToSaveRunTests.today()

    static func bank(_ token: String, balance: Int64) -> (TestBank, String) {
        SafeToSaveRunTests.bank(token, balance: balance)
    }

    static func due(_ report: [String: Any]?) -> [[String: Any]] {
        SafeToSaveRunTests.forecast(report)?["due"] as? [[String: Any]] ?? []
    }

    /// A direct debit whose last payment and next date show its cadence: a monthly one with
    /// a payday eight weeks away, one dated today with the next payday a month away, and a
    /// weekly one with five weeks to payday. The balance covers its true collections and
    /// 0.50 more: the job moves at most that.
    @Test(arguments: [
        (27, 2, Int64(200_00), "every 8 weeks from", 2),
        (31, 0, Int64(200_00), "monthly", 2),
        (5, 1, Int64(50_00), "every 5 weeks from", 5),
    ])
    func aDirectDebitIsCountedEachTimeItFallsDue(
        lastPaidDaysAgo: Int, nextIn: Int, amount: Int64, payday: String, collections: Int
    ) async throws {
        let today = Self.today
        let balance = amount * Int64(collections) + 50
        var (bank, gbp) = Self.bank("cadence-\(lastPaidDaysAgo)-\(nextIn)", balance: balance)
        let next = today.adding(days: nextIn)
        bank.mandate(gbp, lastAmount: amount, next: next, lastDate: next.adding(days: -lastPaidDaysAgo - nextIn))
        let paydayLine =
            payday == "monthly" ? "payday: \(today.day)" : "payday: \(payday) \(today.adding(days: -1))"
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            let (run, report) = try await SafeToSaveRunTests.run(
                server, home, config: "\(paydayLine)\nminimumBalance: {GBP: 0.00}\n")
            #expect(run.status == 0, "\(run.stderr)")
            let debits = Self.due(report).filter { $0["source"] as? String == "direct debit" }
            #expect(debits.count >= collections, "\(debits)")
            #expect(debits.first?["date"] as? String == next.description)
            #expect(debits.dropFirst().allSatisfy { $0["dateReckoned"] as? Bool == true }, "\(debits)")
            let moved = await SafeToSaveRunTests.moved(server).reduce(0, +)
            #expect(moved <= 50, "moved \(moved) from \(balance) with \(collections) × \(amount) due")
            robustnessLine(
                "a direct debit last paid \(lastPaidDaysAgo + nextIn) days before its next date, payday \(payday)",
                "counted \(debits.count) times (\(collections) due); moved \(moved)", moneyExactlyOnce: moved <= 50)
        }
    }

    /// 1.07 fitted when the week was decided; its transfer failed before the money moved,
    /// then a card payment took 0.07 from the account. Sent again it would leave the low
    /// point before the rent 0.07 under the minimum: nothing is sent, the week ends held back
    /// (exit 0), and the recorded amount is never cut to fit.
    @Test func aWeekSentAgainIsMeasuredAgainByARun() async throws {
        let home = try TemporaryDirectory()
        try settledFeeds(in: home, also: "minimumBalance: {GBP: 49.00}\n")
        var (bank, gbp) = Self.bank("resend-measured", balance: 900_07)
        bank.standingOrder(gbp, 850_00, next: Self.today.adding(days: 3))
        try await withEmulator(bank.state) { server in
            await server.bank.injectFaults([
                FaultRule(endpoints: [.addMoney], when: .always, faults: [.serverError(503)])
            ])
            let (first, _) = try await SafeToSaveRunTests.run(server, home)
            #expect(first.status == 69, "\(first.stderr)")
            await server.bank.injectFaults([])
            await server.bank.update { $0.accounts[0].balance = 900_00 }
            let (again, report) = try await SafeToSaveRunTests.run(server, home)
            #expect(again.status == 0, "\(again.stderr)")
            let account = SafeToSaveRunTests.account(report)
            // The report's word for a week held back, told apart by its heldBack.
            #expect(account?["status"] as? String == "nothing to do", "\(again.stdout)")
            #expect(account?["heldBack"] as? String == "1.07", "\(again.stdout)")
            let detail = account?["detail"] as? String ?? ""
            #expect(detail.contains("was not sent again: held back 1.07 GBP"), "\(detail)")
            #expect(detail.contains("the low point of 50.00 GBP"), "\(detail)")
            #expect(detail.contains("850.00 GBP due"), "\(detail)")
            #expect(detail.contains("in full or not at all"), "\(detail)")
            #expect(Self.due(report).count == 1, "the forecast it was measured against is in the report")
            let moved = await SafeToSaveRunTests.moved(server)
            #expect(moved.isEmpty)
            // The week is settled: a later run sends nothing, whatever the balance.
            await server.bank.update { $0.accounts[0].balance = 2_000_00 }
            let (later, laterReport) = try await SafeToSaveRunTests.run(server, home)
            #expect(later.status == 0)
            let laterDetail = SafeToSaveRunTests.account(laterReport)?["detail"] as? String ?? ""
            #expect(laterDetail.contains("an earlier run moved nothing: held back 1.07 GBP"), "\(laterDetail)")
            #expect(await SafeToSaveRunTests.moved(server).isEmpty)
            robustnessLine(
                "a week sent again after a card payment left 0.07 too little before the rent",
                "not sent; held back, exit 0", moneyExactlyOnce: moved.isEmpty)
        }
    }

    /// `resolve --check` says what a re-send would do; `--retry` measures it as a run would,
    /// and sends it once it fits.
    @Test func resolveMeasuresAWeekBeforeSendingItAgain() async throws {
        let home = try TemporaryDirectory()
        try settledFeeds(in: home, also: "minimumBalance: {GBP: 49.00}\n")
        var (bank, gbp) = Self.bank("resend-resolve", balance: 900_07)
        bank.standingOrder(gbp, 850_00, next: Self.today.adding(days: 3))
        let environment = binaryEnvironment(home, token: bank.state.token)
        try await withEmulator(bank.state) { server in
            await server.bank.injectFaults([
                FaultRule(endpoints: [.addMoney], when: .always, faults: [.serverError(503)])
            ])
            #expect(try await SafeToSaveRunTests.run(server, home).0.status == 69)
            await server.bank.injectFaults([])
            await server.bank.update { $0.accounts[0].balance = 900_00 }
            let resolve = ["resolve", "--account", gbp, "--end-date", Self.week, "--api-base-url", server.baseURL]
            let check = try await roundup(resolve + ["--check"], environment: environment)
            #expect(check.status == 0, "\(check.stderr)")
            #expect(
                check.stdout.contains(
                    "`--retry` would send nothing now and settle the week as held back: held back 1.07"),
                "\(check.stdout)")
            // With the money back, --check says it would go, and --retry sends it once.
            await server.bank.update { $0.accounts[0].balance = 900_07 }
            let fits = try await roundup(resolve + ["--check"], environment: environment)
            #expect(fits.stdout.contains("`--retry` would send it again now"), "\(fits.stdout)")
            await server.bank.update { $0.accounts[0].balance = 900_06 }
            let retry = try await roundup(resolve + ["--retry"], environment: environment)
            #expect(retry.status == 0, "\(retry.stderr)")
            #expect(retry.stdout.contains("Nothing was sent: held back 1.07 GBP"), "\(retry.stdout)")
            let moved = await SafeToSaveRunTests.moved(server)
            #expect(moved.isEmpty)
            robustnessLine(
                "resolve --retry of a week 0.01 short of its minimum", "not sent; held back, exit 0",
                moneyExactlyOnce: moved.isEmpty)
        }
    }

    /// Five goals, whose recurring transfers are answered in a random order and after random
    /// delays, one with none (404) and one in euros: each due payment is under its own
    /// goal's name, and the one that cannot be counted is blamed on its own goal.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func eachGoalsRecurringTransferIsUnderItsOwnName(seed: UInt64) async throws {
        var (bank, gbp) = Self.bank("scattered-goals-\(seed)", balance: 5_000_00)
        let next = Self.today.adding(days: 2)
        let goals: [(name: String, minorUnits: Int64?, currency: String)] = [
            ("Holiday", 10_00, "GBP"), ("Car", 2_00, "GBP"), ("Trip", 5_00, "EUR"), ("Gifts", 3_00, "GBP"),
        ]
        for (index, goal) in goals.enumerated() {
            let uid = String(format: "90d00000-0000-4000-8000-%012d", index + 1)
            bank.goal(gbp, name: goal.name, uid: uid)
            if let minorUnits = goal.minorUnits {
                bank.recurringTransfer(into: uid, minorUnits, currency: goal.currency, next: next, frequency: "WEEKLY")
            }
        }
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(scatteredGoalAnswers: seed)) { server in
            let (run, report) = try await SafeToSaveRunTests.run(
                server, home, config: "minimumBalance: {GBP: 0.00}\n", extra: ["--dry-run"])
            #expect(run.status == 0, "\(run.stderr)")
            let due = Self.due(report)
            let expected = Dictionary(uniqueKeysWithValues: goals.map { ($0.name, $0.minorUnits) })
            #expect(Set(due.compactMap { $0["label"] as? String }) == ["Holiday", "Car", "Gifts"], "\(due)")
            for payment in due {
                let label = payment["label"] as? String ?? ""
                let amount = payment["amount"] as? String ?? ""
                #expect(
                    amount == Money(minorUnits: expected[label]!!, currency: Currency(code: "GBP")!).formattedAmount)
            }
            let unplaced = SafeToSaveRunTests.forecast(report)?["unplaced"] as? [String] ?? []
            #expect(unplaced.count == 1 && unplaced[0].hasPrefix("Trip (goal transfer)"), "\(unplaced)")
            let moved = await SafeToSaveRunTests.moved(server)
            robustnessLine(
                "five goals answering their recurring transfers in any order and late (seed \(seed))",
                "\(due.count) due, each under its own goal; the euro one blamed on Trip",
                moneyExactlyOnce: moved.isEmpty)
        }
    }

    /// Items the job cannot read (a mandate in a status it does not know, a standing order in
    /// a currency it cannot read, a goal transfer with an amount it cannot read), each next
    /// due 200 days from now, far past payday: the week moves as if they were not there. The
    /// same mandate due in three days holds the week back.
    @Test(arguments: [200, 3])
    func anOddItemDueLongAfterPaydayChangesNothing(mandateDueIn: Int) async throws {
        var (bank, gbp) = Self.bank("odd-far-away-\(mandateDueIn)", balance: 5_000_00)
        let far = Self.today.adding(days: 200)
        let mandateNext = Self.today.adding(days: mandateDueIn)
        bank.mandate(
            gbp, lastAmount: 30_00, next: mandateNext, lastDate: mandateNext.adding(days: -30), status: "SUSPENDED")
        bank.standingOrder(gbp, 12_00, next: far)
        bank.state.schedule.standingOrders[gbp]![0].amount = EmulatedAmount("XXX", 12_00)
        let goalUid = "90d00000-0000-4000-8000-0000000000f1"
        bank.goal(gbp, name: "Holiday", uid: goalUid)
        bank.recurringTransfer(into: goalUid, 10_00, currency: "???", next: far)
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state, contract: .requestsOnly) { server in
            let config = "payday: every 4 weeks from \(Self.today.adding(days: -1))\nminimumBalance: {GBP: 0.00}\n"
            let (run, report) = try await SafeToSaveRunTests.run(server, home, config: config)
            #expect(run.status == 0, "\(run.stderr)")
            let unplaced = SafeToSaveRunTests.forecast(report)?["unplaced"] as? [String] ?? []
            let moved = await SafeToSaveRunTests.moved(server)
            if mandateDueIn > 28 {
                #expect(unplaced.isEmpty, "\(unplaced)")
                #expect(moved == [1_07])
            } else {
                #expect(unplaced == ["Octopus Energy (direct debit): a status the job does not know, 'SUSPENDED'"])
                #expect(moved.isEmpty)
            }
            robustnessLine(
                "items the job cannot read, the mandate due in \(mandateDueIn) days",
                unplaced.isEmpty ? "moved \(moved)" : "held back: forecast incomplete",
                moneyExactlyOnce: moved.count <= 1)
        }
    }

    /// A bank that echoes the access token in a mandate's name, which a held-back week's
    /// reason names: the token is taken out of the answer before anything reads it, so it is
    /// in no file the run writes, nor in `history`.
    @Test func aTokenEchoedInAScheduledItemIsKeptNowhere() async throws {
        let token = "echoed-token-7f3a9c21e4b8"
        var (bank, gbp) = Self.bank(token, balance: 5_000_00)
        let next = Self.today.adding(days: 3)
        bank.mandate(
            gbp, lastAmount: 30_00, next: next, lastDate: next.adding(days: -30), status: "SUSPENDED", name: token)
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state, contract: .requestsOnly) { server in
            let (run, _) = try await SafeToSaveRunTests.run(server, home, config: "minimumBalance: {GBP: 0.00}\n")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("forecast incomplete"), "\(run.stdout)")
            let history = try await roundup(["history"], environment: binaryEnvironment(home, token: token))
            #expect(history.stdout.contains("held back"), "\(history.stdout)")
            var written: [String] = []
            let files = FileManager.default.enumerator(atPath: home.path)
            while let name = files?.nextObject() as? String {
                guard let data = FileManager.default.contents(atPath: home.path + "/" + name) else { continue }
                if data.range(of: Data(token.utf8)) != nil { written.append(name) }
            }
            #expect(written.isEmpty, "the token is in \(written)")
            #expect(!(run.stdout + run.stderr + history.stdout + history.stderr).contains(token))
        }
    }

    /// An order with no next date, whose dates the bank lists: three dates that stop before
    /// payday are not all it pays, and the week is held back naming it; the whole list is
    /// counted.
    @Test func aShortListOfNextDatesIsNotTrusted() async throws {
        var (bank, gbp) = Self.bank("short-list", balance: 5_000_00)
        bank.standingOrder(
            gbp, 25_00, next: nil, frequency: "WEEKLY", reference: "Gym", start: Self.today.adding(days: 1))
        let config = "payday: every 6 weeks from \(Self.today.adding(days: -1))\nminimumBalance: {GBP: 0.00}\n"
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(upcomingPaymentsListed: 3)) { server in
            let (short, report) = try await SafeToSaveRunTests.run(server, home, config: config, extra: ["--dry-run"])
            #expect(short.status == 0, "\(short.stderr)")
            let unplaced = SafeToSaveRunTests.forecast(report)?["unplaced"] as? [String] ?? []
            #expect(
                unplaced.contains {
                    $0.hasPrefix(
                        "Gym (standing order): the bank listed its dates only up to \(Self.today.adding(days: 15))")
                }, "\(unplaced)")
            await server.bank.setBehaviour(EmulatorBehaviour())
            let (whole, wholeReport) = try await SafeToSaveRunTests.run(server, home, config: config)
            #expect(whole.status == 0, "\(whole.stderr)")
            #expect(SafeToSaveRunTests.forecast(wholeReport)?["complete"] as? Bool == true, "\(whole.stdout)")
            #expect(Self.due(wholeReport).count >= 6)
            let moved = await SafeToSaveRunTests.moved(server)
            #expect(moved == [1_07])
            robustnessLine(
                "a weekly order whose bank lists 3 next dates before payday",
                "held back naming it; the whole list counted",
                moneyExactlyOnce: moved == [1_07])
        }
    }
}
