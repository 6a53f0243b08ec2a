import RoundUp
import RoundUpJob
import TestSupport
import Testing

@Suite struct LedgerTests {
    @Test func aCorruptRowIsDescribedWithoutRecursing() {
        #expect(
            LedgerError.corrupt("row for week 'x'").description == "the ledger holds an unreadable row for week 'x'")
    }

    @Test func aWeekIsDecidedOnceAndOverlapsAreFound() throws {
        let directory = try TemporaryDirectory()
        let ledger = try Ledger(path: directory.path + "/ledger.sqlite")
        let end = try #require(LocalDate(iso: "2026-11-15"))
        let now = Instant(millisecondsSince1970: 0)
        try ledger.recordDecision(
            LedgerEntry(accountUid: "a", weekEnd: end, status: .nothing, currency: "GBP", minorUnits: 0), at: now)
        #expect(throws: (any Error).self) {
            try ledger.recordDecision(
                LedgerEntry(accountUid: "a", weekEnd: end, status: .pending, currency: "GBP", minorUnits: 5), at: now)
        }
        #expect(try ledger.overlapping(accountUid: "a", weekEnd: end.adding(days: 6)).map(\.weekEnd) == [end])
        #expect(try ledger.overlapping(accountUid: "a", weekEnd: end.adding(days: 7)).isEmpty)
        #expect(try ledger.overlapping(accountUid: "a", weekEnd: end).isEmpty)
        #expect(try ledger.overlapping(accountUid: "b", weekEnd: end.adding(days: 1)).isEmpty)
    }
}
