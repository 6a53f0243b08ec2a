import Foundation
import GRDB
import RoundUp
import RoundUpOutput
import TestSupport
import Testing

@testable import RoundUpLedger
@testable import RoundUpVocabulary

@Suite struct LedgerTests {
    /// SQLite's error is said in its own words wherever `plainDescription` meets it, though
    /// the module that words errors knows nothing of SQLite: the ledger lends it the words.
    @Test func aDatabaseErrorIsSaidInSQLitesOwnWords() {
        let readOnly = DatabaseError(resultCode: .SQLITE_READONLY, message: "attempt to write a readonly database")
        #expect(plainDescription(readOnly) == "attempt to write a readonly database")
        #expect(plainDescription(DatabaseError(resultCode: .SQLITE_BUSY)) == "database is locked")
    }

    /// A counted payment of a round-up of `roundUp` pence.
    static func payment(_ uid: String, _ roundUp: Int64) -> CountedTransaction {
        let gbp = Currency(code: "GBP")!
        return CountedTransaction(
            uid: uid, settlementTime: nil, counterPartyName: nil, amount: Money(minorUnits: 100, currency: gbp),
            roundUp: Money(minorUnits: roundUp, currency: gbp))
    }

    /// roundup's ledgers are never in write-ahead-log mode, which reading would add files
    /// beside; one set so from outside is left unread by the `--system` views.
    @Test func aLedgerInWriteAheadLogModeIsLeftUnreadByTheSystemViews() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        _ = try Ledger(path: path)
        #expect(!Ledger.isWriteAheadLog(path) && Ledger.systemReadRefusal(path) == nil)
        let queue = try DatabaseQueue(path: path)
        _ = try queue.writeWithoutTransaction { try String.fetchOne($0, sql: "PRAGMA journal_mode=WAL") }
        try queue.close()
        #expect(Ledger.isWriteAheadLog(path))
        #expect(Ledger.systemReadRefusal(path)?.contains("write-ahead-log mode") == true)
        #expect(!Ledger.isWriteAheadLog(directory.path + "/none"))
    }

    /// A held week is told once: claimed by one run, told or given back; a claim a run
    /// never settled (killed between claiming and telling) lapses after 15 minutes; a week a
    /// person sends again is told again if it is held anew.
    @Test func aHeldWeekIsClaimedToldOnceAndAnUnsettledClaimLapses() throws {
        let directory = try TemporaryDirectory()
        let ledger = try Ledger(path: directory.path + "/ledger.sqlite")
        let end = try #require(LocalDate(iso: "2026-11-15"))
        let start = Instant(millisecondsSince1970: 1_795_000_000_000)
        func at(minutes: Int64) -> Instant {
            Instant(millisecondsSince1970: start.millisecondsSince1970 + minutes * 60_000)
        }
        try ledger.recordDecision(
            AccountWeek(accountUid: "a", weekEnd: end, status: .pending, currency: "GBP", minorUnits: 5), at: start)
        #expect(try ledger.claimHeldUntold(at: start).isEmpty, "a pending week is not held")
        try ledger.recordHeld(accountUid: "a", weekEnd: end, reason: "why", at: start)
        #expect(try ledger.claimHeldUntold(at: start).map(\.key) == [AccountWeekKey(accountUid: "a", weekEnd: end)])
        #expect(try ledger.claimHeldUntold(at: at(minutes: 1)).isEmpty, "claimed: another run does not tell it")
        // Given back: a later run tells it.
        try ledger.settleHeldTold([AccountWeekKey(accountUid: "a", weekEnd: end)], claimedAt: start, toldAt: nil)
        #expect(try ledger.claimHeldUntold(at: at(minutes: 2)).count == 1)
        // Never settled (the run was killed): the claim lapses.
        #expect(try ledger.claimHeldUntold(at: at(minutes: 16)).isEmpty, "14 minutes: still claimed")
        #expect(try ledger.claimHeldUntold(at: at(minutes: 18)).count == 1, "16 minutes: lapsed")
        try ledger.settleHeldTold(
            [AccountWeekKey(accountUid: "a", weekEnd: end)], claimedAt: at(minutes: 18), toldAt: at(minutes: 18))
        #expect(try ledger.claimHeldUntold(at: at(minutes: 60 * 24)).isEmpty, "told: never again")
        // Sent again by a person, then held anew: told again.
        try ledger.recordRetry(accountUid: "a", weekEnd: end, leg: 0, resolution: "retry", at: at(minutes: 61))
        #expect(try ledger.claimHeldUntold(at: at(minutes: 62)).isEmpty)
        try ledger.recordHeld(accountUid: "a", weekEnd: end, reason: "again", at: at(minutes: 63))
        #expect(try ledger.claimHeldUntold(at: at(minutes: 64)).map(\.reason) == ["again"])
    }

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
            AccountWeek(accountUid: "a", weekEnd: end, status: .nothing, currency: "GBP", minorUnits: 0), at: now)
        #expect(throws: (any Error).self) {
            try ledger.recordDecision(
                AccountWeek(accountUid: "a", weekEnd: end, status: .pending, currency: "GBP", minorUnits: 5), at: now)
        }
        // Its neighbours: weeks ending within fourteen days, each with its bounds (seven local days
        // for a week recorded without any) and whether its payments were kept one by one.
        let london = try #require(TimeZone(identifier: "Europe/London"))
        let near = try ledger.neighbours(accountUid: "a", weekEnd: end.adding(days: 7), zone: london)
        let local = Week(endingOn: end, in: london)
        #expect(near == [CountedSpan(weekEnd: end, start: local.start, end: local.end, itemised: true)])
        #expect(try ledger.neighbours(accountUid: "a", weekEnd: end.adding(days: 14), zone: london).count == 1)
        #expect(try ledger.neighbours(accountUid: "a", weekEnd: end.adding(days: 15), zone: london).isEmpty)
        #expect(try ledger.neighbours(accountUid: "a", weekEnd: end, zone: london).isEmpty)
        #expect(try ledger.neighbours(accountUid: "b", weekEnd: end.adding(days: 1), zone: london).isEmpty)
    }

    /// A week entry written by the ledger reads back with every field, and is stored as the
    /// ledger always stored it: the week as `YYYY-MM-DD`, status and confirmation by name,
    /// earlier goals separated by spaces (NULL for none), times in ISO 8601, free text cut at
    /// 1,000 characters. A decision starts with no failure, no resolution and no earlier goal.
    @Test func aWeekEntryReadsBackWithEveryFieldInTheLedgersStoredFormat() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        let ledger = try Ledger(path: path)
        let end = try #require(LocalDate(iso: "2026-11-15"))
        let decidedAt = try #require(Instant(iso8601: "2026-11-16T06:00:00.000Z"))
        let changedAt = try #require(Instant(iso8601: "2026-11-17T06:30:00.000Z"))
        var decision = AccountWeek(
            accountUid: "a", weekEnd: end, status: .pending, currency: "GBP", minorUnits: 298, goalUid: "g1",
            goalName: "Round-ups", transferUid: "t1", lastError: "never written by a decision", accountName: "Personal",
            note: "1.00 held back by the minimum balance")
        decision.firstLeg.confirmation = .feed
        decision.firstLeg.feedItemUid = namedUid("f1")
        decision.reason = String(repeating: "r", count: 1200)
        decision.resolution = "never written by a decision"
        decision.firstLeg.earlierGoalUids = ["never", "written"]
        decision.firstLeg.reference = "Round-up w/e 15 Nov 2026"
        try ledger.recordDecision(decision, at: decidedAt)

        let raw = try DatabaseQueue(path: path)
        let bothTables = """
            SELECT week.*, leg.leg, leg.confirmation, leg.reference, leg.lastError, leg.earlierGoalUids
            FROM week JOIN leg USING (accountUid, weekEnd)
            """
        let decided = try #require(try raw.read { db in try Row.fetchOne(db, sql: bothTables) })
        #expect(decided["leg"] as Int64? == 0)
        #expect(decided["weekEnd"] as String? == "2026-11-15")
        #expect(decided["status"] as String? == "pending")
        #expect(decided["confirmation"] as String? == "feed")
        #expect(decided["reference"] as String? == "Round-up w/e 15 Nov 2026")
        #expect((decided["reason"] as String?)?.count == 1000)
        #expect(decided["createdAt"] as String? == "2026-11-16T06:00:00.000Z")
        #expect(decided["updatedAt"] as String? == "2026-11-16T06:00:00.000Z")
        for column in ["lastError", "resolution", "earlierGoalUids"] {
            #expect(decided[column] as String? == nil, "\(column) is NULL when a week is decided")
        }

        // Redirected twice, failed and held again: every column now holds something.
        try ledger.recordRetry(
            accountUid: "a", weekEnd: end, leg: 0, goal: ("g2", "Holiday", "t2"), resolution: "to Holiday",
            at: changedAt)
        try ledger.recordRetry(
            accountUid: "a", weekEnd: end, leg: 0, goal: ("g3", "Rainy day", "t3"), resolution: "to Rainy day",
            at: changedAt)
        try ledger.recordFailure(accountUid: "a", weekEnd: end, leg: 0, error: "HTTP 503", at: changedAt)
        try ledger.recordHeld(
            accountUid: "a", weekEnd: end, reason: String(repeating: "s", count: 1200),
            otherWeekEnd: LocalDate(iso: "2026-11-11"), sharedMinorUnits: 50, at: changedAt)

        var expected = AccountWeek(
            accountUid: "a", weekEnd: end, status: .held, currency: "GBP", minorUnits: 298, goalUid: "g3",
            goalName: "Rainy day", transferUid: "t3", lastError: "HTTP 503", accountName: "Personal",
            note: "1.00 held back by the minimum balance")
        expected.firstLeg.confirmation = .feed
        expected.firstLeg.feedItemUid = namedUid("f1")
        expected.reason = String(repeating: "s", count: 1000)
        expected.otherWeekEnd = LocalDate(iso: "2026-11-11")
        expected.sharedMinorUnits = 50
        expected.resolution = "to Rainy day"
        expected.firstLeg.earlierGoalUids = ["g1", "g2"]
        expected.firstLeg.reference = "Round-up w/e 15 Nov 2026"
        expected.createdAt = "2026-11-16T06:00:00.000Z"
        expected.updatedAt = "2026-11-17T06:30:00.000Z"
        #expect(try ledger.accountWeek(accountUid: "a", weekEnd: end) == expected)
        #expect(try ledger.accountWeeks() == [expected])

        let stored = try #require(try raw.read { db in try Row.fetchOne(db, sql: bothTables) })
        #expect(stored["weekEnd"] as String? == "2026-11-15")
        #expect(stored["otherWeekEnd"] as String? == "2026-11-11")
        #expect(stored["sharedMinorUnits"] as Int64? == 50)
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
                    INSERT INTO week (accountUid, weekEnd, status, currency, minorUnits, createdAt, updatedAt)
                    VALUES ('a', 'someday', 'done', 'GBP', 1, '2026-11-16T06:00:00.000Z', '2026-11-16T06:00:00.000Z')
                    """)
        }
        #expect {
            try ledger.accountWeeks()
        } throws: { error in
            "\(error)" == "the ledger holds an unreadable week.weekEnd value 'someday'"
        }
        // A week is always written with its legs: one without is damage too.
        try raw.write { db in try db.execute(sql: "UPDATE week SET weekEnd = '2026-11-15'") }
        try raw.close()
        #expect {
            try ledger.accountWeeks()
        } throws: { error in
            "\(error)" == "the ledger holds an unreadable week a 2026-11-15, which has no leg"
        }
    }

    /// A ledger at `path` of the schema before legs (v16, made by the frozen migrations),
    /// with `rows`, SQL that fills it.
    static func ledgerBeforeLegs(at path: String, rows: String = "") throws {
        let old = try DatabaseQueue(path: path)
        try Ledger.migrator.migrate(old, upTo: "v16: sends on the bank's clock")
        if !rows.isEmpty { try old.write { db in try db.execute(sql: rows) } }
        try old.close()
    }

    /// A ledger whose weeks were each one row of `transfer` (v16, the schema before legs)
    /// opens with every week split into its decision and one leg, index 0, that carries
    /// the transfer whole: goal, amount, uid, reference, earlier goals, sends on both
    /// clocks, its confirmation and claimed feed item, the goal's growth and the last
    /// error. The payments a week counted and the report it owes stay the week's, and the
    /// `transfer` table is gone.
    @Test func aLedgerOfOneRowPerWeekOpensWithEachWeekAsOneLeg() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        try Self.ledgerBeforeLegs(
            at: path,
            rows: """
                INSERT INTO transfer (accountUid, weekEnd, status, currency, minorUnits, goalUid, goalName,
                    transferUid, lastError, createdAt, updatedAt, accountName, note, confirmation, feedItemUid,
                    reason, resolution, earlierGoalUids, reference, startsAt, endsAt, timeZone, itemised,
                    otherWeekEnd, sharedMinorUnits, reportMissing, forecastThrough, forecastPayday,
                    forecastPayments, forecastDue, forecastLowPoint, firstSentAt, lastSentAt, sends, confirmedAt,
                    lastSentOn, goalGrew)
                VALUES
                    ('a', '2026-11-08', 'done', 'GBP', 99, 'g2', 'Holiday', 't1', NULL,
                     '2026-11-09T06:00:00.000Z', '2026-11-09T06:00:02.000Z', 'Personal', NULL, 'feed', 'f1',
                     NULL, 'to Holiday', 'g1', 'Round-up w/e 8 Nov 2026', '2026-11-02T00:00:00.000Z',
                     '2026-11-09T00:00:00.000Z', 'Europe/London', 1, NULL, NULL, 0, '2026-11-20', '2026-11-20',
                     2, 5000, 12000, '2026-11-09T06:00:01.000Z', '2026-11-09T06:00:01.500Z', 2,
                     '2026-11-09T06:00:01.600Z', '2026-11-09T06:00:01.700Z', 0),
                    ('a', '2026-11-15', 'held', 'GBP', 42, 'g1', 'Round-ups', 't2', 'HTTP 503',
                     '2026-11-16T06:00:00.000Z', '2026-11-16T06:00:01.000Z', 'Personal', 'held back', NULL,
                     NULL, 'the goal was gone', NULL, NULL, 'Round-up w/e 15 Nov 2026', NULL, NULL, NULL, 1,
                     '2026-11-11', 30, 1, NULL, NULL, NULL, NULL, NULL, '2026-11-16T06:00:00.500Z',
                     '2026-11-16T06:00:00.500Z', 1, NULL, '2026-11-16T06:00:00.600Z', 1),
                    ('b', '2026-11-15', 'nothing', 'EUR', 0, NULL, NULL, NULL, NULL,
                     '2026-11-16T06:00:00.000Z', '2026-11-16T06:00:00.000Z', NULL, NULL, NULL, NULL, NULL,
                     NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL,
                     NULL, 0, NULL, NULL, 0);
                INSERT INTO payment (accountUid, feedItemUid, weekEnd, roundUp, amount) VALUES
                    ('a', 'p1', '2026-11-15', 42, 358);
                """)

        let ledger = try Ledger(path: path)
        let weeks = try ledger.accountWeeks()
        var done = AccountWeek(
            accountUid: "a", weekEnd: try #require(LocalDate(iso: "2026-11-08")), status: .done, currency: "GBP",
            minorUnits: 99, goalUid: "g2", goalName: "Holiday", transferUid: "t1", accountName: "Personal")
        done.resolution = "to Holiday"
        done.startsAt = Instant(iso8601: "2026-11-02T00:00:00.000Z")
        done.endsAt = Instant(iso8601: "2026-11-09T00:00:00.000Z")
        done.timeZone = "Europe/London"
        done.forecast = ForecastSummary(
            through: try #require(LocalDate(iso: "2026-11-20")), payday: LocalDate(iso: "2026-11-20"), payments: 2,
            dueMinorUnits: 5000, lowPointMinorUnits: 12000)
        done.createdAt = "2026-11-09T06:00:00.000Z"
        done.updatedAt = "2026-11-09T06:00:02.000Z"
        done.firstLeg.confirmation = .feed
        done.firstLeg.feedItemUid = "f1"
        done.firstLeg.earlierGoalUids = ["g1"]
        done.firstLeg.reference = "Round-up w/e 8 Nov 2026"
        done.firstLeg.firstSentAt = Instant(iso8601: "2026-11-09T06:00:01.000Z")
        done.firstLeg.lastSentAt = Instant(iso8601: "2026-11-09T06:00:01.500Z")
        done.firstLeg.sends = 2
        done.firstLeg.confirmedAt = Instant(iso8601: "2026-11-09T06:00:01.600Z")
        done.firstLeg.lastSentOn = Instant(iso8601: "2026-11-09T06:00:01.700Z")
        #expect(weeks.first == done)
        let held = try #require(weeks.count == 3 ? weeks[1] : nil)
        #expect(held.status == .held && held.legs.map(\.status) == [.held])
        #expect(held.reason == "the goal was gone" && held.note == "held back")
        #expect(held.otherWeekEnd == LocalDate(iso: "2026-11-11") && held.sharedMinorUnits == 30)
        #expect(held.legs.count == 1 && held.firstLeg.index == 0 && held.firstLeg.minorUnits == 42)
        #expect(held.firstLeg.goalGrew && held.firstLeg.sends == 1 && held.firstLeg.lastError == "HTTP 503")
        let nothing = weeks[2]
        #expect(nothing.status == .nothing && nothing.currency == "EUR")
        #expect(nothing.legs.count == 1 && nothing.firstLeg.goalUid == nil && nothing.firstLeg.minorUnits == 0)
        // What belongs to the week stays the week's: its payments, the report it owes.
        #expect(try ledger.payments(accountUid: "a", weekEnd: held.weekEnd) == ["p1": 42])
        #expect(try ledger.weeksMissingReports() == [held.weekEnd])
        let raw = try DatabaseQueue(path: path)
        #expect(try raw.read { db in try db.tableExists("transfer") } == false)
        #expect(
            try raw.read { db in try String.fetchAll(db, sql: "SELECT status FROM leg ORDER BY weekEnd, accountUid") }
                == [
                    "done", "held", "nothing",
                ])
        try raw.close()
        // And the held week moves on as any week does: retried, sent, done.
        let now = try #require(Instant(iso8601: "2026-11-20T06:00:00.000Z"))
        try ledger.recordRetry(accountUid: "a", weekEnd: held.weekEnd, leg: 0, resolution: "retry", at: now)
        try ledger.recordSend(accountUid: "a", weekEnd: held.weekEnd, leg: 0, bankTime: now, at: now)
        try ledger.recordDone(accountUid: "a", weekEnd: held.weekEnd, leg: 0, confirmedAt: now, at: now)
        let after = try #require(try ledger.accountWeek(accountUid: "a", weekEnd: held.weekEnd))
        #expect(after.status == .done && after.firstLeg.status == .done && after.firstLeg.sends == 2)
        #expect(after.firstLeg.lastError == nil && after.reason == nil && after.resolution == "retry")
    }

    /// What this roundup never writes of a week's legs is refused as damage, naming the
    /// week, by every read: legs not numbered from 0 without a gap, legs whose amounts do not
    /// sum to the week's or whose states are not its, and a leg without its week (which a
    /// run would otherwise take for a week not yet decided).
    @Test(arguments: [
        (
            "INSERT INTO leg (accountUid, weekEnd, leg, status, minorUnits) VALUES ('a', '2026-11-15', 1, 'pending', 5)",
            "week a 2026-11-15, which moves 298 in minor units while its legs move 303"
        ),
        (
            "INSERT INTO leg (accountUid, weekEnd, leg, status, minorUnits) VALUES ('a', '2026-11-15', 2, 'pending', 0)",
            "week a 2026-11-15, which has 2 leg(s), numbered 0, 2: this roundup numbers them from 0"
        ),
        (
            "INSERT INTO leg (accountUid, weekEnd, leg, status, minorUnits) VALUES ('a', '2026-11-15', 1, 'held', 0)",
            "week a 2026-11-15, which is pending while its legs are pending, held"
        ),
        ("UPDATE leg SET status = 'done'", "week a 2026-11-15, which is pending while its leg is done"),
        (
            "UPDATE leg SET minorUnits = 299",
            "week a 2026-11-15, which moves 298 in minor units while its leg moves 299"
        ),
        (
            "UPDATE leg SET leg = 1",
            "week a 2026-11-15, which has 1 leg(s), numbered 1: this roundup numbers them from 0"
        ),
        (
            "PRAGMA foreign_keys = OFF; DELETE FROM week",
            "leg 0 of the week a 2026-11-15, which has no week row"
        ),
    ])
    func legsThatDisagreeWithTheirWeekAreRefused(damage: String, named: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        let ledger = try Ledger(path: path)
        let end = try #require(LocalDate(iso: "2026-11-15"))
        try ledger.recordDecision(
            AccountWeek(
                accountUid: "a", weekEnd: end, status: .pending, currency: "GBP", minorUnits: 298, goalUid: "g",
                transferUid: "t"),
            at: Instant(millisecondsSince1970: 0))
        var configuration = Configuration()
        configuration.foreignKeysEnabled = !damage.contains("foreign_keys = OFF")
        let raw = try DatabaseQueue(path: path, configuration: configuration)
        try raw.writeWithoutTransaction { db in try db.execute(sql: damage) }
        try raw.close()
        let reads: [() throws -> Void] = [
            { _ = try ledger.accountWeeks() }, { _ = try ledger.accountWeek(accountUid: "a", weekEnd: end) },
            { _ = try ledger.accountWeeks(accountUid: "a") }, { _ = try ledger.accountWeeks(endingOn: [end]) },
        ]
        for read in reads {
            #expect {
                try read()
            } throws: { error in
                "\(error)" == "the ledger holds an unreadable \(named)"
            }
        }
    }

    /// A ledger of the schema before legs whose weeks clash in case is refused as it is:
    /// no migration runs first, so an older roundup (or a person) finds it unchanged.
    @Test func anOlderLedgerWhoseUidsClashIsRefusedUnchanged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        try Self.ledgerBeforeLegs(
            at: path,
            rows: """
                INSERT INTO transfer (accountUid, weekEnd, status, currency, minorUnits, createdAt, updatedAt)
                VALUES ('a', '2026-11-15', 'nothing', 'GBP', 0, '2026-11-16T06:00:00.000Z', '2026-11-16T06:00:00.000Z'),
                       ('A', '2026-11-15', 'nothing', 'GBP', 0, '2026-11-16T06:00:00.000Z', '2026-11-16T06:00:00.000Z')
                """)
        #expect {
            _ = try Ledger(path: path)
        } throws: { error in
            "\(error)".contains("the account a and the week 2026-11-15, whose uids differ only in case")
        }
        let raw = try DatabaseQueue(path: path)
        #expect(try raw.read { db in try db.tableExists("transfer") && !(try db.tableExists("week")) })
        #expect(
            try raw.read { db in try String.fetchAll(db, sql: "SELECT accountUid FROM transfer ORDER BY 1") } == [
                "A", "a",
            ])
        try raw.close()
    }

    /// A week decided held, with its leg: the two stand alike, and read back.
    @Test func aWeekDecidedHeldHasItsLegHeld() throws {
        let directory = try TemporaryDirectory()
        let ledger = try Ledger(path: directory.path + "/ledger.sqlite")
        var week = AccountWeek(
            accountUid: "a", weekEnd: try #require(LocalDate(iso: "2026-11-15")), status: .pending, currency: "GBP",
            minorUnits: 5, goalUid: "g", transferUid: "t")
        week.decide(.held)
        try ledger.recordDecision(week, at: Instant(millisecondsSince1970: 0))
        let read = try #require(try ledger.accountWeek(accountUid: "a", weekEnd: week.weekEnd))
        #expect(read.status == .held && read.legs.map(\.status) == [.held])
    }

    /// A week into two goals keeps a leg for each: it is partly transferred while one has
    /// arrived and the other is open, held with the open one while the arrived one stays
    /// done, and done once both are; held back, it keeps what arrived.
    @Test func aWeekOfTwoLegsStandsWhereItsLegsDo() throws {
        let directory = try TemporaryDirectory()
        let ledger = try Ledger(path: directory.path + "/ledger.sqlite")
        let end = try #require(LocalDate(iso: "2026-11-15"))
        let now = Instant(millisecondsSince1970: 0)
        func legs(_ units: [Int64], week: Int = 1) -> [TransferLeg] {
            units.enumerated().map { index, minorUnits in
                var leg = TransferLeg(index: index, status: .pending, minorUnits: minorUnits)
                (leg.goalUid, leg.transferUid) = ("g\(index)", "t\(week).\(index)")
                return leg
            }
        }
        try ledger.recordDecision(
            AccountWeek(accountUid: "a", weekEnd: end, status: .pending, currency: "GBP", legs: legs([100, 129])),
            at: now)
        try ledger.recordSend(accountUid: "a", weekEnd: end, leg: 0, bankTime: now, at: now)
        try ledger.recordDone(accountUid: "a", weekEnd: end, leg: 0, confirmedAt: now, at: now)
        var read = try #require(try ledger.accountWeek(accountUid: "a", weekEnd: end))
        #expect(read.minorUnits == 229 && read.status == .pending && read.legs.map(\.status) == [.done, .pending])
        #expect(read.isPartlyTransferred && WeekFate(read) == .partlyTransferred)
        #expect(read.openLegs.map(\.index) == [1] && read.confirmedAt == nil)
        try ledger.recordHeld(accountUid: "a", weekEnd: end, reason: "why", at: now)
        read = try #require(try ledger.accountWeek(accountUid: "a", weekEnd: end))
        #expect(read.status == .held && read.legs.map(\.status) == [.done, .held] && WeekFate(read) == .held)
        try ledger.recordRetry(accountUid: "a", weekEnd: end, leg: 1, resolution: "retry", at: now)
        try ledger.recordSend(accountUid: "a", weekEnd: end, leg: 1, bankTime: now, at: now)
        try ledger.recordDone(accountUid: "a", weekEnd: end, leg: 1, confirmedAt: now, at: now)
        read = try #require(try ledger.accountWeek(accountUid: "a", weekEnd: end))
        #expect(read.status == .done && read.legs.map(\.status) == [.done, .done] && WeekFate(read) == .transferred)

        // Held back when its open leg is to be sent again: what arrived stays, and the week is done.
        let next = end.adding(days: 7)
        try ledger.recordDecision(
            AccountWeek(
                accountUid: "a", weekEnd: next, status: .pending, currency: "GBP", legs: legs([100, 129], week: 2)),
            at: now)
        try ledger.recordDone(accountUid: "a", weekEnd: next, leg: 0, confirmedAt: now, at: now)
        try ledger.recordHeldBack(accountUid: "a", weekEnd: next, note: "held back 1.29 GBP", forecast: nil, at: now)
        read = try #require(try ledger.accountWeek(accountUid: "a", weekEnd: next))
        #expect(read.status == .done && read.minorUnits == 100 && read.legs.map(\.minorUnits) == [100, 0])
        #expect(read.legs.map(\.status) == [.done, .nothing] && read.note == "held back 1.29 GBP")
    }
    /// A process that does not hold the state directory's lock (a run refused it, recording
    /// that it ran) never changes the ledger's schema: an older ledger is refused, and left
    /// as it was for the run that holds the lock, or an older roundup's run under way.
    @Test func anOpenWithoutTheLockLeavesAnOlderSchemaAsItIs() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        try Self.ledgerBeforeLegs(at: path)
        #expect {
            _ = try Ledger(path: path, migrates: false)
        } throws: { error in
            "\(error)".contains("lacks 'v17: a week's transfers as legs'")
                && "\(error)".contains("only a run that holds the state directory's lock brings it up to date")
        }
        let raw = try DatabaseQueue(path: path)
        #expect(try raw.read { db in try db.tableExists("transfer") && !(try db.tableExists("week")) })
        try raw.close()
        _ = try Ledger(path: path)
        let migrated = try DatabaseQueue(path: path)
        #expect(try migrated.read { db in try db.tableExists("week") && !(try db.tableExists("transfer")) })
        try migrated.close()
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
        let entries = try ledger.accountWeeks()
        #expect(entries.map(\.status) == [.done, .pending])
        #expect(entries.map(\.firstLeg.confirmation) == [.bank, nil])
        #expect(entries[1].firstLeg.lastError == "HTTP 503" && entries[1].note == "held back")
        #expect(entries[1].createdAt == "2026-11-16T06:00:00.000Z" && entries[0].firstLeg.transferUid == "t1")
        // Weeks recorded before transfers carried a reference have none: a resend sends none either.
        #expect(entries.map(\.firstLeg.reference) == [nil, nil])
        let now = Instant(millisecondsSince1970: 0)
        try ledger.recordHeld(accountUid: "a", weekEnd: entries[1].weekEnd, reason: "why", at: now)
        #expect(try ledger.accountWeeks()[1].status == .held)
        // An update that finds the week in another state than it expects is an error.
        #expect(throws: LedgerError.self) {
            try ledger.recordHeld(accountUid: "a", weekEnd: entries[0].weekEnd, reason: "why", at: now)
        }
    }

    /// A ledger edited by hand, or damaged, with a value of the wrong type in a column: the
    /// read fails naming the table, the column and the value, and nothing crashes.
    @Test(arguments: [
        ("UPDATE week SET minorUnits = 'abc'", "week.minorUnits value 'abc'"),
        ("UPDATE week SET minorUnits = 1.5", "week.minorUnits value 1.5"),
        ("UPDATE leg SET confirmation = NULL, goalName = x'00ff'", "leg.goalName value a blob of 2 bytes"),
        ("UPDATE leg SET feedItemUid = x'01'", "leg.feedItemUid value a blob of 1 bytes"),
        ("UPDATE leg SET leg = 'first'", "leg.leg value 'first'"),
        ("UPDATE run SET exitCode = 99999999999", "run.exitCode value 99999999999"),
        ("UPDATE run SET accountsDone = 'many'", "run.accountsDone value 'many'"),
        ("UPDATE run SET startedAt = 'yesterday'", "run.startedAt value 'yesterday'"),
        ("UPDATE run SET endedAt = 1.5", "run.endedAt value '1.5'"),
    ])
    func aValueOfTheWrongTypeIsNamedNotACrash(damage: String, named: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        let ledger = try Ledger(path: path)
        let now = Instant(millisecondsSince1970: 0)
        try ledger.recordDecision(
            AccountWeek(
                accountUid: "a", weekEnd: LocalDate(iso: "2026-11-15")!, status: .done, currency: "GBP", minorUnits: 5,
                goalName: "Round-ups"),
            at: now)
        let id = try ledger.startRun(at: now)
        try ledger.finishRun(
            RunRecord(
                id: id, startedAt: now, endedAt: now, exitCode: 0, weeks: "2026-11-15", accountsDone: 1,
                accountsHeld: 0, accountsFailed: 0, summary: "moved"))
        #expect(try ledger.accountWeeks().count == 1 && ledger.runs().count == 1)
        let raw = try DatabaseQueue(path: path)
        try raw.write { db in try db.execute(sql: damage) }
        try raw.close()
        let read = { () throws -> Void in
            if damage.hasPrefix("UPDATE run") { _ = try ledger.runs() } else { _ = try ledger.accountWeeks() }
        }
        #expect {
            try read()
        } throws: { error in
            (error as? LedgerError)?.description == "the ledger holds an unreadable \(named)"
        }
    }

    /// A ledger whose schema a newer roundup changed is refused, naming both schemas, rather
    /// than read or written by a roundup that does not know what the change means.
    @Test func aLedgerFromANewerRoundupIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        _ = try Ledger(path: path)
        let raw = try DatabaseQueue(path: path)
        try raw.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v9: later'), ('v10: much later')")
        }
        try raw.close()
        let known = try #require(Ledger.migrator.migrations.last)
        for open in [{ _ = try Ledger(path: path) }, { _ = try Ledger.readOnlyCopy(of: path) }] {
            #expect {
                try open()
            } throws: { error in
                let text = "\(error)"
                return text.contains("written by a newer roundup") && text.contains("'v10: much later'")
                    && text.contains("'\(known)'")
            }
        }
    }

    /// Uids an earlier version stored as the config or the bank spelt them are lower-cased
    /// by the migration, and found by the one spelling every reader uses.
    @Test func uidsStoredInCapitalsAreLowerCasedByTheMigration() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        let week = try #require(LocalDate(iso: "2026-11-15"))
        let raw = try DatabaseQueue(path: path)
        try Ledger.migrator.migrate(raw, upTo: "v7: transfer references")
        try raw.write { db in
            try db.execute(
                sql: """
                    INSERT INTO transfer (accountUid, weekEnd, status, currency, minorUnits, goalUid, transferUid,
                                          earlierGoalUids, createdAt, updatedAt)
                    VALUES ('AAAA-1', '2026-11-15', 'pending', 'GBP', 5, 'GGGG-2', 'T1', 'EEEE-3 ffff-4',
                            '2026-11-16T06:00:00.000Z', '2026-11-16T06:00:00.000Z')
                    """)
        }
        try raw.close()
        let migrated = try Ledger(path: path)
        let entry = try #require(try migrated.accountWeek(accountUid: "aaaa-1", weekEnd: week))
        #expect(entry.firstLeg.goalUid == "gggg-2")
        #expect(entry.firstLeg.earlierGoalUids == ["eeee-3", "ffff-4"])
        // A transfer uid is the bank's key as it was sent: kept.
        #expect(entry.firstLeg.transferUid == "T1")
        let stored = try DatabaseQueue(path: path)
        #expect(try stored.read { db in try String.fetchOne(db, sql: "SELECT accountUid FROM week") } == "aaaa-1")
        #expect(try stored.read { db in try String.fetchOne(db, sql: "SELECT accountUid FROM leg") } == "aaaa-1")
        try stored.close()
    }

    /// Two rows of one week whose account uids differ only in case cannot both be kept: the
    /// ledger is refused unchanged, naming them.
    @Test func rowsThatDifferOnlyInCaseAreRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        let week = try #require(LocalDate(iso: "2026-11-15"))
        let ledger = try Ledger(path: path)
        for uid in ["a", "b"] {
            try ledger.recordDecision(
                AccountWeek(accountUid: uid, weekEnd: week, status: .nothing, currency: "GBP", minorUnits: 0),
                at: Instant(millisecondsSince1970: 0))
        }
        let raw = try DatabaseQueue(path: path)
        try raw.write { db in
            try db.execute(
                sql: """
                    UPDATE week SET accountUid = 'A' WHERE accountUid = 'b';
                    """)
        }
        try raw.close()
        #expect {
            _ = try Ledger(path: path)
        } throws: { error in
            "\(error)".contains("the account a and the week 2026-11-15, whose uids differ only in case")
        }
        let stored = try DatabaseQueue(path: path)
        #expect(
            try stored.read { db in try String.fetchAll(db, sql: "SELECT accountUid FROM leg ORDER BY 1") } == [
                "A", "a",
            ])
        try stored.close()
    }

    /// A uid written in capitals after v8 (by an older roundup, or by hand) is lower-cased
    /// when the ledger next opens; a uid that is not text is refused.
    @Test func uidsAreBroughtToOneSpellingEachTimeTheLedgerOpens() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        let week = try #require(LocalDate(iso: "2026-11-15"))
        let ledger = try Ledger(path: path)
        try ledger.recordDecision(
            AccountWeek(accountUid: "a", weekEnd: week, status: .nothing, currency: "GBP", minorUnits: 0),
            at: Instant(millisecondsSince1970: 0))
        let raw = try DatabaseQueue(path: path)
        try raw.write { db in try db.execute(sql: "UPDATE week SET accountUid = 'A'") }
        #expect(try Ledger(path: path).accountWeek(accountUid: "a", weekEnd: week) != nil)
        #expect(try Ledger.readOnlyCopy(of: path).accountWeek(accountUid: "a", weekEnd: week) != nil)
        try raw.write { db in try db.execute(sql: "UPDATE week SET accountUid = x'41'") }
        try raw.close()
        #expect {
            _ = try Ledger(path: path)
        } throws: { error in
            "\(error)" == "the ledger holds an unreadable week.accountUid value of type blob"
        }
    }

    /// A week's counted payments are written with its decision, and every other week of the
    /// account sees them, however far away: a payment is counted once, ever. Its own week
    /// does not, nor does another account.
    @Test func countedPaymentsAreRecordedWithTheDecision() throws {
        let directory = try TemporaryDirectory()
        let ledger = try Ledger(path: directory.path + "/ledger.sqlite")
        let week = try #require(LocalDate(iso: "2026-11-15"))
        try ledger.recordDecision(
            AccountWeek(accountUid: "a", weekEnd: week, status: .nothing, currency: "GBP", minorUnits: 0),
            counting: [Self.payment("p1", 65), Self.payment("p2", 0)], at: Instant(millisecondsSince1970: 0))
        let asked = ["p1", "p2", "p9"]
        #expect(try ledger.countedElsewhere(accountUid: "a", weekEnd: week, among: asked).isEmpty)
        #expect(
            try ledger.countedElsewhere(accountUid: "a", weekEnd: week.adding(days: 3), among: asked) == ["p1", "p2"])
        #expect(
            try ledger.countedElsewhere(accountUid: "a", weekEnd: week.adding(days: -10), among: asked) == ["p1", "p2"])
        #expect(
            try ledger.countedElsewhere(accountUid: "a", weekEnd: week.adding(days: 400), among: asked) == ["p1", "p2"])
        #expect(try ledger.countedElsewhere(accountUid: "b", weekEnd: week.adding(days: 3), among: asked).isEmpty)
        #expect(try ledger.payments(accountUid: "a", weekEnd: week) == ["p1": 65, "p2": 0])
        // A week already decided is not decided again, and its payments are not written twice.
        #expect(throws: (any Error).self) {
            try ledger.recordDecision(
                AccountWeek(accountUid: "a", weekEnd: week, status: .nothing, currency: "GBP", minorUnits: 0),
                counting: [Self.payment("p3", 1)], at: Instant(millisecondsSince1970: 0))
        }
        #expect(try ledger.payments(accountUid: "a", weekEnd: week) == ["p1": 65, "p2": 0])
    }

    /// The lookup asks in parts of a thousand: a week of 2,500 payments finds each of them.
    @Test func aLargeWeekIsLookedUpWhole() throws {
        let directory = try TemporaryDirectory()
        let ledger = try Ledger(path: directory.path + "/ledger.sqlite")
        let week = try #require(LocalDate(iso: "2026-11-15"))
        let uids = (0..<2_500).map { String(format: "p%05d", $0) }
        try ledger.recordDecision(
            AccountWeek(accountUid: "a", weekEnd: week, status: .nothing, currency: "GBP", minorUnits: 0),
            counting: uids.map { Self.payment($0, 1) }, at: Instant(millisecondsSince1970: 0))
        let found = try ledger.countedElsewhere(
            accountUid: "a", weekEnd: week.adding(days: 7), among: uids + ["q1", "q2"])
        #expect(found == Set(uids))
    }

    /// v9's payments, one text per week, move to a row each when the ledger opens: uids in
    /// capitals or with white space around them brought to one identity, a uid with a tab,
    /// a newline or a backslash read back exactly, weeks marked as itemised; a payment an
    /// earlier roundup counted in two weeks keeps both rows, and the run that opens the
    /// ledger says so once.
    @Test func countedPaymentsOfTheSchemaBeforeMoveToOneRowEach() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/ledger.sqlite"
        let old = try DatabaseQueue(path: path)
        try Ledger.migrator.migrate(old, upTo: "v11: goal progress")
        let ledgerText = { (payments: [(String, Int64)]) in
            payments.map { uid, roundUp in
                uid.replacing("\\", with: "\\\\").replacing("\t", with: "\\t").replacing("\n", with: "\\n")
                    + "\t\(roundUp)\n"
            }.joined()
        }
        try old.write { db in
            for end in ["2026-10-18", "2026-11-15", "2026-11-22"] {
                try db.execute(
                    sql: """
                        INSERT INTO transfer (accountUid, weekEnd, status, currency, minorUnits, createdAt, updatedAt)
                        VALUES ('a', ?, 'nothing', 'GBP', 0, '2026-11-16T06:00:00.000Z', '2026-11-16T06:00:00.000Z')
                        """, arguments: [end])
            }
            // A week the feed confirmed, by an item whose uid an earlier roundup kept as sent.
            try db.execute(sql: "UPDATE transfer SET feedItemUid = char(9) || 'AB-9 ' WHERE weekEnd = '2026-10-18'")
            try db.execute(
                sql: "INSERT INTO counted VALUES ('a', '2026-11-15', ?), ('A', '2026-11-22', ?)",
                arguments: [
                    ledgerText([("AB-1", 65), (" cd-2 ", 10), ("tab\there", 3), ("back\\slash", 4)]),
                    ledgerText([("ab-1", 65), ("ef-3", 20)]),
                ])
        }
        try old.close()
        let ledger = try Ledger(path: path)
        let fifteenth = try #require(LocalDate(iso: "2026-11-15"))
        let twentySecond = try #require(LocalDate(iso: "2026-11-22"))
        #expect(
            try ledger.payments(accountUid: "a", weekEnd: fifteenth) == [
                "ab-1": 65, "cd-2": 10, "tab\there": 3, "back\\slash": 4,
            ])
        #expect(try ledger.payments(accountUid: "a", weekEnd: twentySecond) == ["ab-1": 65, "ef-3": 20])
        #expect(
            try ledger.accountWeek(accountUid: "a", weekEnd: LocalDate(iso: "2026-10-18")!)?.firstLeg.feedItemUid
                == "ab-9")
        #expect(ledger.notices.count == 1)
        #expect(ledger.notices.first?.contains("1 payment(s) an earlier roundup counted in two weeks") == true)
        #expect(try Ledger(path: path).notices.isEmpty, "said once, by the run that moved them")
        let spans = try ledger.neighbours(accountUid: "a", weekEnd: twentySecond.adding(days: 7), zone: TestBank.london)
        #expect(spans.filter(\.itemised).map(\.weekEnd) == [fifteenth, twentySecond])
        let october = try ledger.neighbours(
            accountUid: "a", weekEnd: LocalDate(iso: "2026-10-25")!, zone: TestBank.london)
        #expect(october.first { $0.weekEnd == LocalDate(iso: "2026-10-18") }?.itemised == false)
        #expect(
            try ledger.countedElsewhere(
                accountUid: "a", weekEnd: LocalDate(iso: "2027-01-03")!, among: ["ab-1", "cd-2"])
                == ["ab-1", "cd-2"])
    }
}
