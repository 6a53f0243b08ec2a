import Foundation
import RoundUp
import Testing

@testable import RoundUpReports
@testable import RoundUpVocabulary

/// The pieces of the saver's view, without a server: the local clock of the Markdown
/// report, the periods of the savings, the bars, the CSV cell and the weekly line.
@Suite struct SavingsTests {
    static let london = TimeZone(identifier: "Europe/London")!

    @Test func paymentTimesAreOnTheSaversClockAcrossAClockChange() {
        let clock = LocalTimeText(zone: Self.london)
        // 25 October 2026: BST ends at 01:00 UTC, so local 01:30 happens twice.
        #expect(clock.text(Instant(iso8601: "2026-10-25T00:30:00.000Z"), else: "") == "2026-10-25 01:30")
        #expect(clock.text(Instant(iso8601: "2026-10-25T01:30:00.000Z"), else: "") == "2026-10-25 01:30")
        #expect(clock.text(Instant(iso8601: "2026-07-05T23:59:59.999Z"), else: "") == "2026-07-06 00:59")
        #expect(clock.text(Instant(iso8601: "1969-12-31T23:59:00.000Z"), else: "") == "1970-01-01 00:59")
        #expect(
            LocalTimeText(zone: nil).text(Instant(iso8601: "2026-07-05T23:59:59.999Z"), else: "as given") == "as given")
        let order = LocalTimeText.order([
            Instant(iso8601: "2026-11-10T12:00:00.000Z"), nil, Instant(iso8601: "2026-11-09T08:00:00.000Z"),
            Instant(iso8601: "2026-11-10T12:00:00.000Z"),
        ])
        #expect(order.map(\.index) == [2, 0, 3, 1], "time order, the feed's among equal times, none last")
    }

    static func entry(_ week: String, _ code: String, _ minor: Int64, _ status: WeekState = .done) -> AccountWeek {
        AccountWeek(
            accountUid: "a-\(code)", weekEnd: LocalDate(iso: week)!, status: status, currency: code, minorUnits: minor)
    }

    @Test func savingsAreAddedPerWeekMonthAndYearNeverAcrossCurrencies() {
        let savings = Savings([
            Self.entry("2025-12-28", "GBP", 150), Self.entry("2026-01-04", "GBP", 25),
            Self.entry("2026-01-04", "EUR", 1_000), Self.entry("2026-01-11", "GBP", 99, .held),
            Self.entry("2026-01-11", "JPY", 300),
        ])
        #expect(savings.series.map(\.currency) == ["EUR", "GBP", "JPY"])
        let gbp = savings.series[1]
        #expect(gbp.weeks.map(\.label) == ["2025-12-28", "2026-01-04"], "a held week saved nothing")
        #expect(gbp.months == [.init(label: "2025-12", minorUnits: 150), .init(label: "2026-01", minorUnits: 25)])
        #expect(gbp.years.map(\.minorUnits) == [150, 25])
        #expect(gbp.runningTotal.map(\.minorUnits) == [150, 175])
        #expect(gbp.amount(gbp.total) == "1.75")
        #expect(savings.series[2].amount(300) == "300", "a currency without decimals")
    }

    @Test func barsAreInProportionAndAtLeastASliver() {
        #expect(TerminalBars.bar(100, of: 100, blocks: false).count == TerminalBars.width)
        #expect(TerminalBars.bar(50, of: 100, blocks: false).count == TerminalBars.width / 2)
        #expect(TerminalBars.bar(1, of: 1_000_000, blocks: false) == "#")
        #expect(TerminalBars.bar(0, of: 100, blocks: true) == "")
        #expect(TerminalBars.bar(100, of: 100, blocks: true) == String(repeating: "█", count: TerminalBars.width))
        // 3/64 of the width: 12 eighths, a block and a half.
        #expect(TerminalBars.bar(3, of: 64, blocks: true) == "█▌")
    }

    @Test func aGoalsProgressIsAPercentageWhateverItsFigures() {
        #expect(Savings.percent(4_120, of: 10_000) == 41)
        #expect(Savings.percent(29, of: 100) == 29, "exact, not 28.999…")
        #expect(Savings.percent(0, of: 100) == 0)
        #expect(Savings.percent(-5, of: 100) == 0)
        #expect(Savings.percent(100, of: 0) == nil)
        #expect(Savings.percent(100, of: nil) == nil)
        #expect(Savings.percent(100_000_000_000_000_000, of: 1) == 999_999, "held, never a trap")
        #expect(Savings.percent(.max, of: .max) == 999_999)
        #expect(Savings.add(.max, 1) == .max && Savings.add(.min, -1) == .min && Savings.add(2, 3) == 5)
    }

    @Test func aWeekWhoseClocksChangeShowsEachTimesOffset() {
        let clock = LocalTimeText(zone: Self.london, showingOffsets: true)
        #expect(clock.text(Instant(iso8601: "2026-10-25T00:30:00.000Z"), else: "") == "2026-10-25 01:30 +01:00")
        #expect(clock.text(Instant(iso8601: "2026-10-25T01:30:00.000Z"), else: "") == "2026-10-25 01:30 +00:00")
        let kathmandu = LocalTimeText(zone: TimeZone(identifier: "Asia/Kathmandu"), showingOffsets: true)
        #expect(kathmandu.text(Instant(iso8601: "2026-11-10T00:00:00.000Z"), else: "") == "2026-11-10 05:45 +05:45")
        let stJohns = LocalTimeText(zone: TimeZone(identifier: "America/St_Johns"), showingOffsets: true)
        #expect(stJohns.text(Instant(iso8601: "2026-11-10T12:00:00.000Z"), else: "") == "2026-11-10 08:30 -03:30")
    }

    @Test func historySaysNoWeekMatchesWhenTheLedgerHasWeeks() {
        let document = SavingsHistory.Document(stateDirectory: "/s", weeks: [], totals: [:])
        let table = SavingsHistory.table(document, savings: Savings([]), ledgerHasWeeks: true)
        #expect(table == "No recorded week matches.\n")
        #expect(
            SavingsHistory.table(document, savings: Savings([]), ledgerHasWeeks: false).hasPrefix(
                "No weeks recorded yet"))
    }

    @Test func theArithmeticLineAppearsOnlyWhenSomethingChangedTheAmount() {
        var report = ReportFixtures.bare
        var account = AccountReport(accountUid: "a", currency: "GBP", status: .nothingToMove)
        account.roundUpSum = ReportFixtures.gbp(0)
        account.total = ReportFixtures.gbp(0)
        account.multiplier = 2
        report.accounts = [account]
        #expect(!report.markdown.contains("add up to"), "twice nothing is nothing")
        report.accounts[0].roundUpSum = ReportFixtures.gbp(150)
        report.accounts[0].total = ReportFixtures.gbp(300)
        report.accounts[0].status = .transferred
        #expect(
            report.markdown.contains(
                "- The round-ups add up to 1.50 GBP; the multiplier of 2 makes that 3.00 GBP: **3.00 GBP** moved."))
        report.accounts[0].multiplier = 1
        report.accounts[0].total = ReportFixtures.gbp(150)
        #expect(!report.markdown.contains("add up to"))
    }

    @Test func aCSVCellNeverRunsInASpreadsheet() {
        #expect(CSV.cell("Tesco") == "Tesco")
        #expect(CSV.cell("=1+1") == "'=1+1")
        #expect(CSV.cell("+44 20") == "'+44 20")
        #expect(CSV.cell("-2") == "'-2")
        #expect(CSV.cell("@SUM(A1)") == "'@SUM(A1)")
        #expect(CSV.cell("a, \"b\"") == "\"a, \"\"b\"\"\"")
        #expect(CSV.cell("line\nbreak") == "line\\u000abreak", "control characters are shown, not written")
        #expect(CSV.line(["a", "b"]) == "a,b\r\n")
    }

    @Test func theWeeklyLineSaysWhatMovedAndTheYear() {
        let entries = [
            Self.entry("2025-12-28", "GBP", 5_000), Self.entry("2026-01-04", "GBP", 298),
            Self.entry("2026-01-04", "EUR", 126), Self.entry("2026-01-04", "JPY", 40),
        ]
        let week = [LocalDate(iso: "2026-01-04")!]
        #expect(
            SavingsNews.line(moved: ["GBP": 298], weeks: week, entries: entries, currentYear: 2026)
                == "you saved £2.98 this week, €1.26, £2.98 and 40 JPY this year")
        #expect(
            SavingsNews.line(moved: [:], weeks: week, entries: entries, currentYear: 2027)
                == "nothing new was saved this week, €1.26, £2.98 and 40 JPY in 2026")
        #expect(
            SavingsNews.line(
                moved: ["GBP": 100], weeks: week + [LocalDate(iso: "2026-01-11")!], entries: [], currentYear: 2026)
                == "you saved £1.00 in 2 weeks")
    }
}
