import PropertyBased
import Testing

@testable import RoundUp

/// Paydays, horizons and the dates scheduled payments fall on, without any server.
@Suite struct PaydayTests {
    static func date(_ text: String) -> LocalDate { LocalDate(iso: text)! }

    @Test(arguments: [
        ("25", Payday.monthly(day: 25)), ("31", .monthly(day: 31)), (" 1 ", .monthly(day: 1)),
        ("friday", .weekly(.friday)), ("Friday", .weekly(.friday)),
        ("every 2 weeks from 2026-11-27", .everyWeeks(2, from: date("2026-11-27"))),
        ("Every  4 weeks from 2026-01-02", .everyWeeks(4, from: date("2026-01-02"))),
        ("every 1 week from 2026-01-02", .everyWeeks(1, from: date("2026-01-02"))),
    ])
    func aPaydayIsReadAsWritten(text: String, payday: Payday) throws {
        #expect(try Payday(parsing: text) == payday)
    }

    @Test(arguments: [
        ("0", "1 to 31"), ("32", "1 to 31"), ("01", "write 1"), ("+5", "write a day"),
        ("fri", "write a day"), ("every 9 weeks from 2026-11-27", "1 to 8"),
        ("every 2 weeks from 2026-13-01", "not a date"), ("every 2 weeks", "write a day"), ("", "write a day"),
        ("every 10 weeks from 2026-11-27", "1 to 8"),
    ])
    func aPaydayNotUnderstoodSaysWhy(text: String, why: String) {
        #expect(throws: PaydayError.self) { try Payday(parsing: text) }
        do {
            _ = try Payday(parsing: text)
        } catch {
            #expect(error.description.contains(why), "\(error.description)")
        }
    }

    @Test(arguments: [
        // A day of the month: after today, never today; a short month's last day stands in.
        (Payday.monthly(day: 25), "2026-11-24", "2026-11-25"),
        (.monthly(day: 25), "2026-11-25", "2026-12-25"),
        (.monthly(day: 31), "2026-02-01", "2026-02-28"),
        (.monthly(day: 31), "2028-02-01", "2028-02-29"),
        (.monthly(day: 30), "2026-12-30", "2027-01-30"),
        (.monthly(day: 31), "2026-04-30", "2026-05-31"),
        // A weekday: the next one, a week on when it is today.
        (.weekly(.friday), "2026-11-26", "2026-11-27"),
        (.weekly(.friday), "2026-11-27", "2026-12-04"),
        // Every two weeks from a payday, before and after it.
        (.everyWeeks(2, from: date("2026-11-27")), "2026-11-26", "2026-11-27"),
        (.everyWeeks(2, from: date("2026-11-27")), "2026-11-27", "2026-12-11"),
        (.everyWeeks(2, from: date("2026-11-27")), "2026-12-10", "2026-12-11"),
        (.everyWeeks(2, from: date("2026-11-27")), "2026-11-01", "2026-11-13"),
        (.everyWeeks(4, from: date("2026-11-27")), "2027-01-22", "2027-02-19"),
    ])
    func theNextPaydayIsAfterToday(payday: Payday, today: String, next: String) {
        #expect(payday.next(after: Self.date(today)) == Self.date(next))
    }

    @Test func everyPaydayComesAfterTodayAndWithinItsPeriod() async {
        let paydays = zip(Gen.int(in: 0...2), Gen.int(in: 1...31), Gen.int(in: 1...8), Gen.int(in: 18_000...22_000)).map
        {
            kind, number, weeks, start -> Payday in
            switch kind {
            case 0: .monthly(day: number)
            case 1: .weekly(Weekday.allCases[number % 7])
            default: .everyWeeks(weeks, from: LocalDate(daysSinceEpoch: start))
            }
        }
        await propertyCheck(count: 2000, input: paydays, Gen.int(in: 18_000...22_000)) { payday, day in
            let today = LocalDate(daysSinceEpoch: day)
            let next = payday.next(after: today)
            #expect(next > today)
            #expect(next.daysSinceEpoch - today.daysSinceEpoch <= 56)
            switch payday {
            case .weekly(let weekday): #expect(next.weekday == weekday)
            case .monthly(let day): #expect(next.day == min(day, LocalDate.daysIn(month: next.month, year: next.year)))
            case .everyWeeks(let weeks, let start):
                #expect((next.daysSinceEpoch - start.daysSinceEpoch) % (7 * weeks) == 0)
                #expect(next.daysSinceEpoch - today.daysSinceEpoch <= 7 * weeks)
            }
        }
    }

