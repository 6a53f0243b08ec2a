import Foundation
import JobTestSupport
import RoundUp
import RoundUpReports
import RoundUpVocabulary
import StarlingEmulator
import TestSupport
import Testing

/// The job end to end: the real pipeline, through libcurl, over loopback HTTP, against
/// the emulated bank.
@Suite struct EndToEndTests {
    let weekEnd = "2026-11-15"

    @Test func theSeededWeekMovesTheRightAmountsOnceAndARerunMovesNothing() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: weekEnd)!, timeZone: TestBank.london, token: "tok-seed")
        let harness = try JobHarness(token: "tok-seed")
        try await withEmulator(state) { server in
            let first = await harness.run(server, endDate: weekEnd)
            #expect(first.status == .ok, "\(first.diagnostics)")
            let bank = await server.bank.state
            let moved = bank.transfers.map { "\($0.amount.minorUnits) \($0.amount.currency)" }.sorted()
            #expect(moved == ["126 EUR", "298 GBP"])
            // The archived "Round-ups" goal is ignored; a new one is created and used.
            let gbpGoals = bank.goals[Seed.Uid.gbpAccount] ?? []
            let created = try #require(gbpGoals.first { $0.name == "Round-ups" && $0.state == "ACTIVE" })
            #expect(created.totalSaved == 298)
            #expect(gbpGoals.first { $0.uid == Seed.Uid.gbpArchivedRoundUps }?.totalSaved == 0)
            let eurSaved: Int64? = bank.goals[Seed.Uid.eurAccount]?.first?.totalSaved
            #expect(eurSaved == 1_366)
            #expect(bank.accounts.map(\.balance) == [1_234_56 - 298, 300_00 - 126])

            let report = try #require(first.report)
            #expect(report.accounts.map(\.status) == [.transferred, .transferred])
            let gbp = report.accounts[0]
            #expect(gbp.total?.formattedAmount == "2.98")
            #expect(gbp.transactions.count == 7)
            #expect(gbp.goal?.created == true)
            #expect(
                gbp.leftOut == [
                    "incoming": 1, "own-transfer": 1, "rounded-up-by-bank": 1, "other-category": 1,
                    "outside-week": 1,
                ])
            #expect(
                summaryRow(first.output, "Personal (GBP)") == [
                    "Personal (GBP)", "7", "2.98 GBP", "Round-ups", "transferred",
                ])

            let second = await harness.run(server, endDate: weekEnd)
            #expect(second.status == .ok)
            #expect(await server.bank.state.transfers.count == 2)
            #expect(second.report?.accounts.map(\.status) == [.alreadyTransferred, .alreadyTransferred])
            let puts = await server.bank.requests.filter { $0.method == "PUT" }
            #expect(puts.count == 3, "one goal creation and two transfers, all in the first run")
        }
        let json = try Data(
            contentsOf: URL(fileURLWithPath: harness.stateDirectory + "/reports/roundup-\(weekEnd).json"))
        let decoded = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect((decoded["week"] as? [String: Any])?["startDate"] as? String == "2026-11-09")
        let markdown = try String(
            contentsOfFile: harness.stateDirectory + "/reports/roundup-\(weekEnd).md", encoding: .utf8)
        #expect(markdown.contains("| Tesco | card | 23.75 | 0.25 |"))
    }

    @Test func aDryRunSendsNoPutAndRecordsNothing() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: weekEnd)!, timeZone: TestBank.london, token: "tok-dry")
        let harness = try JobHarness(token: "tok-dry")
        try await withEmulator(state) { server in
            let result = await harness.run(server, endDate: weekEnd, dryRun: true)
            #expect(result.status == .ok)
            #expect(await server.bank.requests.allSatisfy { $0.method == "GET" })
            // Token, accounts, then each account's own round-up, feed, goals, standing orders,
            // direct debits and its one live goal's recurring transfer; the account that has its
            // goal also looks in its category feed for a transfer made elsewhere, and each asks
            // whether its transfer, with what falls due, would overdraw it.
            let requests = await server.bank.requests
            #expect(
                requests.count == 17, "\(requests.map { "\($0.path) \($0.status) \($0.fault.map { "\($0)" } ?? "")" })")
            #expect(await server.bank.requests.filter { $0.endpoint == .categoryFeed }.count == 1)
            #expect(result.report?.accounts.map(\.status) == [.dryRun, .dryRun])
            #expect(result.output.contains("a real run would create the goal \"Round-ups\" and move 2.98 GBP"))
            #expect(result.output.contains("a real run would move 1.26 EUR into \"Round-ups\""))
            // Nothing on disk: no state directory, no ledger, no report.
            #expect(!FileManager.default.fileExists(atPath: harness.stateDirectory))

            // A real run afterwards still moves the money.
            let real = await harness.run(server, endDate: weekEnd)
            #expect(real.status == .ok)
            #expect(await server.bank.transfers.count == 2)
        }
    }

    @Test func everyRequestCarriesTheRightHeaders() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: weekEnd)!, timeZone: TestBank.london, token: "tok-h")
        let harness = try JobHarness(token: "tok-h")
        try await withEmulator(state) { server in
            _ = await harness.run(server, endDate: weekEnd)
            let requests = await server.bank.requests
            #expect(!requests.isEmpty)
            for request in requests {
                #expect(request.authorized)
                #expect(request.accept == "application/json")
                #expect(request.userAgent == "roundup/\(roundupVersion)")
            }
            let feedQuery = try #require(requests.first { $0.path.hasSuffix("settled-transactions-between") }).query
            #expect(feedQuery["minTransactionTimestamp"] == "2026-11-09T00:00:00.000Z")
            #expect(feedQuery["maxTransactionTimestamp"] == "2026-11-16T00:00:00.000Z")
        }
    }

    @Test func aHolderWithGBPEURAndUSDAccounts() async throws {
        var bank = TestBank()
        let week = londonWeek(weekEnd)
        let inside = week.start.adding(milliseconds: 86_400_000)
        let gbp = bank.account("GBP")
        let eur = bank.account("EUR")
        let usd = bank.account("USD")
        for (account, amounts) in [(gbp, [435, 520, 1000] as [Int64]), (eur, [1999, 1]), (usd, [250, 375, 4999])] {
            for amount in amounts { bank.spend(account, amount, settled: inside) }
        }
        bank.goal(eur, name: "Round-ups", uid: "90000000-0000-4000-8000-000000000001")
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state) { server in
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .ok, "\(result.diagnostics)")
            let moved = await server.bank.transfers.map {
                "\($0.accountUid.suffix(1)) \($0.amount.minorUnits) \($0.amount.currency)"
            }
            #expect(moved.sorted() == ["1 145 GBP", "2 100 EUR", "3 76 USD"])
        }
    }

    @Test(arguments: [("2026-03-29", 167), ("2026-10-25", 169)])
    func weeksThatCrossAClockChange(endDate: String, hours: Int) async throws {
        var bank = TestBank()
        let week = londonWeek(endDate)
        #expect(week.hours == hours)
        let account = bank.account("GBP")
        bank.spend(account, 101, settled: week.start)  // counted: 0.99
        bank.spend(account, 190, settled: week.end.adding(milliseconds: -1))  // counted: 0.10
        bank.spend(account, 150, settled: week.end)  // next week
        bank.spend(account, 170, settled: week.start.adding(milliseconds: -1))  // last week
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state) { server in
            let result = await harness.run(server, endDate: endDate)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [109])
            #expect(result.report?.week.hours == hours)
            let query = try #require(await server.bank.requests.first { $0.path.hasSuffix("-between") }).query
            #expect(query["minTransactionTimestamp"] == week.start.iso8601)
            #expect(query["maxTransactionTimestamp"] == week.end.iso8601)
        }
    }

    @Test func aThreeDecimalCurrency() async throws {
        var bank = TestBank()
        let account = bank.account("KWD")
        let inside = londonWeek(weekEnd).start.adding(milliseconds: 3_600_000)
        bank.spend(account, 1_250, settled: inside)
        bank.spend(account, 7, settled: inside)
        bank.spend(account, 3_000, settled: inside)
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state) { server in
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .ok)
            #expect(await server.bank.transfers.map(\.amount) == [EmulatedAmount("KWD", 1_743)])
            #expect(result.output.contains("1.743 KWD"))
        }
    }

    @Test func onlySettledOutgoingSpendingFromTheMainBalanceCounts() async throws {
        var bank = TestBank()
        let account = bank.account("GBP")
        let inside = londonWeek(weekEnd).start.adding(milliseconds: 7_200_000)
        bank.spend(account, 1_001, settled: inside)  // counts: 0.99
        bank.spend(account, 2_000, settled: inside)  // whole: counts, 0
        bank.spend(account, 199, settled: inside) { $0.status = "DECLINED" }
        bank.spend(account, 299, settled: inside) { $0.status = "REVERSED" }
        bank.spend(account, 249, settled: inside) { $0.status = "PENDING" }
        bank.spend(account, 399, settled: inside) { $0.direction = "IN" }
        bank.spend(account, 499, settled: inside) { $0.categoryUid = "5ace0000-0000-4000-8000-000000000001" }
        bank.spend(account, 599, settled: inside) {
            $0.source = "INTERNAL_TRANSFER"
            $0.counterPartyType = "CATEGORY"
        }
        bank.spend(account, 699, settled: inside) {
            $0.roundUp = .init(
                goalCategoryUid: "90a10000-0000-4000-8000-0000000000f1", amount: EmulatedAmount("GBP", 1))
        }
        bank.spend(account, 350, settled: inside) {  // values the bank added later: counts, 0.50
            $0.source = "SOMETHING_NEW"
            $0.sourceSubType = "ALSO_NEW"
            $0.spendingCategory = "BRAND_NEW"
            $0.counterPartyType = "NEW_KIND"
        }
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, contract: .requestsOnly) { server in
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [149])
            let report = try #require(result.report?.accounts.first)
            #expect(report.transactions.count == 3)
            #expect(
                report.leftOut == [
                    "not-settled": 3, "incoming": 1, "other-category": 1, "own-transfer": 1,
                    "rounded-up-by-bank": 1,
                ])
        }
    }

    /// A pound and a euro account, each with its goal, spending 2.01 in each of the four
    /// weeks to 2026-11-15.
    static func twoAccountsOfFourWeeks() -> TestBank {
        var bank = TestBank()
        let accounts = [bank.account("GBP"), bank.account("EUR")]
        for (index, account) in accounts.enumerated() {
            bank.goal(account, name: "Round-ups", uid: "90a10000-0000-4000-8000-00000000010\(index)")
            for week in ["2026-10-25", "2026-11-01", "2026-11-08", "2026-11-15"] {
                bank.spend(account, 2_01, settled: londonWeek(week).start.adding(milliseconds: 3_600_000))
            }
        }
        return bank
    }

    @Test func aCatchUpAsksTheBanksRoundUpAndTheGoalsOncePerAccount() async throws {
        let bank = Self.twoAccountsOfFourWeeks()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state) { server in
            let first = await harness.run(server, endDate: "2026-10-25")
            #expect(first.status == .ok, "\(first.diagnostics)")
            let before = await server.bank.requests.count
            let caughtUp = await harness.run(server, endDate: weekEnd, catchUp: true)
            #expect(caughtUp.status == .ok, "\(caughtUp.diagnostics)")
            let asked = await server.bank.requests.dropFirst(before)
            #expect(asked.filter { $0.endpoint == .roundUp }.count == 2, "once per account, not once per week")
            #expect(asked.filter { $0.endpoint == .savingsGoals }.count == 2, "once per account, not once per week")
            #expect(asked.filter { $0.endpoint == .settledFeed }.count == 6, "each week's feed, per account")
            #expect(asked.filter { $0.endpoint == .accounts }.count == 1, "the accounts once per run")
            #expect(asked.filter { $0.endpoint == .identity }.count == 3, "the token before each week")
            #expect(await server.bank.transfers.count == 8)
        }
    }

    /// The token is asked before each week of a catch-up, not once per run: a token the bank
    /// refuses from the second week on stops the run there, with one word, and nothing of
    /// that week or later moves.
    @Test func aTokenRefusedDuringACatchUpStopsItAtTheWeek() async throws {
        let bank = Self.twoAccountsOfFourWeeks()
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, contract: .requestsOnly) { server in
            let first = await harness.run(server, endDate: "2026-10-25")
            #expect(first.status == .ok, "\(first.diagnostics)")
            await server.bank.injectFaults([
                FaultRule(endpoints: [.identity], when: .onRequests([2]), faults: [.serverError(401)])
            ])
            let caughtUp = await harness.run(server, endDate: weekEnd, catchUp: true)
            #expect(caughtUp.status == .permissionDenied, "\(caughtUp.diagnostics)")
            #expect(caughtUp.tally.weeks.map(\.description) == ["2026-11-01", "2026-11-08"])
            #expect(caughtUp.tally.weekErrors == 1)
            #expect(
                caughtUp.diagnostics.contains { $0.contains("stopped after the week ending 2026-11-08") },
                "\(caughtUp.diagnostics)")
            // The first run's two weeks and the catch-up's first; none of the refused week's.
            #expect(await server.bank.transfers.count == 4)
        }
    }

    /// The goal a catch-up remembers for an account is forgotten when a week fails: a goal
    /// deleted during the run holds the one week that found it gone, and the next week looks
    /// for the goal again (and, finding none, creates it) instead of holding too.
    @Test func aGoalDeletedDuringACatchUpHoldsOneWeekOnly() async throws {
        var bank = TestBank()
        let account = bank.account("GBP")
        let goal = "90a10000-0000-4000-8000-000000000201"
        bank.goal(account, name: "Round-ups", uid: goal)
        for week in ["2026-10-25", "2026-11-01", "2026-11-08", "2026-11-15"] {
            bank.spend(account, 4_01, settled: londonWeek(week).start.adding(milliseconds: 3_600_000))
        }
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state) { server in
            let first = await harness.run(server, endDate: "2026-10-25")
            #expect(first.status == .ok, "\(first.diagnostics)")
            // Time between the weeks for the goal to go.
            await server.bank.injectFaults([
                FaultRule(endpoints: [.settledFeed], when: .always, faults: [.latency(.milliseconds(400))])
            ])
            let deleter = Task {
                while await server.bank.transfers.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
                _ = await server.bank.deleteGoal(accountUid: account, goalUid: goal)
            }
            _ = await harness.run(server, endDate: weekEnd, catchUp: true)
            try await deleter.value
            let weeks = try harness.ledger().accountWeeks().map { "\($0.weekEnd) \($0.status)" }
            #expect(weeks == ["2026-10-25 done", "2026-11-01 done", "2026-11-08 held", "2026-11-15 done"])
            let transfers = await server.bank.transfers
            #expect(transfers.count == 3)
            #expect(transfers.last?.goalUid != goal, "into a goal made anew")
        }
    }

    @Test func wholeAmountsOnlyMeanNothingToDoAndNoRequestToMove() async throws {
        var bank = TestBank()
        let account = bank.account("GBP")
        bank.spend(account, 500, settled: londonWeek(weekEnd).start)
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state) { server in
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .ok)
            #expect(result.report?.accounts.first?.status == .nothingToMove)
            #expect(await server.bank.requests.allSatisfy { $0.method == "GET" })
            let entries = try harness.ledger().accountWeeks()
            #expect(entries.map(\.status) == [.nothing])
        }
    }

    @Test func aRejectedTokenExits77AndMovesNothing() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: weekEnd)!, timeZone: TestBank.london, token: "right")
        let harness = try JobHarness(token: "right")
        try await withEmulator(state) { server in
            let result = await harness.run(server, endDate: weekEnd, token: "wrong-token")
            #expect(result.status == .permissionDenied)
            #expect(result.diagnostics.joined().contains("rejected the access token"))
            let requests = await server.bank.requests
            #expect(requests.count == 1, "\(requests)")
        }
    }

    @Test func missingScopesAreNamedBeforeAnyWrite() async throws {
        var state = Seed.realisticWeek(
            endingOn: LocalDate(iso: weekEnd)!, timeZone: TestBank.london, token: "read-only-token-123")
        state.scopes = ["account:read", "account-list:read", "transaction:read"]
        let harness = try JobHarness(token: "read-only-token-123")
        try await withEmulator(state) { server in
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .permissionDenied)
            let message = result.diagnostics.joined()
            #expect(message.contains("savings-goal:read"))
            #expect(message.contains("savings-goal-transfer:create"))
            #expect(await server.bank.requests.map(\.path) == ["/api/v2/identity/token"])
        }
    }

    @Test func badDataInOneAccountSkipsItAndTheOthersStillRun() async throws {
        var bank = TestBank()
        let good = bank.account("GBP")
        let negative = bank.account("GBP")
        let unknown = bank.account("XXX")
        let inside = londonWeek(weekEnd).start.adding(milliseconds: 60_000)
        bank.spend(good, 250, settled: inside)
        bank.spend(negative, -250, settled: inside)
        bank.spend(unknown, 250, settled: inside)
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state, contract: .requestsOnly) { server in
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .dataError)
            #expect(await server.bank.transfers.map(\.accountUid) == [good])
            #expect(result.report?.accounts.map(\.accountUid) == [good, negative, unknown])
            let statuses = result.report?.accounts.map(\.status)
            #expect(statuses == [.transferred, .failed, .failed])
            #expect(result.report?.accounts[1].detail?.contains("negative amount") == true)
            #expect(result.report?.accounts[2].detail?.contains("'XXX'") == true)
        }
    }

    @Test func anUnconfirmedTransferIsResentWithTheSameUidAndMovesOnce() async throws {
        var bank = TestBank()
        let account = bank.account("GBP", balance: 10_00)
        let goalUid = "90000000-0000-4000-8000-0000000000aa"
        bank.goal(account, name: "Round-ups", uid: goalUid)
        bank.spend(account, 101, settled: londonWeek(weekEnd).start)
        let weekEndDate = LocalDate(iso: weekEnd)!
        let transferUid = TransferUID.transferUid(accountUid: account, goalUid: goalUid, weekEnd: weekEndDate)
        // The bank moved the money, but the run died before recording the outcome.
        bank.state.transfers.append(
            EmulatedTransfer(
                transferUid: transferUid, accountUid: account, goalUid: goalUid,
                amount: EmulatedAmount("GBP", 99)))
        bank.state.accounts[0].balance -= 99
        let harness = try JobHarness(token: bank.state.token)
        try FileManager.default.createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
        try harness.ledger().recordDecision(
            AccountWeek(
                accountUid: account, weekEnd: weekEndDate, status: .pending, currency: "GBP", minorUnits: 99,
                goalUid: goalUid, goalName: "Round-ups", transferUid: transferUid),
            at: JobHarness.now)
        // The bank moved it but its feed does not show it: only a bank that recognises the
        // transfer uid keeps this week from moving twice, and the job resends with the same
        // uid so that such a bank can.
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(deduplicatesTransfers: true)) { server in
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(result.report?.accounts.first?.status == .transferred)
            let state = await server.bank.state
            #expect(state.transfers.count == 1)
            #expect(state.accounts[0].balance == 10_00 - 99)
            let puts = await server.bank.requests.filter { $0.method == "PUT" }.map(\.path)
            #expect(puts == ["/api/v2/account/\(account)/savings-goals/\(goalUid)/add-money/\(transferUid)"])
            let entries = try harness.ledger().accountWeeks()
            #expect(entries.map(\.status) == [.done])
        }
    }

    @Test func aRefusedTransferStaysPendingAndIsRetriedNextRun() async throws {
        var bank = TestBank()
        let account = bank.account("GBP", balance: 0)
        bank.goal(account, name: "Round-ups", uid: "90000000-0000-4000-8000-0000000000bb")
        bank.spend(account, 101, settled: londonWeek(weekEnd).start)
        let harness = try JobHarness(token: bank.state.token)
        // overdraft: allow, so that the transfer reaches the bank, which refuses it.
        let config = JobHarness.quickRetries + "overdraft: allow\n"
        try await withEmulator(bank.state) { server in
            let refused = await harness.run(server, endDate: weekEnd, config: config)
            #expect(refused.status == .temporaryFailure)
            #expect(refused.diagnostics.joined().contains("INSUFFICIENT_FUNDS"))
            let entries = try harness.ledger().accountWeeks()
            #expect(entries.map(\.status) == [.pending])
            await server.bank.update { $0.accounts[0].balance = 5_00 }
            let retried = await harness.run(server, endDate: weekEnd, config: config)
            #expect(retried.status == .ok)
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [99])
        }
    }

    @Test func theTokenAppearsNowhere() async throws {
        let token = "very-secret-token-" + UUID().uuidString
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: weekEnd)!, timeZone: TestBank.london, token: token)
        let harness = try JobHarness(token: token)
        try await withEmulator(state) { server in
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .ok)
            let rejected = await harness.run(server, endDate: "2026-11-08", token: token + "-expired")
            #expect(rejected.status == .permissionDenied)
            for text in [result.output, rejected.output] + result.diagnostics + rejected.diagnostics + harness.log.lines
            {
                #expect(!text.contains(token))
            }
        }
        #expect(!harness.log.lines.isEmpty)
        let files = FileManager.default.enumerator(atPath: harness.stateDirectory)?.allObjects as? [String] ?? []
        #expect(files.contains("ledger.sqlite"))
        for file in files {
            let data = FileManager.default.contents(atPath: harness.stateDirectory + "/" + file) ?? Data()
            #expect(data.range(of: Data(token.utf8)) == nil, "\(file)")
        }
    }

    @Test func aWeekOverlappingARecordedOneCountsOnlyWhatItHasNotCounted() async throws {
        var bank = TestBank()
        let account = bank.account("GBP")
        let week = londonWeek(weekEnd)
        // Sunday 23:00, then Monday 10:00.
        bank.spend(account, 101, settled: week.end.adding(milliseconds: -3_600_000))
        bank.spend(account, 275, settled: week.end.adding(milliseconds: 10 * 3_600_000))
        let harness = try JobHarness(token: bank.state.token)
        try await withEmulator(bank.state) { server in
            #expect(await harness.run(server, endDate: weekEnd).status == .ok)
            // Tuesday to Monday: Sunday's payment was counted, Monday's was not.
            let overlapping = await harness.run(server, endDate: "2026-11-16")
            #expect(overlapping.status == .ok)
            let report = try #require(overlapping.report?.accounts.first)
            #expect(report.countedEarlier?.count == 1)
            #expect(report.transactions.count == 1)
            #expect(await harness.run(server, endDate: "2026-11-08").status == .ok, "the week before")
            let moved = await server.bank.transfers.map(\.amount.minorUnits).sorted()
            #expect(moved == [25, 99], "each payment's round-up moved once")
        }
    }
}
