import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// Safe to save, against the built binary and the emulator: what the bank has scheduled
/// before payday is counted before money moves. The binary reads the real clock, so every
/// scheduled date is placed from today's date in the run's time zone.
@Suite struct SafeToSaveRunTests {
    static let week = "2026-11-15"
    static let settled = londonWeek(week).start.adding(milliseconds: 3_600_000)

    /// Today in `zone`, as the binary reads it.
    static func today(in zone: TimeZone = TestBank.london) -> LocalDate { Week.localDate(of: .now, in: zone) }

    /// A bank with one GBP account holding `balance` minor units, a goal, and a week whose
    /// round-up is 1.07 GBP (0.50 + 0.57).
    static func bank(_ token: String, balance: Int64) -> (TestBank, String) {
        var bank = TestBank(token: token)
        let gbp = bank.account("GBP", name: "Personal", balance: balance)
        bank.goal(gbp, name: "Round-ups", uid: "90c00000-0000-4000-8000-00000000005a")
        bank.spend(gbp, 1_50, settled: settled)
        bank.spend(gbp, 2_43, settled: settled)
        return (bank, gbp)
    }

    /// `roundup run --json` for the week, with `config` written to a file when given.
    static func run(
        _ server: EmulatorServer, _ home: TemporaryDirectory, config: String? = nil, extra: [String] = []
    ) async throws -> (Execution, [String: Any]?) {
        var arguments = ["run", "--end-date", week, "--api-base-url", server.baseURL, "--json"] + extra
        if let config { arguments += ["--config", try writeConfig(config, in: home)] }
        let execution = try await roundup(
            arguments, environment: binaryEnvironment(home, token: await server.bank.state.token))
        let report = try? JSONSerialization.jsonObject(with: Data(execution.stdout.utf8)) as? [String: Any]
        return (execution, report)
    }

    static func account(_ report: [String: Any]?) -> [String: Any]? {
        (report?["accounts"] as? [[String: Any]])?.first
    }

    static func forecast(_ report: [String: Any]?) -> [String: Any]? { account(report)?["forecast"] as? [String: Any] }

    static func moved(_ server: EmulatorServer) async -> [Int64] {
        await server.bank.transfers.map(\.amount.minorUnits)
    }

