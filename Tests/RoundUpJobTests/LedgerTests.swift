import GRDB
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

    /// A ledger written before held weeks existed opens with its rows intact: a done week
    /// counts as confirmed by the bank, a pending one stays pending.
    @Test func aLedgerFromBeforeHeldWeeksIsMigratedWithItsRows() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        let old = try DatabaseQueue(path: path)
        try old.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1'), ('v2: account names'), ('v3: notes');
                    CREATE TABLE transfer (
                        accountUid TEXT NOT NULL, weekEnd TEXT NOT NULL,
                        status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'nothing')),
                        currency TEXT NOT NULL, minorUnits INTEGER NOT NULL CHECK (minorUnits >= 0),
                        goalUid TEXT, goalName TEXT, transferUid TEXT UNIQUE, lastError TEXT,
                        createdAt TEXT NOT NULL, updatedAt TEXT NOT NULL, accountName TEXT, note TEXT,
                        PRIMARY KEY (accountUid, weekEnd));
                    INSERT INTO transfer VALUES
                        ('a', '2026-11-08', 'done', 'GBP', 99, 'g', 'Round-ups', 't1', NULL,
                         '2026-11-09T06:00:00.000Z', '2026-11-09T06:00:01.000Z', 'Personal', NULL),
                        ('a', '2026-11-15', 'pending', 'GBP', 42, 'g', 'Round-ups', 't2', 'HTTP 503',
                         '2026-11-16T06:00:00.000Z', '2026-11-16T06:00:01.000Z', 'Personal', 'held back');
                    """)
        }
        try old.close()
        let ledger = try Ledger(path: path)
        let entries = try ledger.entries()
        #expect(entries.map(\.status) == [.done, .pending])
        #expect(entries.map(\.confirmation) == [.bank, nil])
        #expect(entries[1].lastError == "HTTP 503" && entries[1].note == "held back")
        #expect(entries[1].createdAt == "2026-11-16T06:00:00.000Z" && entries[0].transferUid == "t1")
        let now = Instant(millisecondsSince1970: 0)
        try ledger.recordHeld(accountUid: "a", weekEnd: entries[1].weekEnd, reason: "why", at: now)
        #expect(try ledger.entries()[1].status == .held)
        // An update that finds the week in another state than it expects is an error.
        #expect(throws: LedgerError.self) {
            try ledger.recordHeld(accountUid: "a", weekEnd: entries[0].weekEnd, reason: "why", at: now)
        }
    }
}
