import Foundation
import PropertyBased
import RoundUp
import StarlingAPI
import Testing

/// A direct debit's dates before payday, from only what the bank shows of it (its last
/// payment and its next date): generated true schedules (weekly, fortnightly, three-weekly,
/// four-weekly, monthly, each collection moved past weekends and England and Wales bank holidays), and
/// the job never counts fewer collections before the horizon ends than the schedule makes.
@Suite struct DebitCadenceTests {
    /// England and Wales bank holidays as gov.uk lists them, the true calendar the generated
    /// schedules are moved by.
    static let listed: Set<LocalDate> = Set(
        [
            "2025-01-01", "2025-04-18", "2025-04-21", "2025-05-05", "2025-05-26", "2025-08-25", "2025-12-25",
            "2025-12-26", "2026-01-01", "2026-04-03", "2026-04-06", "2026-05-04", "2026-05-25", "2026-08-31",
            "2026-12-25", "2026-12-28", "2027-01-01", "2027-03-26", "2027-03-29", "2027-05-03", "2027-05-31",
            "2027-08-30", "2027-12-27", "2027-12-28",
        ].map { LocalDate(iso: $0)! })

    static func isWorkingDay(_ date: LocalDate) -> Bool {
        date.weekday != .saturday && date.weekday != .sunday && !listed.contains(date)
    }

    /// The day a collection due on `date` is made.
    static func collected(_ date: LocalDate) -> LocalDate {
        var day = date
        while !isWorkingDay(day) { day = day.adding(days: 1) }
        return day
    }

    @Test func theJobsHolidaysHoldEveryListedOneAndOnlyTheFirstOfMayBeside() {
        for year in 2025...2027 {
            let computed = BankHolidays.holidays(in: year)
            let listed = Self.listed.filter { $0.year == year }
            #expect(listed.isSubset(of: computed), "\(year): \(listed.subtracting(computed).sorted())")
            #expect(computed.subtracting(listed) == [LocalDate(year: year, month: 5, day: 1)!], "\(year)")
        }
        // Easter Monday's Tuesday, the day after a substitute Boxing Day, a plain Friday.
        #expect(BankHolidays.earliestDue(movedTo: LocalDate(iso: "2026-04-07")!) == LocalDate(iso: "2026-04-03"))
        #expect(BankHolidays.earliestDue(movedTo: LocalDate(iso: "2027-12-29")!) == LocalDate(iso: "2027-12-25"))
        #expect(BankHolidays.earliestDue(movedTo: LocalDate(iso: "2026-11-27")!) == LocalDate(iso: "2026-11-27"))
    }

    /// Next on Monday 30 November, which may have been due on the Saturday before.
    @Test(arguments: [
        ("2026-11-23", "2026-11-30", Recurrence(frequency: .weekly)),
        ("2026-11-26", "2026-11-30", Recurrence(frequency: .weekly)),
        ("2026-11-16", "2026-11-30", Recurrence(frequency: .weekly, interval: 2)),
        ("2026-11-19", "2026-11-30", Recurrence(frequency: .weekly, interval: 1)),
        ("2026-11-03", "2026-11-30", Recurrence(frequency: .weekly, interval: 3)),
        ("2026-11-02", "2026-11-30", Recurrence(frequency: .weekly, interval: 4)),
        ("2026-10-30", "2026-11-30", Recurrence(frequency: .monthly)),
        // Paid on Friday 30 October, next on Monday 30 November: 29 to 31 days, monthly;
        // 27 days before (a Sunday's collection moved to Monday the 2nd) would be 4-weekly.
        ("2026-11-03", "2026-11-30", Recurrence(frequency: .weekly, interval: 3)),
        ("2026-09-30", "2026-11-30", Recurrence(frequency: .monthly)),
        ("2026-10-20", "2026-11-30", Recurrence(frequency: .monthly)),
    ])
    func theCadenceIsTheFastestTheGapAllows(last: String, next: String, cadence: Recurrence) {
        let next = LocalDate(iso: next)!
        #expect(DirectDebitMandate.cadence(lastPaid: LocalDate(iso: last), next: next) == cadence)
        #expect(DirectDebitMandate.cadence(lastPaid: nil, next: next) == Recurrence(frequency: .monthly))
    }

