import Foundation
import RoundUp
import Testing

@testable import RoundUpVocabulary
@testable import RoundUpWeek

/// An account's bounds for a week, from its neighbouring weeks in the ledger alone.
struct WeekWindowTests {
    static let london = TimeZone(identifier: "Europe/London")!
    static let auckland = TimeZone(identifier: "Pacific/Auckland")!

    static func week(_ end: String, _ zone: TimeZone) -> Week { Week(endingOn: LocalDate(iso: end)!, in: zone) }

    static func span(_ week: Week, itemised: Bool = true) -> CountedSpan {
        CountedSpan(
            weekEnd: week.endDate, start: week.start, end: week.end, timeZone: week.timeZone.identifier,
            itemised: itemised)
    }

    @Test func aWeekAloneIsItsSevenLocalDays() {
        let week = Self.week("2026-11-22", Self.london)
        let window = WeekWindow.decide(week, scheduled: true, recorded: nil, neighbours: [])
        #expect(window == WeekWindow(week: week, note: nil))
        // The week before, ending where this one starts, changes nothing.
        let before = Self.span(Self.week("2026-11-15", Self.london))
        #expect(WeekWindow.decide(week, scheduled: true, recorded: nil, neighbours: [before]).note == nil)
    }

    @Test func afterLondonAnAucklandWeekStartsWhereLondonsEnded() {
        // London's week ends 2026-11-16T00:00Z; Auckland's starts 13 hours earlier (NZDT).
        let london = Self.week("2026-11-15", Self.london)
        let auckland = Self.week("2026-11-22", Self.auckland)
        #expect(auckland.start.millisecondsSince1970 == london.end.millisecondsSince1970 - 13 * 3_600_000)
        let window = WeekWindow.decide(auckland, scheduled: true, recorded: nil, neighbours: [Self.span(london)])
        #expect(window.week.start == london.end)
        #expect(window.week.end == auckland.end)
        #expect(window.week.endDate == auckland.endDate)
        let note = window.note
        #expect(note?.hasPrefix("shortened by 13 hours: it starts at 2026-11-16T00:00:00.000Z") == true)
        #expect(note?.contains("(counted in Europe/London)") == true)
    }

    @Test func afterAucklandALondonWeekStartsWhereAucklandsEnded() {
        let auckland = Self.week("2026-11-15", Self.auckland)
        let london = Self.week("2026-11-22", Self.london)
        let window = WeekWindow.decide(london, scheduled: true, recorded: nil, neighbours: [Self.span(auckland)])
        #expect(window.week.start == auckland.end)
        #expect(window.week.milliseconds == london.milliseconds + 13 * 3_600_000)
        #expect(window.note?.hasPrefix("stretched by 13 hours") == true)
        #expect(window.note?.contains("so that no payment falls between the two") == true)
    }

    @Test func aWeekAWholeWeekFromTheOneBeforeIsNotStretched() {
        // By hand, the week ending Wednesday 4 November: 18 days before the Sunday week's
        // end, so a whole week lies between the two, which a catch-up rounds up.
        let manual = Self.span(Self.week("2026-11-04", Self.london))
        let week = Self.week("2026-11-22", Self.london)
        #expect(WeekWindow.decide(week, scheduled: true, recorded: nil, neighbours: [manual]).note == nil)
        // Auckland's week a day off, and a week by hand, are never moved to meet another.
        let auckland = Self.span(Self.week("2026-11-15", Self.auckland))
        let manualWeek = Self.week("2026-11-18", Self.london)
        #expect(WeekWindow.decide(manualWeek, scheduled: false, recorded: nil, neighbours: [auckland]).note == nil)
    }

