import Testing

@testable import RoundUp
@testable import RoundUpReports
@testable import RoundUpVocabulary

/// `BookExport` without a binary: which weeks are booked, which are named as left out, and the
/// limits each format's text is cut to.
@Suite struct ExportFormatTests {
    static func row(
        _ status: WeekFate, minorUnits: Int64 = 298, currency: String = "GBP", movedOn: String? = "2026-11-23",
        transferUid: String? = "5f1e2d3c-0000-4000-8000-000000000001"
    ) -> SavingsHistory.Row {
        SavingsHistory.Row(
            weekStart: "2026-11-16", weekEnd: "2026-11-22", accountUid: "a", accountName: "Personal",
            currency: currency, amount: "2.98", minorUnits: minorUnits, goalName: "Round-ups", goalUid: "g",
            transferUid: transferUid, reference: "Round-up w/e 22 Nov 2026", movedOn: movedOn, status: status,
            lastError: nil, note: nil, confirmation: nil, feedItemUid: nil, reason: nil, resolution: nil,
            updatedAt: nil, forecast: nil)
    }

    @Test func onlyMoneyThatArrivedIsBookedAndWhatCannotBeIsNamed() {
        let rows = [
            Self.row(.transferred), Self.row(.heldBack), Self.row(.unconfirmed), Self.row(.held),
            Self.row(.abandoned), Self.row(.nothingToMove, minorUnits: 0), Self.row(.transferred, minorUnits: 0),
            Self.row(.transferred, currency: "XYZ"), Self.row(.transferred, transferUid: nil),
            Self.row(.transferred, movedOn: nil),
        ]
        let booked = BookExport.book(rows)
        #expect(booked.transfers.count == 1)
        let named = booked.leftOut
        #expect(named.count == 3, "\(named)")
        #expect(named.contains { $0.contains("the unknown currency 'XYZ'") })
        #expect(named.contains { $0.contains("no transfer uid") })
        #expect(named.contains { $0.contains("no date the money moved") })
    }

    /// A week into several goals is booked leg by leg, each to its goal's account; the books
    /// of hledger's kind then hold each goal's own total.
    @Test func aWeekIntoSeveralGoalsBooksEachLegToItsGoal() {
        var row = Self.row(.transferred, minorUnits: 229)
        row.legs = [
            SavingsHistory.RowLeg(
                {
                    var leg = TransferLeg(index: 0, status: .done, minorUnits: 100)
                    (leg.goalUid, leg.goalName, leg.transferUid) = ("g1", "Emergency fund", "t1")
                    return leg
                }(), currency: "GBP"),
            SavingsHistory.RowLeg(
                {
                    var leg = TransferLeg(index: 1, status: .done, minorUnits: 129)
                    (leg.goalUid, leg.goalName, leg.transferUid) = ("g2", "Round-ups", "t2")
                    return leg
                }(), currency: "GBP"),
        ]
        let booked = BookExport.book([row])
        #expect(booked.transfers.map(\.minorUnits) == [100, 129])
        #expect(booked.transfers.map(\.goalName) == ["Emergency fund", "Round-ups"])
        #expect(booked.transfers.map(\.transferUid) == ["t1", "t2"])
        let journal = BookExport.text(booked.transfers, format: .ledger, now: Instant(millisecondsSince1970: 0))
        #expect(journal.contains("Assets:Starling:Personal:Emergency fund  1.00 GBP"), "\(journal)")
        #expect(journal.contains("Assets:Starling:Personal:Round-ups  1.29 GBP"), "\(journal)")
        #expect(booked.leftOut.isEmpty)
    }

    @Test func ofxTextIsCutByCodePointsAndKeepsToXML() {
        #expect(BookExport.prefix(String(repeating: "🇬🇧", count: 40), scalars: 32).unicodeScalars.count == 32)
        #expect(BookExport.prefix("e\u{301}e\u{301}e", scalars: 4) == "e\u{301}e\u{301}")
        #expect(BookExport.xml("a\u{FFFF}<b>&\u{FFFE}") == "a&lt;b&gt;&amp;")
        #expect(BookExport.xml(String(repeating: "🇬🇧", count: 40), limit: 32).unicodeScalars.count == 32)
        // The savings chart's text keeps to XML's characters too, and to printable text.
        #expect(SavingsChart.escape("a\u{FFFF}\u{1B}[2J'") == "a\\u001b[2J&#39;")
    }
}
