import PropertyBased
import RoundUp
import Testing

@testable import RoundUpWeek

/// The week's decision measured against the forecast's low point, without any server:
/// thousands of generated months of standing orders, direct debits and goal transfers,
/// paydays of every kind (on weekends and at the ends of short months), and catch-ups
/// whose earlier weeks already moved money.
@Suite struct SafeToSaveTests {
    static let gbp = Currency(code: "GBP")!
    static func money(_ minor: Int64) -> Money { Money(minorUnits: minor, currency: gbp) }

    /// One generated month: today, a payday, what the bank has scheduled, the balance, a
    /// minimum (or none), the round-up and what the run's earlier weeks moved.
    struct Month: Sendable, CustomStringConvertible {
        var today: LocalDate
        var payday: Payday?
        var payments: [ScheduledPayment]
        var balance: Int64
        var minimum: Int64?
        var whenBelow: BelowMinimum
        var total: Int64
        var moved: Int64

        var horizon: Horizon { Horizon(today: today, payday: payday) }
        var forecast: Forecast { Forecast(payments, in: horizon, currency: SafeToSaveTests.gbp) }

        var description: String {
            "today \(today), payday \(payday.map(\.description) ?? "none"), balance \(balance), minimum "
                + "\(minimum.map(String.init) ?? "none") (\(whenBelow)), total \(total), moved \(moved), "
                + "payments \(payments.map { "\($0.source.rawValue) \($0.amount?.minorUnits ?? -1) from \($0.next) \($0.recurrence.map { "\($0.frequency)×\($0.interval)" } ?? "once")" })"
        }
    }

    static let payment = zip(
        Gen.int(in: 0...4), Gen.int(in: 1...3), Gen.int(in: -20...45), Gen.int64(in: 0...90_000), Gen.int(in: 0...2)
    ).map { kind, interval, offset, amount, source -> (Int, Int, Int, Int64, Int) in
        (kind, interval, offset, amount, source)
    }

    static let months = zip(
        Gen.int(in: 19_700...21_500), Gen.int(in: 0...3), Gen.int(in: 1...31),
        payment.array(of: 0...7), Gen.int64(in: -50_000...250_000), Gen.int64(in: -1...30_000), Gen.bool(),
        zip(Gen.int64(in: 1...3_000), Gen.int64(in: 0...8_000))
    ).map { day, paydayKind, paydayNumber, raw, balance, minimum, skip, amounts -> Month in
        let today = LocalDate(daysSinceEpoch: day)
        let payday: Payday? =
            switch paydayKind {
            case 0: nil
            case 1: .monthly(day: paydayNumber)
            case 2: .weekly(Weekday.allCases[paydayNumber % 7])
            default: .everyWeeks(1 + paydayNumber % 4, from: today.adding(days: -paydayNumber))
            }
        let payments = raw.map { kind, interval, offset, amount, source in
            ScheduledPayment(
                label: "p", source: ScheduleSource.allCases[source], amount: SafeToSaveTests.money(amount),
                lastAmount: source == 1, next: today.adding(days: offset),
                recurrence: kind == 4
                    ? nil : Recurrence(frequency: Recurrence.Frequency.allCases[kind], interval: interval))
        }
        return Month(
            today: today, payday: payday, payments: payments, balance: balance, minimum: minimum < 0 ? nil : minimum,
            whenBelow: skip ? .skip : .reduce, total: amounts.0, moved: amounts.1)
    }

    /// What moves, from the decision: the transfer's amount, or nothing.
    static func moved(_ decision: AccountDecision) -> Int64? {
        switch decision {
        case .transfer(let amount, _): amount.minorUnits
        case .nothingToMove: 0
        default: nil
        }
    }