    enum Kind: Int, CaseIterable, Sendable {
        case weekly, fortnightly, threeWeekly, fourWeekly, monthly
    }

    struct Debit: Sendable, CustomStringConvertible {
        var kind: Kind
        /// The day its schedule is anchored on (a nominal collection).
        var anchor: LocalDate
        var today: LocalDate
        var payday: Payday?

        /// The nominal dates around today, each as collected.
        var collections: [LocalDate] {
            (-8...60).compactMap { step -> LocalDate? in
                let nominal: LocalDate? =
                    switch kind {
                    case .weekly: anchor.adding(days: 7 * step)
                    case .fortnightly: anchor.adding(days: 14 * step)
                    case .threeWeekly: anchor.adding(days: 21 * step)
                    case .fourWeekly: anchor.adding(days: 28 * step)
                    case .monthly: Recurrence(frequency: .monthly).date(step, after: anchor)
                    }
                return nominal.map(DebitCadenceTests.collected)
            }
        }

        var description: String {
            "\(kind) from \(anchor), today \(today), payday \(payday.map(\.description) ?? "none")"
        }
    }

    static let debits = zip(
        Gen.int(in: 0...4), Gen.int(in: 20_100...20_800), Gen.int(in: 0...40), Gen.int(in: 0...3), Gen.int(in: 1...31)
    ).map { kind, anchor, offset, paydayKind, paydayNumber -> Debit in
        let today = LocalDate(daysSinceEpoch: anchor + offset)
        let payday: Payday? =
            switch paydayKind {
            case 0: nil
            case 1: .monthly(day: paydayNumber)
            case 2: .weekly(Weekday.allCases[paydayNumber % 7])
            default: .everyWeeks(1 + paydayNumber % 8, from: today.adding(days: -paydayNumber))
            }
        return Debit(
            kind: Kind(rawValue: kind)!, anchor: LocalDate(daysSinceEpoch: anchor), today: today, payday: payday)
    }

    /// The bank shows the last collection before today and the next one from today; the job
    /// counts at least every collection the schedule makes from today through the horizon.
    @Test func theJobNeverCountsFewerCollectionsThanFallDue() async throws {
        await propertyCheck(count: 3000, input: Self.debits) { debit in
            let collections = debit.collections
            guard let last = collections.last(where: { $0 < debit.today }),
                let next = collections.first(where: { $0 >= debit.today })
            else { return }
            let horizon = Horizon(today: debit.today, payday: debit.payday)
            let due = collections.filter { $0 >= debit.today && $0 <= horizon.end }
            let json = """
                {"uid": "eeffeeff-eeff-4eff-8eff-eeffeeffeeff", "status": "LIVE", "nextDate": "\(next)",
                 "originatorName": "Energy", "lastPayment": {"lastDate": "\(last)",
                 "lastAmount": {"currency": "GBP", "minorUnits": 3000}}}
                """
            let mandate = try! JSONDecoder().decode(DirectDebitMandate.self, from: Data(json.utf8))
            let account = Account(
                uid: "acc00000-0000-4000-8000-000000000001", defaultCategory: "ca700000-0000-4000-8000-000000000001",
                currencyCode: "GBP")
            let payments: [ScheduledPayment]
            switch mandate.placement(in: account, horizon: horizon) {
            case .payments(let placed): payments = placed
            // Dates first: a next date after the horizon's end is the only reason to leave it out.
            case .notCounted:
                payments =
                    next > horizon.end
                    ? [] : [ScheduledPayment(label: "left out", source: .directDebit, amount: nil, next: next)]
            case .unplaced(let why):
                Issue.record("\(debit): not placed: \(why)")
                return
            }
            let counted = Forecast(payments, in: horizon, currency: Currency(code: "GBP")!).due
            #expect(
                counted.count >= due.count,
                "\(debit): last \(last), next \(next), through \(horizon.end): due \(due), counted \(counted.map(\.date))"
            )
            #expect(counted.first?.date == next || due.isEmpty)
            #expect(counted.dropFirst().allSatisfy { $0.dateReckoned })
        }
    }
}