    /// The account's newest week ended less than a whole week before a scheduled week
    /// begins (the schedule's day changed, or a week by hand ended on a Wednesday): the
    /// scheduled week reaches back to it, so that no day is in no week.
    @Test func aScheduledWeekReachesBackOverDaysInNoWeek() {
        let sunday = Self.span(Self.week("2026-11-08", Self.london))
        let tuesday = Self.week("2026-11-17", Self.london)
        let window = WeekWindow.decide(tuesday, scheduled: true, recorded: nil, neighbours: [sunday])
        #expect(window.week.start == sunday.end)
        #expect(window.note?.hasPrefix("stretched by 48 hours") == true, "\(window.note ?? "")")
        #expect(window.note?.contains("that week ended on a Sunday, this one on a Tuesday") == true)
        let manual = Self.span(Self.week("2026-11-11", Self.london))
        let after = WeekWindow.decide(
            Self.week("2026-11-22", Self.london), scheduled: true, recorded: nil, neighbours: [manual])
        #expect(after.week.start == manual.end)
        #expect(after.note?.hasPrefix("stretched by 96 hours") == true, "\(after.note ?? "")")
        // A week by hand never reaches back.
        #expect(
            WeekWindow.decide(
                Self.week("2026-11-18", Self.london), scheduled: false, recorded: nil, neighbours: [sunday]
            ).note == nil)
    }

    @Test func noWeekReachesIntoAWeekWhosePaymentsWereNotKept() {
        // A week by hand ending Tuesday 17 November shares Monday and Tuesday with a week
        // counted before the ledger kept payments: it starts where that one ends.
        let old = Self.week("2026-11-15", Self.london)
        let manual = Self.week("2026-11-17", Self.london)
        let window = WeekWindow.decide(
            manual, scheduled: false, recorded: nil, neighbours: [Self.span(old, itemised: false)])
        #expect(window.week.start == old.end)
        #expect(window.week.end == manual.end)
        #expect(window.note?.hasPrefix("shortened by 120 hours") == true)
        #expect(window.note?.contains("before the ledger kept each payment it counted") == true)
        // The same week, if its payments had been kept, is left to them.
        #expect(WeekWindow.decide(manual, scheduled: false, recorded: nil, neighbours: [Self.span(old)]).note == nil)
        // A window before such a week ends where it begins; one inside it is empty.
        let before = WeekWindow.decide(
            Self.week("2026-11-10", Self.london), scheduled: false, recorded: nil,
            neighbours: [Self.span(old, itemised: false)])
        #expect(before.week.end == old.start)
        // Auckland's Monday ends 11 hours after London's Sunday: those 11 hours are all it has.
        let after = WeekWindow.decide(
            Self.week("2026-11-16", Self.auckland), scheduled: false, recorded: nil,
            neighbours: [Self.span(old, itemised: false)])
        #expect(after.week.start == old.end)
        #expect(after.week.milliseconds == 11 * 3_600_000)
    }

    @Test func aRecordedWeekKeepsItsBounds() {
        let week = Self.week("2026-11-22", Self.london)
        var recorded = AccountWeek(
            accountUid: "a", weekEnd: week.endDate, status: .done, currency: "GBP", minorUnits: 5)
        recorded.startsAt = week.start.adding(milliseconds: -13 * 3_600_000)
        recorded.endsAt = week.end
        // Whatever the neighbours say now.
        let window = WeekWindow.decide(week, scheduled: true, recorded: recorded, neighbours: [])
        #expect(window.week.start == recorded.startsAt)
        #expect(window.note?.hasPrefix("stretched by 13 hours as it was when this week was first decided") == true)
        recorded.startsAt = week.start
        #expect(WeekWindow.decide(week, scheduled: true, recorded: recorded, neighbours: []).note == nil)
    }

    @Test func durationsReadAsPeopleSayThem() {
        #expect(WeekWindow.duration(13 * 3_600_000) == "13 hours")
        #expect(WeekWindow.duration(5 * 3_600_000 + 30 * 60_000) == "5 hours 30 minutes")
        #expect(WeekWindow.duration(45 * 60_000) == "45 minutes")
        #expect(WeekWindow.duration(3_600_000) == "1 hour")
    }
}