    @Test func aBillBeforePaydayIsLeftInTheAccount() async throws {
        let today = Self.today()
        // 950.50 less the rent of 850.00 is 100.50: 0.50 above the minimum of 100.00.
        var (bank, gbp) = Self.bank("bill-before-payday", balance: 950_50)
        bank.standingOrder(gbp, 850_00, next: today.adding(days: 2))
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            // The dry run's summary says it in one line, and moves nothing.
            let config = try writeConfig("minimumBalance: {GBP: 100.00}\n", in: home)
            let dry = try await roundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config, "--dry-run"],
                environment: binaryEnvironment(home, token: "bill-before-payday"))
            #expect(
                dry.stdout.contains(
                    "Safe to save: 0.50 of 1.07 GBP. Through \(today.adding(days: 7).weekdayDayAndMonth): Rent 850.00 on "
                        + "\(today.adding(days: 2).dayAndMonth) (standing order)."), "\(dry.stdout)")
            #expect(await Self.moved(server).isEmpty)
            let (run, report) = try await Self.run(server, home, config: "minimumBalance: {GBP: 100.00}\n")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(await Self.moved(server) == [50])
            let forecast = try #require(Self.forecast(report))
            #expect(forecast["dueTotal"] as? String == "850.00")
            #expect(forecast["lowPoint"] as? String == "100.50")
            #expect(Self.account(report)?["heldBack"] as? String == "0.57")
            let detail = try #require(Self.account(report)?["detail"] as? String)
            #expect(detail.contains("to keep the low point of 100.50 GBP"), "\(detail)")
            // The ledger keeps the forecast in sum, and the history shows it.
            let environment = binaryEnvironment(home, token: "bill-before-payday")
            let history = try await roundup(["history", "--json"], environment: environment)
            let weeks = (try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any])?["weeks"]
            let kept = try #require(((weeks as? [[String: Any]])?.first)?["forecast"] as? [String: Any])
            #expect(kept["payments"] as? Int == 1)
            #expect(kept["due"] as? String == "850.00")
            #expect(kept["lowPoint"] as? String == "100.50")
            #expect(kept["through"] as? String == today.adding(days: 7).description)
            let table = try await roundup(["history"], environment: environment)
            #expect(
                table.stdout.contains(
                    "through \(today.adding(days: 7)): 1 payment due, 850.00 GBP; low point 100.50 GBP"),
                "\(table.stdout)")
        }
    }

    /// A label the bank wrote with a terminal escape, a line break and Markdown is shown as
    /// text in the summary and the Markdown report, never obeyed.
    @Test func aHostileLabelIsShownNotObeyed() async throws {
        var (bank, gbp) = Self.bank("hostile-label", balance: 10_000_00)
        bank.standingOrder(gbp, 10_00, next: Self.today().adding(days: 1), reference: "Rent\u{1b}[2J\n| **x** |")
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            let run = try await roundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL],
                environment: binaryEnvironment(home, token: "hostile-label"))
            #expect(run.status == 0, "\(run.stderr)")
            #expect(!run.stdout.contains("\u{1b}"), "\(run.stdout)")
            #expect(run.stdout.contains("Rent\\u001b[2J\\u000a| **x** | 10.00 on"), "\(run.stdout)")
            let reports = home.path + "/.local/state/roundup/reports"
            let markdown = try #require(
                try FileManager.default.contentsOfDirectory(atPath: reports).first { $0.hasSuffix(".moved.md") })
            let text = try String(contentsOfFile: reports + "/" + markdown, encoding: .utf8)
            #expect(!text.contains("\u{1b}"))
            #expect(!text.contains("\n| **x** |"), "the label's line break started a table row")
        }
    }

    @Test func theDefaultOverdraftGuardAsksTheBankAboutTheAmountWithWhatFallsDue() async throws {
        var (bank, gbp) = Self.bank("overdraft-with-rent", balance: 850_50)
        bank.standingOrder(gbp, 850_00, next: Self.today().adding(days: 3))
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            let (run, report) = try await Self.run(server, home)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(await Self.moved(server).isEmpty)
            let asked = await server.bank.requests.filter { $0.endpoint == .confirmationOfFunds }.map(\.query)
            #expect(asked.map { $0["targetAmountInMinorUnits"] } == ["85107"])
            let detail = Self.account(report)?["detail"] as? String ?? ""
            #expect(detail.contains("moving 1.07 GBP, with 850.00 GBP due before payday, would overdraw"), "\(detail)")
        }
        // With balance:read only, the balance is read: 0.50 left after the rent is not enough.
        var (balanceOnly, account) = Self.bank("overdraft-with-rent-balance", balance: 850_50)
        balanceOnly.state.scopes.removeAll { $0 == "confirmation-of-funds:read" }
        balanceOnly.standingOrder(account, 850_00, next: Self.today().adding(days: 3))
        let other = try TemporaryDirectory()
        try await withEmulator(balanceOnly.state) { server in
            let (run, report) = try await Self.run(server, other)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(await Self.moved(server).isEmpty)
            #expect(Self.account(report)?["heldBack"] as? String == "1.07")
            let detail = Self.account(report)?["detail"] as? String ?? ""
            #expect(detail.contains("the low point of 0.50 GBP"), "\(detail)")
        }
    }

    @Test func paymentsAfterPaydayCancelledOrFromASpaceAreNotCounted() async throws {
        let today = Self.today()
        var (bank, gbp) = Self.bank("not-counted", balance: 10_00)
        bank.standingOrder(gbp, 500_00, next: today.adding(days: 9), reference: "After the horizon")
        bank.standingOrder(gbp, 500_00, next: today.adding(days: 1), reference: "Cancelled", cancelled: true)
        bank.standingOrder(
            gbp, 500_00, next: today.adding(days: 1), reference: "From a space", category: Seed.Uid.gbpSpace)
        bank.mandate(gbp, lastAmount: 500_00, next: today.adding(days: 1), status: "CANCELLED")
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            let (run, report) = try await Self.run(server, home)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(await Self.moved(server) == [1_07])
            let forecast = try #require(Self.forecast(report))
            #expect((forecast["due"] as? [Any])?.isEmpty == true)
            #expect(forecast["complete"] as? Bool == true)
        }
    }

    @Test func aWeeklyOrderIsCountedOnEachDateBeforePayday() async throws {
        let today = Self.today()
        let payday = today.adding(days: 15)
        // Every three weeks, next on the day 15 days from now: 30.00 leaves three times before it.
        var (bank, gbp) = Self.bank("weekly-order", balance: 91_00)
        bank.standingOrder(gbp, 30_00, next: today.adding(days: 1), frequency: "WEEKLY", reference: "Allotment")
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            let (run, report) = try await Self.run(
                server, home, config: "payday: every 3 weeks from \(payday)\nminimumBalance: {GBP: 0.00}\n")
            #expect(run.status == 0, "\(run.stderr)")
            let forecast = try #require(Self.forecast(report))
            #expect(forecast["payday"] as? String == payday.description)
            #expect(
                (forecast["due"] as? [[String: Any]])?.map { $0["date"] as? String }
                    == [1, 8, 15].map {
                        today.adding(days: $0).description
                    })
            #expect(await Self.moved(server) == [1_00])
        }
    }

    @Test func aCatchUpSharesOneReadingOfTheBalanceAndTheSchedule() async throws {
        var (bank, gbp) = Self.bank("catch-up-one-reading", balance: 851_50)
        bank.spend(gbp, 1_50, settled: londonWeek("2026-11-08").start.adding(milliseconds: 3_600_000))
        bank.spend(gbp, 2_43, settled: londonWeek("2026-11-08").start.adding(milliseconds: 3_600_000))
        bank.standingOrder(gbp, 850_00, next: Self.today().adding(days: 2))
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            let config = try writeConfig("minimumBalance: {GBP: 0.00}\n", in: home)
            let environment = binaryEnvironment(home, token: "catch-up-one-reading")
            let base = ["run", "--api-base-url", server.baseURL, "--config", config]
            // A week with nothing in it starts the ledger.
            let first = try await roundup(base + ["--end-date", "2026-11-01"], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            let before = await server.bank.requests.count
            let catchUp = try await roundup(base + ["--end-date", Self.week, "--catch-up"], environment: environment)
            #expect(catchUp.status == 0, "\(catchUp.stderr)")
            // 851.50 less the rent leaves 1.50: the first week moves 1.07, the second what is left.
            #expect(await Self.moved(server) == [1_07, 43])
            let requests = await server.bank.requests.dropFirst(before)
            #expect(requests.filter { $0.endpoint == .balance }.count == 1)
            #expect(requests.filter { $0.endpoint == .standingOrders }.count == 1)
            #expect(requests.filter { $0.endpoint == .mandates }.count == 1)
            #expect(catchUp.stdout.contains("less 1.07 GBP moved by this run's earlier weeks"), "\(catchUp.stdout)")
        }
    }

    @Test func aTokenWithoutTheScopesSavesAsBeforeAndSaysWhatItCouldNotSee() async throws {
        var (bank, gbp) = Self.bank("no-schedule-scopes", balance: 850_50)
        bank.state.scopes.removeAll { BankState.scheduleScopes.contains($0) }
        bank.standingOrder(gbp, 850_00, next: Self.today().adding(days: 1))
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            let (run, report) = try await Self.run(server, home)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(await Self.moved(server) == [1_07])
            #expect(
                run.stderr.contains(
                    "the access token cannot see standing orders (standing-order:read), direct debits (mandate:read), "
                        + "goals' recurring transfers (savings-goal-transfer:read)"), "\(run.stderr)")
            #expect((Self.forecast(report)?["unseen"] as? [String])?.count == 3)
            #expect(
                await server.bank.requests.allSatisfy {
                    ![.standingOrders, .mandates, .recurringTransfer].contains($0.endpoint)
                })
            // check names them too.
            let check = try await roundup(
                ["check", "--api-base-url", server.baseURL],
                environment: binaryEnvironment(home, token: "no-schedule-scopes"))
            #expect(check.stdout.contains("cannot see standing orders"), "\(check.stdout)")
            #expect(check.stdout.contains("it cannot see card subscriptions"), "\(check.stdout)")
        }
    }

    @Test func aListRefusedWithTheScopeHoldsTheWeekBack() async throws {
        var (bank, _) = Self.bank("refused-with-scope", balance: 10_000_00)
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            await server.bank.injectFaults([
                FaultRule(endpoints: [.mandates], when: .always, faults: [.serverError(403)])
            ])
            let (run, report) = try await Self.run(server, home)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(await Self.moved(server).isEmpty)
            #expect(Self.forecast(report)?["complete"] as? Bool == false)
            let detail = Self.account(report)?["detail"] as? String ?? ""
            #expect(
                detail.contains(
                    "held back 1.07 GBP: forecast incomplete (direct debits: the bank refused it (HTTP 403))"),
                "\(detail)")
            // The week is decided: a later run moves nothing.
            await server.bank.injectFaults([])
            let (again, _) = try await Self.run(server, home)
            #expect(again.status == 0)
            #expect(await Self.moved(server).isEmpty)
        }
        // A failure that may pass leaves the week undecided; the next run decides it.
        (bank, _) = Self.bank("unavailable-schedule", balance: 10_000_00)
        let other = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            await server.bank.injectFaults([
                FaultRule(endpoints: [.standingOrders], when: .always, faults: [.serverError(503)])
            ])
            let (run, _) = try await Self.run(server, other, config: "retryAttempts: 1\n")
            #expect(run.status == 69, "\(run.stderr)")
            #expect(await Self.moved(server).isEmpty)
            await server.bank.injectFaults([])
            let (again, _) = try await Self.run(server, other, config: "retryAttempts: 1\n")
            #expect(again.status == 0, "\(again.stderr)")
            #expect(await Self.moved(server) == [1_07])
        }
    }

    /// An order without a next date is placed by the bank's own next dates (`upcoming-payments`).
    @Test func anOrderWithoutANextDateIsPlacedByTheBanksOwnDates() async throws {
        let today = Self.today()
        var (bank, gbp) = Self.bank("bank-dates", balance: 100_00)
        bank.standingOrder(gbp, 99_00, next: nil, frequency: "MONTHLY", reference: "Rent", start: today.adding(days: 3))
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            let (run, report) = try await Self.run(server, home, config: "minimumBalance: {GBP: 0.00}\n")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(await server.bank.requests.filter { $0.endpoint == .upcomingPayments }.count == 1)
            #expect(
                (Self.forecast(report)?["due"] as? [[String: Any]])?.map { $0["date"] as? String }
                    == [today.adding(days: 3).description])
            #expect(await Self.moved(server) == [1_00])
        }
    }

    /// A garbled answer is the account's bad data, as for the feed: 65, nothing moved, no
    /// ledger entry; `upcomingPayments: ignore` reads nothing ahead and saves as before.
    @Test func aGarbledScheduleIs65AndIgnoreReadsNothingAhead() async throws {
        var (bank, gbp) = Self.bank("garbled-schedule", balance: 850_50)
        bank.standingOrder(gbp, 850_00, next: Self.today().adding(days: 1))
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            await server.bank.injectFaults([
                FaultRule(endpoints: [.standingOrders], when: .always, faults: [.malformedBody(.html)])
            ])
            let (run, _) = try await Self.run(server, home, config: "retryAttempts: 1\n")
            #expect(run.status == 65, "\(run.stderr)")
            #expect(await Self.moved(server).isEmpty)
            await server.bank.injectFaults([])
            let before = await server.bank.requests.count
            let (ignored, report) = try await Self.run(server, home, config: "upcomingPayments: ignore\n")
            #expect(ignored.status == 0, "\(ignored.stderr)")
            // Today's balance alone: 850.50 holds the week's 1.07.
            #expect(await Self.moved(server) == [1_07])
            #expect(Self.forecast(report) == nil)
            let after = await server.bank.requests.dropFirst(before)
            #expect(after.allSatisfy { ![.standingOrders, .mandates, .recurringTransfer].contains($0.endpoint) })
        }
    }

    @Test func aPaydayThatIsTodayLooksToTheNextOne() async throws {
        let today = Self.today()
        var (bank, gbp) = Self.bank("payday-today", balance: 100_00)
        bank.standingOrder(
            gbp, 99_50, next: today.adding(days: 7), frequency: "YEARLY", reference: "On the next payday")
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            let (run, report) = try await Self.run(
                server, home, config: "payday: \(today.weekday.rawValue)\nminimumBalance: {GBP: 0.00}\n")
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Self.forecast(report)?["payday"] as? String == today.adding(days: 7).description)
            // Due on the payday itself: counted, which leaves 0.50 to move.
            #expect(await Self.moved(server) == [50])
        }
    }

    @Test func aWeekendPaydayRunsThroughTheMondayAfter() async throws {
        let today = Self.today()
        let saturday = Payday.weekly(.saturday).next(after: today)
        var (bank, gbp) = Self.bank("weekend-payday", balance: 100_00)
        bank.standingOrder(gbp, 40_00, next: saturday.adding(days: 2), frequency: "YEARLY", reference: "Monday")
        bank.standingOrder(gbp, 40_00, next: saturday.adding(days: 3), frequency: "YEARLY", reference: "Tuesday")
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            let (run, report) = try await Self.run(server, home, config: "payday: saturday\n")
            #expect(run.status == 0, "\(run.stderr)")
            let forecast = try #require(Self.forecast(report))
            #expect(forecast["through"] as? String == saturday.adding(days: 2).description)
            #expect((forecast["due"] as? [[String: Any]])?.map { $0["label"] as? String } == ["Monday"])
        }
    }

    /// The horizon starts from today's date in the job's time zone, not in UTC: a zone whose
    /// date differs from UTC's now (a day ahead from 10:00 UTC, a day behind until 11:00).
    @Test func todayIsTheDateInTheJobsTimeZone() async throws {
        let hour = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).hour!
        let zoneName = hour >= 10 ? "Pacific/Kiritimati" : "Pacific/Pago_Pago"
        let zone = try #require(TimeZone(identifier: zoneName))
        let local = Self.today(in: zone)
        #expect(local != Self.today(in: TimeZone(identifier: "UTC")!))
        var (bank, gbp) = Self.bank("zone-\(hour)", balance: 100_00)
        bank.standingOrder(gbp, 10_00, next: local.adding(days: 7), frequency: "YEARLY", reference: "Last day")
        bank.standingOrder(gbp, 10_00, next: local.adding(days: 8), frequency: "YEARLY", reference: "Day after")
        let home = try TemporaryDirectory()
        try await withEmulator(bank.state) { server in
            let (run, report) = try await Self.run(server, home, config: "timeZone: \(zoneName)\n")
            #expect(run.status == 0, "\(run.stderr)")
            let forecast = try #require(Self.forecast(report))
            #expect(forecast["today"] as? String == local.description)
            #expect((forecast["due"] as? [[String: Any]])?.map { $0["label"] as? String } == ["Last day"])
        }
    }
}