    @Test func aPaydayOnAClosedDayRunsTheHorizonThroughTheNextWorkingDay() {
        // 2026-11-28 is a Saturday; 2026-11-29 a Sunday.
        let saturday = Horizon(today: Self.date("2026-11-26"), payday: .monthly(day: 28))
        #expect(saturday.payday == Self.date("2026-11-28"))
        #expect(saturday.end == Self.date("2026-11-30"))
        #expect(saturday.paydayOnAClosedDay)
        let sunday = Horizon(today: Self.date("2026-11-26"), payday: .weekly(.sunday))
        #expect(sunday.end == Self.date("2026-11-30"))
        let friday = Horizon(today: Self.date("2026-11-26"), payday: .weekly(.friday))
        #expect(friday.end == Self.date("2026-11-27"))
        #expect(!friday.paydayOnAClosedDay)
        // Saturday 26 December 2026: Monday the 28th is the substitute Boxing Day.
        let boxingDay = Horizon(today: Self.date("2026-12-20"), payday: .monthly(day: 26))
        #expect(boxingDay.end == Self.date("2026-12-29"))
        // Good Friday, 3 April 2026, then Easter Monday.
        let goodFriday = Horizon(today: Self.date("2026-03-30"), payday: .monthly(day: 3))
        #expect(goodFriday.end == Self.date("2026-04-07"))
        #expect(goodFriday.paydayOnAClosedDay)
    }

    @Test func withoutAPaydayTheHorizonIsTheNextSevenDays() {
        let horizon = Horizon(today: Self.date("2026-11-26"), payday: nil)
        #expect(horizon.end == Self.date("2026-12-03"))
        #expect(horizon.payday == nil)
    }
}

@Suite struct ScheduleTests {
    static let gbp = Currency(code: "GBP")!
    static func date(_ text: String) -> LocalDate { LocalDate(iso: text)! }
    static func money(_ minor: Int64) -> Money { Money(minorUnits: minor, currency: gbp) }
    static let horizon = Horizon(today: date("2026-11-26"), end: date("2026-12-25"), payday: date("2026-12-25"))

    static func payment(_ next: String, _ recurrence: Recurrence?, amount: Int64 = 10_00) -> ScheduledPayment {
        ScheduledPayment(
            label: "x", source: .standingOrder, amount: money(amount), next: date(next), recurrence: recurrence)
    }

    @Test func aWeeklyOrderIsCountedOnEachDate() {
        let dates = Self.payment("2026-11-27", Recurrence(frequency: .weekly)).dates(in: Self.horizon)
        #expect(dates.map(\.description) == ["2026-11-27", "2026-12-04", "2026-12-11", "2026-12-18", "2026-12-25"])
    }

    @Test func anIntervalStepsByFrequencyTimesInterval() {
        let fortnightly = Self.payment("2026-11-27", Recurrence(frequency: .weekly, interval: 2)).dates(
            in: Self.horizon)
        #expect(fortnightly.map(\.description) == ["2026-11-27", "2026-12-11", "2026-12-25"])
        let everyTenDays = Self.payment("2026-11-30", Recurrence(frequency: .daily, interval: 10)).dates(
            in: Self.horizon)
        #expect(everyTenDays.map(\.description) == ["2026-11-30", "2026-12-10", "2026-12-20"])
    }

    @Test func aMonthlyOrderKeepsItsDayWithAShortMonthsLastDayStandingIn() {
        let horizon = Horizon(today: Self.date("2027-01-01"), end: Self.date("2027-05-01"), payday: nil)
        let dates = Self.payment("2027-01-31", Recurrence(frequency: .monthly)).dates(in: horizon)
        #expect(dates.map(\.description) == ["2027-01-31", "2027-02-28", "2027-03-31", "2027-04-30"])
    }

    @Test func untilDateEndsTheOrder() {
        let dates = Self.payment("2026-11-27", Recurrence(frequency: .weekly, until: Self.date("2026-12-10")))
            .dates(in: Self.horizon)
        #expect(dates.map(\.description) == ["2026-11-27", "2026-12-04"])
    }

    @Test func aNextDateLongPastIsOnePaymentNotOneADaySince() {
        let dates = Self.payment("2025-01-01", Recurrence(frequency: .daily)).dates(in: Self.horizon)
        #expect(dates.first == Self.date("2025-01-01"))
        #expect(dates.count == 1 + 30)  // the payment not made, then each day from today to the end
        #expect(dates.dropFirst().first == Self.date("2026-11-26"))
    }

    @Test func aNextDateAfterTheHorizonIsNotDue() {
        #expect(Self.payment("2026-12-26", Recurrence(frequency: .daily)).dates(in: Self.horizon).isEmpty)
        #expect(Self.payment("2026-12-25", nil).dates(in: Self.horizon) == [Self.date("2026-12-25")])
    }

