import Foundation
import PropertyBased
import Testing

@testable import RoundUp

@Suite struct LocalDateTests {
    @Test(arguments: ["2026-11-15", "2024-02-29", "0001-01-01", "9999-12-31"])
    func parsesValidDates(text: String) throws {
        let date = try #require(LocalDate(iso: text))
        #expect(date.description == text)
    }

    @Test(arguments: [
        "2026-13-01", "2026-02-29", "2025-04-31", "2026-1-01", "26-01-01", "2026/01/01", "2026-01-01x",
        " 2026-01-01", "", "yesterday", "2026-00-10", "2026-01-00", "２０２６-01-01",
    ])
    func rejectsAnythingElse(text: String) {
        #expect(LocalDate(iso: text) == nil)
    }

    @Test func dayCountsRoundTrip() async {
        await propertyCheck(count: 500, input: Gen.int(in: -719_162...2_900_000)) { days in
            let date = LocalDate(daysSinceEpoch: days)
            #expect(date.daysSinceEpoch == days)
            #expect(LocalDate(iso: date.description) == date)
            #expect(date.adding(days: 1) > date)
        }
    }

    @Test func knownDayCounts() throws {
        #expect(try #require(LocalDate(iso: "1970-01-01")).daysSinceEpoch == 0)
        #expect(try #require(LocalDate(iso: "2000-03-01")).daysSinceEpoch == 11_017)
        #expect(try #require(LocalDate(iso: "2024-03-01")).adding(days: -1).description == "2024-02-29")
        #expect(try #require(LocalDate(iso: "2026-12-31")).adding(days: 1).description == "2027-01-01")
    }
}

@Suite struct InstantTests {
    @Test func parsesTheBanksTimestamps() throws {
        let instant = try #require(Instant(iso8601: "2019-10-25T22:37:51.094Z"))
        #expect(instant.millisecondsSince1970 == 1_572_043_071_094)
        #expect(instant.iso8601 == "2019-10-25T22:37:51.094Z")
    }

    @Test func acceptsOffsetsAndOtherPrecisions() throws {
        #expect(Instant(iso8601: "2019-10-25T22:37:51Z")?.millisecondsSince1970 == 1_572_043_071_000)
        #expect(Instant(iso8601: "2019-10-25T22:37:51.1Z")?.millisecondsSince1970 == 1_572_043_071_100)
        // Digits past the millisecond are dropped, never rounded up across a boundary.
        #expect(Instant(iso8601: "2019-10-25T23:59:59.999999Z")?.millisecondsSince1970 == 1_572_047_999_999)
        #expect(Instant(iso8601: "2019-10-25T23:37:51.094+01:00") == Instant(iso8601: "2019-10-25T22:37:51.094Z"))
        #expect(Instant(iso8601: "2019-10-25T17:37:51.094-05:00") == Instant(iso8601: "2019-10-25T22:37:51.094Z"))
    }

    @Test(arguments: [
        "2019-10-25 22:37:51Z", "2019-10-25T22:37:51", "2019-10-25T22:37:51.Z", "2019-10-25T24:00:00Z",
        "2019-13-25T22:37:51Z", "2019-10-25T22:37:51+0100", "2019-10-25T22:37:51Zjunk", "", "null",
    ])
    func rejectsMalformedTimestamps(text: String) {
        #expect(Instant(iso8601: text) == nil)
    }

    @Test func formattingRoundTrips() async {
        await propertyCheck(count: 500, input: Gen.int64(in: -62_135_596_800_000...253_402_300_799_999)) { ms in
            let instant = Instant(millisecondsSince1970: ms)
            #expect(Instant(iso8601: instant.iso8601) == instant)
        }
    }
}

@Suite struct WeekTests {
    let london = TimeZone(identifier: "Europe/London")!

    func instant(_ text: String) -> Instant { Instant(iso8601: text)! }

