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

    /// A week entry written by the ledger reads back with every field, and is stored as the
    /// ledger always stored it: the week as `YYYY-MM-DD`, status and confirmation by name,
    /// earlier goals separated by spaces (NULL for none), times in ISO 8601, free text cut at
    /// 500 characters. A decision starts with no failure, no resolution and no earlier goal.
    @Test func aWeekEntryReadsBackWithEveryFieldInTheLedgersStoredFormat() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        let ledger = try Ledger(path: path)
        let end = try #require(LocalDate(iso: "2026-11-15"))
        let decidedAt = try #require(Instant(iso8601: "2026-11-16T06:00:00.000Z"))
        let changedAt = try #require(Instant(iso8601: "2026-11-17T06:30:00.000Z"))
        var decision = LedgerEntry(
            accountUid: "a", weekEnd: end, status: .pending, currency: "GBP", minorUnits: 298, goalUid: "g1",
            goalName: "Round-ups", transferUid: "t1", lastError: "never written by a decision", accountName: "Personal",
            note: "1.00 held back by the minimum balance")
        decision.confirmation = .feed
        decision.feedItemUid = "f1"
        decision.reason = String(repeating: "r", count: 600)
        decision.resolution = "never written by a decision"
        decision.earlierGoalUids = ["never", "written"]
        decision.reference = "Round-up w/e 15 Nov 2026"
        try ledger.recordDecision(decision, at: decidedAt)

        let raw = try DatabaseQueue(path: path)
        let decided = try #require(try raw.read { db in try Row.fetchOne(db, sql: "SELECT * FROM transfer") })
        #expect(decided["weekEnd"] as String? == "2026-11-15")
        #expect(decided["status"] as String? == "pending")
        #expect(decided["confirmation"] as String? == "feed")
        #expect(decided["reference"] as String? == "Round-up w/e 15 Nov 2026")
        #expect((decided["reason"] as String?)?.count == 500)
        #expect(decided["createdAt"] as String? == "2026-11-16T06:00:00.000Z")
        #expect(decided["updatedAt"] as String? == "2026-11-16T06:00:00.000Z")
        for column in ["lastError", "resolution", "earlierGoalUids"] {
            #expect(decided[column] as String? == nil, "\(column) is NULL when a week is decided")
        }

        // Redirected twice, failed and held again: every column now holds something.
        try ledger.recordRetry(
            accountUid: "a", weekEnd: end, goal: ("g2", "Holiday", "t2"), resolution: "to Holiday", at: changedAt)
        try ledger.recordRetry(
            accountUid: "a", weekEnd: end, goal: ("g3", "Rainy day", "t3"), resolution: "to Rainy day", at: changedAt)
        try ledger.recordFailure(accountUid: "a", weekEnd: end, error: "HTTP 503", at: changedAt)
        try ledger.recordHeld(
            accountUid: "a", weekEnd: end, reason: String(repeating: "s", count: 600), at: changedAt)

        var expected = LedgerEntry(
            accountUid: "a", weekEnd: end, status: .held, currency: "GBP", minorUnits: 298, goalUid: "g3",
            goalName: "Rainy day", transferUid: "t3", lastError: "HTTP 503", accountName: "Personal",
            note: "1.00 held back by the minimum balance")
        expected.confirmation = .feed
        expected.feedItemUid = "f1"
        expected.reason = String(repeating: "s", count: 500)
        expected.resolution = "to Rainy day"
        expected.earlierGoalUids = ["g1", "g2"]
        expected.reference = "Round-up w/e 15 Nov 2026"
        expected.createdAt = "2026-11-16T06:00:00.000Z"
        expected.updatedAt = "2026-11-17T06:30:00.000Z"
        #expect(try ledger.entry(accountUid: "a", weekEnd: end) == expected)
        #expect(try ledger.entries() == [expected])

        let stored = try #require(try raw.read { db in try Row.fetchOne(db, sql: "SELECT * FROM transfer") })
        #expect(stored["weekEnd"] as String? == "2026-11-15")
        #expect(stored["status"] as String? == "held")
        #expect(stored["earlierGoalUids"] as String? == "g1 g2")
        #expect(stored["updatedAt"] as String? == "2026-11-17T06:30:00.000Z")
        try raw.close()
    }

    /// A row with a week the ledger never writes is refused with what it holds, not read as
    /// some other week.
    @Test func aRowWithAnUnreadableWeekIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        let ledger = try Ledger(path: path)
        let raw = try DatabaseQueue(path: path)
        try raw.write { db in
            try db.execute(
                sql: """
                    INSERT INTO transfer (accountUid, weekEnd, status, currency, minorUnits, createdAt, updatedAt)
                    VALUES ('a', 'someday', 'done', 'GBP', 1, '2026-11-16T06:00:00.000Z', '2026-11-16T06:00:00.000Z')
                    """)
        }
        try raw.close()
        #expect {
            try ledger.entries()
        } throws: { error in
            "\(error)" == "the ledger holds an unreadable row for week 'someday' with status 'done'"
        }
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
        // Weeks recorded before transfers carried a reference have none: a resend sends none either.
        #expect(entries.map(\.reference) == [nil, nil])
        let now = Instant(millisecondsSince1970: 0)
        try ledger.recordHeld(accountUid: "a", weekEnd: entries[1].weekEnd, reason: "why", at: now)
        #expect(try ledger.entries()[1].status == .held)
        // An update that finds the week in another state than it expects is an error.
        #expect(throws: LedgerError.self) {
            try ledger.recordHeld(accountUid: "a", weekEnd: entries[0].weekEnd, reason: "why", at: now)
        }
    }
}
