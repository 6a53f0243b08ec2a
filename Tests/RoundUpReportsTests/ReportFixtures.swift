import Foundation
import RoundUp
import TestSupport

@testable import RoundUpReports

/// Reports made by hand, for the tests that hold the JSON writer, the Markdown and the
/// schema to the report's structures: `full` sets every field at every level, `bare` only
/// those a report always has.
enum ReportFixtures {
    static let week = Week(endingOn: LocalDate(iso: "2026-11-15")!, in: TimeZone(identifier: "Europe/London")!)

    static let pounds = Currency(code: "GBP")!

    static func gbp(_ minorUnits: Int64) -> Money { Money(minorUnits: minorUnits, currency: pounds) }

    static let generatedAt = Instant(iso8601: "2026-11-16T06:00:01.000Z")!

    static let transaction = CountedTransaction(
        uid: namedUid("feed-1"), settlementTime: Instant(iso8601: "2026-11-10T12:30:00.000Z"),
        counterPartyName: "Café \"Le Bon\" <b>", amount: Money(minorUnits: 435, currency: pounds),
        roundUp: Money(minorUnits: 65, currency: pounds), source: .card)

    static let leftOut = LeftOutReport(
        feedItemUid: namedUid("feed-3"), settlementTime: Instant(iso8601: "2026-11-12T09:00:00.000Z"),
        counterParty: "Acme <Ltd>",
        amount: Money(minorUnits: 215_000, currency: pounds), reason: "incoming",
        source: PaymentSource.bankTransfer.rawValue)

    /// A forecast with every field set.
    static let forecast = ForecastReport(
        Forecast(
            horizon: Horizon(
                today: LocalDate(iso: "2026-11-16")!, end: LocalDate(iso: "2026-11-30")!,
                payday: LocalDate(iso: "2026-11-28")!),
            due: [
                DuePayment(
                    label: "Rent <flat>", source: .standingOrder, date: LocalDate(iso: "2026-11-16")!,
                    amount: gbp(850_00)),
                DuePayment(
                    label: "Octopus", source: .directDebit, date: LocalDate(iso: "2026-11-20")!, amount: gbp(30_00),
                    lastAmount: true),
            ],
            unplaced: ["Gym (direct debit) on 2026-11-21: amount unknown"],
            unseen: ["goals' recurring transfers (savings-goal-transfer:read)"]),
        currency: pounds, lowPoint: gbp(-777_50))

    /// An account with every field set; `created` chooses which of the goal's flags is on.
    static func fullAccount(created: Bool) -> AccountReport {
        AccountReport(
            accountUid: "account-\(created)", name: "Personal | main", currency: "GBP", accountType: "PRIMARY",
            nativeRoundUp: "active", status: created ? .transferred : .dryRun, detail: "moved 5.00 GBP",
            transactions: [transaction, transaction], countedEarlier: [transaction],
            leftOut: Dictionary(uniqueKeysWithValues: Exclusion.allCases.map { ($0.rawValue, 1) }),
            leftOutTransactions: [leftOut],
            roundUpSum: gbp(607), multiplier: 2, roundTo: 5, capApplied: gbp(500), minimumBalance: gbp(100_00),
            balance: gbp(102_50), heldBack: gbp(250), total: gbp(250),
            goal: GoalReport(
                uid: "goal-1", name: "Round-ups", created: created, wouldCreate: !created, saved: gbp(41_20),
                target: gbp(100_00)),
            transferUid: "transfer-1",
            window: WindowReport(
                start: Instant(iso8601: "2026-11-09T00:00:00.000Z")!,
                end: Instant(iso8601: "2026-11-15T11:00:00.000Z")!,
                hours: 155,
                note: "shortened by 13 hours: it ends at 2026-11-15T11:00:00.000Z"),
            forecast: forecast,
            exitCode: .dataError)
    }

    static let full: WeekReport = {
        var report = WeekReport(
            generator: "roundup 0.0.0", generatedAt: generatedAt, dryRun: false, week: week,
            accounts: [fullAccount(created: true), fullAccount(created: false)], error: "the bank said no",
            exitCode: .unavailable, retries: 2, requests: 17, requestsPerAccountWeek: Decimal(string: "8.5"))
        report.bankClockOffsetSeconds = -900
        return report
    }()

    /// `full` with its first account's week moved into two goals: a report of schema 2.
    static let fullWithLegs: WeekReport = {
        var report = full
        report.accounts[0].status = .partlyTransferred
        report.accounts[0].legs = [
            LegReport(
                goal: GoalReport(
                    uid: "goal-1", name: "Emergency | fund", created: true, wouldCreate: false, saved: gbp(500_00),
                    target: gbp(500_00)),
                amount: gbp(100), transferUid: "transfer-1", status: "transferred"),
            LegReport(
                goal: GoalReport(
                    uid: "goal-2", name: "Round-ups", created: false, wouldCreate: true, saved: gbp(12_00),
                    target: gbp(20_00)),
                amount: gbp(150), transferUid: "transfer-2", status: "unconfirmed"),
        ]
        return report
    }()

    /// A leg with only what it cannot be without.
    static let bareLeg = LegReport(goal: bareGoal, amount: gbp(1), transferUid: nil, status: nil)

    static let bareTransaction = CountedTransaction(
        uid: namedUid("feed-2"), settlementTime: Instant(iso8601: "2026-11-11T08:00:00.000Z"), counterPartyName: nil,
        amount: Money(minorUnits: 100, currency: pounds), roundUp: Money(minorUnits: 0, currency: pounds))

    static let bareGoal = GoalReport(name: "Round-ups")

    static let bareAccount = AccountReport(accountUid: "account-bare", currency: "EUR", status: .nothingToMove)

    static let bare = WeekReport(
        generator: "roundup 0.0.0", generatedAt: generatedAt, dryRun: true, week: week, accounts: [],
        exitCode: .ok)

    /// `bare` with two bare accounts, one with a bare transaction and goal.
    static var sparse: WeekReport {
        var report = bare
        var account = bareAccount
        account.transactions = [bareTransaction]
        account.goal = bareGoal
        report.accounts = [account, bareAccount]
        return report
    }

    /// Where `value` leaves a field of the report unset: an optional that is nil, or an
    /// array or map that is empty. Empty for `full`, but for its accounts' `legs`, which only
    /// a week into several goals has (`fullWithLegs`).
    static func unset(in value: Any, at path: String = "report") -> [String] {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first?.value else { return [path] }
            return unset(in: wrapped, at: path)
        case .collection, .dictionary:
            guard !mirror.children.isEmpty else { return [path] }
            return mirror.children.enumerated().flatMap { index, child in
                unset(in: child.value, at: "\(path)[\(index)]")
            }
        default:
            guard
                value is WeekReport || value is AccountReport || value is CountedTransaction
                    || value is GoalReport || value is LegReport
            else { return [] }
            return mirror.children.flatMap { unset(in: $0.value, at: "\(path).\($0.label ?? "?")") }
        }
    }

    /// The optional fields `value` sets, which a bare value leaves nil. A transaction's
    /// `settlementTime` is optional only because the domain's payment type is: a counted
    /// payment always has one, and the report always writes the key.
    static func set(in value: Any) -> [String] {
        Mirror(reflecting: value).children.compactMap { child in
            if value is CountedTransaction, child.label == "settlementTime" { return nil }
            let member = Mirror(reflecting: child.value)
            return member.displayStyle == .optional && !member.children.isEmpty ? child.label ?? "?" : nil
        }
    }
}