    @Test func anOrdinaryWinterWeekIsUTCMidnightToMidnight() throws {
        let week = Week(endingOn: try #require(LocalDate(iso: "2026-11-15")), in: london)
        #expect(week.startDate.description == "2026-11-09")
        #expect(week.start == instant("2026-11-09T00:00:00Z"))
        #expect(week.end == instant("2026-11-16T00:00:00Z"))
        #expect(week.hours == 168)
    }

    @Test func aSummerWeekStartsAtLocalMidnightInUTC() throws {
        let week = Week(endingOn: try #require(LocalDate(iso: "2026-07-12")), in: london)
        #expect(week.start == instant("2026-07-05T23:00:00Z"))
        #expect(week.end == instant("2026-07-12T23:00:00Z"))
        #expect(week.hours == 168)
    }

    @Test func theWeekTheClocksGoForwardHas167Hours() throws {
        // Clocks go forward at 01:00 UTC on Sunday 29 March 2026.
        let week = Week(endingOn: try #require(LocalDate(iso: "2026-03-29")), in: london)
        #expect(week.start == instant("2026-03-23T00:00:00Z"))
        #expect(week.end == instant("2026-03-29T23:00:00Z"))
        #expect(week.hours == 167)
    }

    @Test func theWeekTheClocksGoBackHas169Hours() throws {
        // Clocks go back at 01:00 UTC on Sunday 25 October 2026.
        let week = Week(endingOn: try #require(LocalDate(iso: "2026-10-25")), in: london)
        #expect(week.start == instant("2026-10-18T23:00:00Z"))
        #expect(week.end == instant("2026-10-26T00:00:00Z"))
        #expect(week.hours == 169)
    }

    @Test func theWeekIsHalfOpen() throws {
        let week = Week(endingOn: try #require(LocalDate(iso: "2026-11-15")), in: london)
        #expect(week.contains(week.start))
        #expect(week.contains(week.end.adding(milliseconds: -1)))
        #expect(!week.contains(week.end))
        #expect(!week.contains(week.start.adding(milliseconds: -1)))
    }

    @Test func consecutiveWeeksMeetExactly() async {
        await propertyCheck(count: 200, input: Gen.int(in: 18_000...25_000)) { day in
            let date = LocalDate(daysSinceEpoch: day)
            for zone in ["Europe/London", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"] {
                let tz = TimeZone(identifier: zone)!
                let week = Week(endingOn: date, in: tz)
                let next = Week(endingOn: date.adding(days: 7), in: tz)
                #expect(week.end == next.start)
                #expect((166...170).contains(week.hours))
            }
        }
    }

    @Test func withNoEndDateAMondayRunCoversMondayToSunday() {
        // Monday 16 November 2026, 06:00 London.
        let week = Week.newest(endingOn: .sunday, before: instant("2026-11-16T06:00:00Z"), in: london)
        #expect(week.startDate.description == "2026-11-09")
        #expect(week.endDate.description == "2026-11-15")
        #expect(week.hasEnded(at: instant("2026-11-16T06:00:00Z")))
    }

    @Test(arguments: [
        // Any run from Monday to Sunday covers the Monday to Sunday before it; on Sunday
        // itself the week ending that day has not ended.
        ("2026-11-16T06:00:00Z", Weekday.sunday, "2026-11-15"),
        ("2026-11-18T12:00:00Z", Weekday.sunday, "2026-11-15"),
        ("2026-11-22T23:30:00Z", Weekday.sunday, "2026-11-15"),
        ("2026-11-23T00:30:00Z", Weekday.sunday, "2026-11-22"),
        ("2026-11-18T12:00:00Z", Weekday.tuesday, "2026-11-17"),
        ("2026-11-18T12:00:00Z", Weekday.wednesday, "2026-11-11"),
    ])
    func aPlainRunRoundsUpTheNewestWeekEndingOnItsDay(now: String, weekday: Weekday, end: String) {
        let week = Week.newest(endingOn: weekday, before: instant(now), in: london)
        #expect(week.endDate.description == end)
        #expect(week.endDate.weekday == weekday)
        #expect(week.hasEnded(at: instant(now)))
    }

    @Test func weekdaysFollowTheCalendar() throws {
        #expect(try #require(LocalDate(iso: "1970-01-01")).weekday == .thursday)
        #expect(try #require(LocalDate(iso: "2026-11-22")).weekday == .sunday)
        #expect(try #require(LocalDate(iso: "1969-12-29")).weekday == .monday)
        #expect(try #require(LocalDate(iso: "2026-11-18")).latest(.sunday).description == "2026-11-15")
        #expect(try #require(LocalDate(iso: "2026-11-15")).latest(.sunday).description == "2026-11-15")
    }

    @Test func aWeekEndingTodayHasNotEnded() throws {
        let now = instant("2026-11-15T23:30:00Z")
        let week = Week(endingOn: try #require(LocalDate(iso: "2026-11-15")), in: london)
        #expect(!week.hasEnded(at: now))
        #expect(week.hasEnded(at: week.end))
    }

    @Test func localDateFollowsTheZone() {
        // 23:30 UTC on 5 July is already 6 July in London (BST).
        #expect(Week.localDate(of: instant("2026-07-05T23:30:00Z"), in: london).description == "2026-07-06")
        #expect(Week.localDate(of: instant("2026-01-05T23:30:00Z"), in: london).description == "2026-01-05")
    }
}

@Suite struct TransferReferenceTests {
    @Test(arguments: [
        ("2026-11-22", "Round-up w/e 22 Nov 2026"), ("2026-03-01", "Round-up w/e 1 Mar 2026"),
        ("2024-02-29", "Round-up w/e 29 Feb 2024"), ("0999-12-31", "Round-up w/e 31 Dec 999"),
    ])
    func namesTheWeekByItsLastDay(date: String, expected: String) throws {
        #expect(TransferReference.forWeek(endingOn: try #require(LocalDate(iso: date))) == expected)
    }

    @Test func everyDayReadsBackAsItselfAndFitsTheBanksLimit() {
        // Every day from 1 Jan 2000 to 31 Dec 2099.
        for days in LocalDate(iso: "2000-01-01")!.daysSinceEpoch...LocalDate(iso: "2099-12-31")!.daysSinceEpoch {
            let date = LocalDate(daysSinceEpoch: days)
            let reference = TransferReference.forWeek(endingOn: date)
            #expect(TransferReference.weekEnd(namedBy: reference) == date, "\(reference)")
            #expect(reference.count <= TransferReference.maximumLength)
        }
    }

    /// A bank may show a reference in capitals, or with other white space: it names the week all the same.
    @Test(arguments: [
        "round-up w/e 22 Nov 2026", "ROUND-UP W/E 22 NOV 2026", "Round-up w/e 22 Nov 2026 ",
        " Round-up w/e 22 nov 2026",
        "Round-up w/e 22  Nov 2026", "Round-up\tw/e 22 Nov 2026",
    ])
    func anotherSpellingNamesTheSameWeek(text: String) {
        #expect(TransferReference.weekEnd(namedBy: text) == LocalDate(iso: "2026-11-22"))
    }

    @Test(arguments: [
        "Round-up w/e 31 Feb 2026", "Round-up w/e 22 Nov", "Round-up w/e +2 Nov 2026", "Round-up w/e 22 Nov 02026",
        "Round-up w/e 0 Nov 2026", "Holiday", "Round-up w/e 22 Nov 2026\u{0}", "", "CORNER SHOP PARIS FRA",
        "Round-up w/e 22 Nov 2026 again", "Roundup w/e 22 Nov 2026", "Round-up w/e 22 November 2026",
    ])
    func otherTextNamesNoWeek(text: String) {
        #expect(TransferReference.weekEnd(namedBy: text) == nil)
    }

    /// Where a bank may put the reference: words of its own around it, the hyphen as a
    /// space or left out, the month in full, or the week's end as a date. Mentioned, for
    /// holding a week over another ledger's transfer; never read so loosely as this ledger's.
    @Test(arguments: [
        "Round-up w/e 22 Nov 2026", "Savings: Round-up w/e 22 Nov 2026", "Round-up w/e 22 Nov 2026 / Round-ups",
        "ROUND UP W/E 22 NOV 2026", "Round-up w/e 22 Nov 2026\u{0}", "Round-up w/e 22 Nov 2026 again",
        "Roundup w/e 22 Nov 2026", "Round-up w/e 22 November 2026", "round-up-w/e-22-nov-2026",
        "Transfer to savings 2026-11-22", "2026-11-22", "Round-up w/e 31 Feb 2026 (2026-11-22)", "ref:2026-11-22.",
        "Round-up w/e +22 Nov 2026",
    ])
    func theWeekIsMentionedWhereverTheBankPutsIt(text: String) {
        #expect(TransferReference.weekMentioned(in: text) == .date(LocalDate(iso: "2026-11-22")!), "\(text)")
    }

    /// Cut before or within its year, a reference mentions a day and month, which name a
    /// week only where exactly one day of the candidates falls on them.
    @Test func aReferenceCutBeforeItsYearNamesOneCandidateOrNone() throws {
        for text in [
            "Round-up w/e 22 Nov 20", "Round-up w/e 22 Nov", "Round-up w/e 22 Nov 2", "Round-up w/e 22 Nov 202",
        ] {
            #expect(TransferReference.weekMentioned(in: text) == .dayAndMonth(day: 22, month: 11), "\(text)")
        }
        let cut = try #require(TransferReference.weekMentioned(in: "Round-up w/e 29 Dec 20"))
        let around = try #require(LocalDate(iso: "2026-12-20"))...(try #require(LocalDate(iso: "2027-01-10")))
        #expect(cut.date(within: around) == LocalDate(iso: "2026-12-29"))
        #expect(
            cut.date(within: try #require(LocalDate(iso: "2027-01-01"))...(try #require(LocalDate(iso: "2027-01-20"))))
                == nil)
        let years = try #require(LocalDate(iso: "2025-01-01"))...(try #require(LocalDate(iso: "2026-12-31")))
        #expect(cut.date(within: years) == nil, "two candidates: none")
        let whole = MentionedWeek.date(try #require(LocalDate(iso: "2026-12-29")))
        #expect(whole.date(within: around) == LocalDate(iso: "2026-12-29"))
        #expect(whole.date(within: years.lowerBound...(try #require(LocalDate(iso: "2026-12-28")))) == nil)
    }

    @Test(arguments: [
        "Round-up w/e 31 Feb 2026", "Round-up w/e 22 Nov 02026", "Round-up w/e 0 Nov 2026", "Holiday", "",
        "CORNER SHOP PARIS FRA", "Round-up w/e 22 Nov 20 x", "Round-up w/e 123 Nov 2026", "Round-up 22 Nov 2026",
        "Rounding up w/e 22 Nov 2026", "2026-11-31", "12026-11-22", "2026-11-223", "Round-up w/e 22 Novx 2026",
        "Round-up w/e 30 Feb",
    ])
    func otherTextMentionsNoWeek(text: String) {
        #expect(TransferReference.weekMentioned(in: text) == nil, "\(text)")
    }
}