    /// Intervals and dates no bank would give still end: past the year 9999 there is no date.
    @Test func aHugeIntervalOrADateAtTheEndOfTimeNeverCrashes() {
        for frequency in Recurrence.Frequency.allCases {
            for interval in [8000, 100_000, Int.max] {
                let dates = Self.payment("2026-11-20", Recurrence(frequency: frequency, interval: interval))
                    .dates(in: Self.horizon)
                #expect(dates == [Self.date("2026-11-20")])
            }
            #expect(Recurrence(frequency: frequency).date(1, after: Self.date("9999-12-31")) == nil)
        }
        #expect(Recurrence(frequency: .monthly).date(1, after: Self.date("9999-12-15")) == nil)
        #expect(Recurrence(frequency: .monthly).date(1, after: Self.date("9999-11-30")) == Self.date("9999-12-30"))
    }

    @Test func aWeeklyTransferOnListedDaysFallsOnEachOfThem() {
        let rule = Recurrence(frequency: .weekly, interval: 2, days: [.monday, .thursday])
        let horizon = Horizon(today: Self.date("2026-11-26"), end: Self.date("2026-12-14"), payday: nil)
        // 2026-11-26 is a Thursday: that week, then the week of 7 Dec.
        let dates = Self.payment("2026-11-26", rule).dates(in: horizon)
        #expect(dates.map(\.description) == ["2026-11-26", "2026-12-07", "2026-12-10"])
    }

    @Test func whatCannotBePlacedMakesTheForecastIncomplete() {
        let unknown = ScheduledPayment(
            label: "Energy", source: .directDebit, amount: nil, next: Self.date("2026-11-30"))
        let euros = ScheduledPayment(
            label: "Flat", source: .standingOrder, amount: Money(minorUnits: 5_00, currency: Currency(code: "EUR")!),
            next: Self.date("2026-11-30"))
        let later = ScheduledPayment(label: "Later", source: .directDebit, amount: nil, next: Self.date("2027-01-30"))
        let forecast = Forecast([unknown, euros, later], in: Self.horizon, currency: Self.gbp)
        #expect(!forecast.isComplete)
        #expect(forecast.unplaced.count == 2)
        #expect(forecast.unplaced[0].contains("amount unknown"))
        #expect(forecast.unplaced[1].contains("in EUR, not GBP"))
        #expect(Forecast([later], in: Self.horizon, currency: Self.gbp).isComplete)
    }

    @Test func theLowPointTakesWhatFallsDueAndWhatWasMoved() {
        let forecast = Forecast(
            [
                Self.payment("2026-11-27", Recurrence(frequency: .weekly), amount: 10_00),
                Self.payment("2026-12-01", nil, amount: 850_00),
            ],
            in: Self.horizon, currency: Self.gbp)
        #expect(forecast.dueMinorUnits == 5 * 10_00 + 850_00)
        #expect(forecast.lowPoint(balance: Self.money(1_000_00), movedEarlier: Self.money(2_00)) == Self.money(98_00))
        // At the far end of Int64 it stays there.
        #expect(
            forecast.lowPoint(balance: Money(minorUnits: .min, currency: Self.gbp), movedEarlier: Self.money(1))
                .minorUnits == .min)
    }

    /// The dates agree with stepping one payment at a time from the next date, however far
    /// in the past it is, for every frequency, interval and end date.
    @Test func theDatesAgreeWithSteppingOneAtATime() async {
        let recurrences = zip(Gen.int(in: 0...3), Gen.int(in: 1...20), Gen.int(in: -1...400)).map {
            Recurrence(
                frequency: Recurrence.Frequency.allCases[$0], interval: $1,
                until: $2 < 0 ? nil : LocalDate(daysSinceEpoch: 20_000 + $2))
        }
        await propertyCheck(
            count: 3000, input: recurrences, Gen.int(in: 19_000...20_500), Gen.int(in: 20_000...20_100),
            Gen.int(in: 0...60)
        ) { recurrence, nextDay, todayDay, length in
            let next = LocalDate(daysSinceEpoch: nextDay)
            let today = LocalDate(daysSinceEpoch: todayDay)
            let horizon = Horizon(today: today, end: today.adding(days: length), payday: nil)
            let payment = ScheduledPayment(
                label: "x", source: .standingOrder, amount: Self.money(1), next: next, recurrence: recurrence)
            var expected: [LocalDate] = []
            if next <= horizon.end { expected.append(next) }
            var step = 1
            while next <= horizon.end {
                guard let date = recurrence.date(step, after: next) else { break }
                if date > horizon.end || (recurrence.until.map { date > $0 } ?? false) { break }
                if date >= today { expected.append(date) }
                step += 1
            }
            #expect(payment.dates(in: horizon) == expected)
        }
    }
}