    @Test func afterTheMoveTheLowPointIsNeverBelowTheMinimumOrZero() async {
        await propertyCheck(count: 4000, input: Self.months) { month in
            let forecast = month.forecast
            let facts = AccountFacts(
                total: Self.money(month.total),
                minimum: month.minimum.map { MinimumBalance(minimum: Self.money($0), whenBelow: month.whenBelow) },
                balance: Self.money(month.balance), overdraft: .balance, forecast: forecast,
                movedEarlier: Self.money(month.moved))
            let decision = AccountDecision.decide(facts)
            guard let move = Self.moved(decision) else {
                Issue.record("no decision for \(month): \(decision)")
                return
            }
            let low = month.balance - forecast.dueMinorUnits - month.moved
            let floor = max(month.minimum ?? 0, 0)
            #expect(move >= 0 && move <= month.total, "\(month)")
            if move > 0 { #expect(low - move >= floor, "\(month): moved \(move) from a low point of \(low)") }
            let room = max(low - floor, 0)
            let expected: Int64 =
                if month.total <= room {
                    month.total
                } else if month.minimum != nil, month.whenBelow == .reduce {
                    room
                } else {
                    0
                }
            // With reduce, what moves is the largest amount that keeps the low point there.
            #expect(move == expected, "\(month)")
        }
    }

    @Test func theBankIsAskedAboutTheAmountPlusWhatFallsDue() async {
        await propertyCheck(count: 500, input: Self.months) { month in
            let forecast = month.forecast
            let facts = AccountFacts(total: Self.money(month.total), overdraft: .askBank, forecast: forecast)
            #expect(AccountDecision.decide(facts) == .confirmFunds(Self.money(month.total + forecast.dueMinorUnits)))
        }
    }

    /// A dry run's earlier weeks moved nothing at the bank: the bank is asked about what
    /// they would have moved too, so that the dry run says what a real run would do.
    @Test func aDryRunAsksTheBankAboutWhatItsEarlierWeeksWouldHaveMoved() {
        let forecast = Forecast(horizon: Horizon(today: LocalDate(iso: "2026-11-26")!, payday: nil))
        var facts = AccountFacts(
            total: Self.money(1_00), overdraft: .askBank, forecast: forecast, movedEarlier: Self.money(2_50),
            dryRun: true)
        #expect(AccountDecision.decide(facts) == .confirmFunds(Self.money(3_50)))
        facts.dryRun = false
        #expect(AccountDecision.decide(facts) == .confirmFunds(Self.money(1_00)))
    }

    @Test func anIncompleteForecastMovesNothing() {
        var facts = AccountFacts(
            total: Self.money(2_98), balance: Self.money(1_000_000_00), overdraft: .balance,
            forecast: Forecast(
                horizon: Horizon(today: LocalDate(iso: "2026-11-26")!, payday: nil),
                unplaced: ["Energy (direct debit) on 2026-11-30: amount unknown"]))
        guard case .nothingToMove(let outcome?) = AccountDecision.decide(facts) else {
            Issue.record("moved on an incomplete forecast")
            return
        }
        #expect(outcome.heldBack == Self.money(2_98))
        #expect(
            outcome.note?.contains("forecast incomplete (Energy (direct debit) on 2026-11-30: amount unknown)") == true)
        // Not even under overdraft: allow with a minimum.
        facts.overdraft = .none
        facts.minimum = MinimumBalance(minimum: Self.money(0), whenBelow: .reduce)
        #expect(Self.moved(AccountDecision.decide(facts)) == 0)
    }

    @Test func theReasonNamesTheLowPointAndWhatFellDue() {
        let today = LocalDate(iso: "2026-11-26")!
        let rent = ScheduledPayment(
            label: "Rent", source: .standingOrder, amount: Self.money(850_00), next: LocalDate(iso: "2026-11-28")!)
        let facts = AccountFacts(
            total: Self.money(2_29), minimum: MinimumBalance(minimum: Self.money(0), whenBelow: .reduce),
            balance: Self.money(851_00), overdraft: .balance,
            forecast: Forecast([rent], in: Horizon(today: today, payday: .monthly(day: 30)), currency: Self.gbp),
            movedEarlier: Self.money(0))
        guard case .transfer(let amount, let outcome?) = AccountDecision.decide(facts) else {
            Issue.record("no transfer")
            return
        }
        #expect(amount == Self.money(1_00))
        #expect(outcome.lowPoint == Self.money(1_00))
        #expect(
            outcome.note
                == "reduced from 2.29 GBP to keep the low point of 1.00 GBP before payday on Mon 30 Nov (the balance of "
                + "851.00 GBP, less 850.00 GBP due) at or above the minimum of 0.00 GBP")
    }
}
