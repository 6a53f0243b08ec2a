import Foundation
import GRDB
import RoundUp

extension Ledger {
    /// The ledger's schema as it grew, one migration per change. A migration that has
    /// shipped is frozen: ledgers in use recorded it by name when they ran it, so neither
    /// its name nor its SQL ever changes; a new column or table is a new migration at the
    /// end, and the record of the table (`WeekRow`, `LegRow`, `RunRow`) gains it too.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE transfer (
                        accountUid TEXT NOT NULL,
                        weekEnd TEXT NOT NULL,
                        status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'nothing')),
                        currency TEXT NOT NULL,
                        minorUnits INTEGER NOT NULL CHECK (minorUnits >= 0),
                        goalUid TEXT,
                        goalName TEXT,
                        transferUid TEXT UNIQUE,
                        lastError TEXT,
                        createdAt TEXT NOT NULL,
                        updatedAt TEXT NOT NULL,
                        PRIMARY KEY (accountUid, weekEnd)
                    )
                    """)
        }
        migrator.registerMigration("v2: account names") { db in
            try db.execute(sql: "ALTER TABLE transfer ADD COLUMN accountName TEXT")
        }
        migrator.registerMigration("v3: notes") { db in
            try db.execute(sql: "ALTER TABLE transfer ADD COLUMN note TEXT")
        }
        migrator.registerMigration("v4: held weeks and feed confirmations", migrate: addHeldWeeks)
        migrator.registerMigration("v5: requests per day", migrate: countRequests)
        migrator.registerMigration("v6: runs", migrate: recordRuns)
        migrator.registerMigration("v7: transfer references") { db in
            try db.execute(sql: "ALTER TABLE transfer ADD COLUMN reference TEXT")
        }
        migrator.registerMigration("v8: one spelling per uid", migrate: lowerCaseTransferUids)
        migrator.registerMigration("v9: counted payments", migrate: countPayments)
        migrator.registerMigration("v10: week bounds") { db in
            try db.execute(
                sql: """
                    ALTER TABLE transfer ADD COLUMN startsAt TEXT;
                    ALTER TABLE transfer ADD COLUMN endsAt TEXT;
                    ALTER TABLE transfer ADD COLUMN timeZone TEXT;
                    """)
        }
        migrator.registerMigration("v11: goal progress") { db in
            try db.execute(
                sql: """
                    CREATE TABLE goal (
                        goalUid TEXT PRIMARY KEY,
                        name TEXT NOT NULL,
                        currency TEXT NOT NULL,
                        saved INTEGER NOT NULL,
                        target INTEGER,
                        updatedAt TEXT NOT NULL
                    )
                    """)
        }
        migrator.registerMigration(paymentsByIdentity, migrate: movePaymentsToIdentity)
        // Each counted payment as the report shows it, so that a report a full disk kept
        // from being written can be written later from the ledger; and on each week whether
        // its report is missing so. Payments counted before keep only their round-up.
        migrator.registerMigration("v13: reports written later") { db in
            try db.execute(
                sql: """
                    ALTER TABLE payment ADD COLUMN amount INTEGER;
                    ALTER TABLE payment ADD COLUMN settlementTime INTEGER;
                    ALTER TABLE payment ADD COLUMN counterParty TEXT;
                    ALTER TABLE transfer ADD COLUMN reportMissing INTEGER NOT NULL DEFAULT 0;
                    """)
        }
        // What the bank had scheduled before payday when each week was decided, in sum.
        migrator.registerMigration("v14: forecasts") { db in
            try db.execute(
                sql: """
                    ALTER TABLE transfer ADD COLUMN forecastThrough TEXT;
                    ALTER TABLE transfer ADD COLUMN forecastPayday TEXT;
                    ALTER TABLE transfer ADD COLUMN forecastPayments INTEGER;
                    ALTER TABLE transfer ADD COLUMN forecastDue INTEGER;
                    ALTER TABLE transfer ADD COLUMN forecastLowPoint INTEGER;
                    """)
        }
        // The accounts runs began to work on, with the first scheduled week begun for each.
        // Accounts with weeks already recorded start known from their first.
        migrator.registerMigration("v15: known accounts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE account (
                        accountUid TEXT PRIMARY KEY,
                        firstWeekEnd TEXT NOT NULL
                    );
                    INSERT INTO account (accountUid, firstWeekEnd)
                        SELECT accountUid, min(weekEnd) FROM transfer GROUP BY accountUid;
                    """)
        }
        // Each week's sends on the bank's clock: the first (from which the feed is searched
        // for its transfer), the latest (on this machine's clock too) and how many; when the
        // bank confirmed it; and whether the goal's total grew by its amount after a send
        // the feed did not show. A
        // week left pending, held or abandoned by an earlier version may have been sent: it counts as
        // sent once, so that a transfer in the feed may still be its own; so may one a person
        // abandoned.
        migrator.registerMigration("v16: sends on the bank's clock") { db in
            try db.execute(
                sql: """
                    ALTER TABLE transfer ADD COLUMN firstSentAt TEXT;
                    ALTER TABLE transfer ADD COLUMN lastSentAt TEXT;
                    ALTER TABLE transfer ADD COLUMN sends INTEGER NOT NULL DEFAULT 0 CHECK (sends >= 0);
                    ALTER TABLE transfer ADD COLUMN confirmedAt TEXT;
                    ALTER TABLE transfer ADD COLUMN lastSentOn TEXT;
                    ALTER TABLE transfer ADD COLUMN goalGrew INTEGER NOT NULL DEFAULT 0 CHECK (goalGrew IN (0, 1));
                    UPDATE transfer SET sends = 1 WHERE status IN ('pending', 'held', 'abandoned');
                    """)
        }
        migrator.registerMigration("v17: a week's transfers as legs", migrate: splitWeeksIntoLegs)
        // When the saver was told, through notify.to, that a week is held: told once, and
        // again only if a person sends it again and it is held anew.
        migrator.registerMigration("v18: held weeks told") { db in
            try db.execute(sql: "ALTER TABLE week ADD COLUMN heldToldAt TEXT")
        }
        return migrator
    }

    /// v17: a week's decision and its transfers in tables of their own, so that a week can
    /// move money into more than one goal. `week` keeps what was decided for the
    /// (account, week); `leg` keeps each transfer under (account, week, index): its goal,
    /// amount, transfer uid and reference, its sends on both clocks, and what confirmed it.
    /// Every week of `transfer` becomes a week with one leg, index 0, carrying the week's
    /// status, amount and transfer whole, its earlier goals and claimed feed item; the
    /// payments it counted and the report it owes stay the week's.
    private static func splitWeeksIntoLegs(_ db: Database) throws {
        let states = "'pending', 'done', 'nothing', 'held', 'abandoned'"
        try db.execute(
            sql: """
                CREATE TABLE week (
                    accountUid TEXT NOT NULL,
                    weekEnd TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status IN (\(states))),
                    currency TEXT NOT NULL,
                    minorUnits INTEGER NOT NULL CHECK (minorUnits >= 0),
                    accountName TEXT,
                    note TEXT,
                    reason TEXT,
                    resolution TEXT,
                    startsAt TEXT,
                    endsAt TEXT,
                    timeZone TEXT,
                    otherWeekEnd TEXT,
                    sharedMinorUnits INTEGER CHECK (sharedMinorUnits >= 0),
                    forecastThrough TEXT,
                    forecastPayday TEXT,
                    forecastPayments INTEGER,
                    forecastDue INTEGER,
                    forecastLowPoint INTEGER,
                    itemised INTEGER NOT NULL DEFAULT 0,
                    reportMissing INTEGER NOT NULL DEFAULT 0,
                    createdAt TEXT NOT NULL,
                    updatedAt TEXT NOT NULL,
                    PRIMARY KEY (accountUid, weekEnd)
                );
                CREATE TABLE leg (
                    accountUid TEXT NOT NULL,
                    weekEnd TEXT NOT NULL,
                    leg INTEGER NOT NULL CHECK (leg >= 0),
                    status TEXT NOT NULL CHECK (status IN (\(states))),
                    goalUid TEXT,
                    goalName TEXT,
                    minorUnits INTEGER NOT NULL CHECK (minorUnits >= 0),
                    transferUid TEXT UNIQUE,
                    reference TEXT,
                    earlierGoalUids TEXT,
                    lastError TEXT,
                    confirmation TEXT CHECK (confirmation IN ('bank', 'feed')),
                    feedItemUid TEXT UNIQUE,
                    firstSentAt TEXT,
                    lastSentAt TEXT,
                    sends INTEGER NOT NULL DEFAULT 0 CHECK (sends >= 0),
                    lastSentOn TEXT,
                    confirmedAt TEXT,
                    goalGrew INTEGER NOT NULL DEFAULT 0 CHECK (goalGrew IN (0, 1)),
                    PRIMARY KEY (accountUid, weekEnd, leg),
                    FOREIGN KEY (accountUid, weekEnd) REFERENCES week (accountUid, weekEnd) ON UPDATE CASCADE
                );
                INSERT INTO week (accountUid, weekEnd, status, currency, minorUnits, accountName, note, reason,
                                  resolution, startsAt, endsAt, timeZone, otherWeekEnd, sharedMinorUnits,
                                  forecastThrough, forecastPayday, forecastPayments, forecastDue, forecastLowPoint,
                                  itemised, reportMissing, createdAt, updatedAt)
                    SELECT accountUid, weekEnd, status, currency, minorUnits, accountName, note, reason,
                           resolution, startsAt, endsAt, timeZone, otherWeekEnd, sharedMinorUnits,
                           forecastThrough, forecastPayday, forecastPayments, forecastDue, forecastLowPoint,
                           itemised, reportMissing, createdAt, updatedAt
                    FROM transfer;
                INSERT INTO leg (accountUid, weekEnd, leg, status, goalUid, goalName, minorUnits, transferUid,
                                 reference, earlierGoalUids, lastError, confirmation, feedItemUid, firstSentAt,
                                 lastSentAt, sends, lastSentOn, confirmedAt, goalGrew)
                    SELECT accountUid, weekEnd, 0, status, goalUid, goalName, minorUnits, transferUid,
                           reference, earlierGoalUids, lastError, confirmation, feedItemUid, firstSentAt,
                           lastSentAt, sends, lastSentOn, confirmedAt, goalGrew
                    FROM transfer;
                DROP TABLE transfer;
                """)
    }

    /// v12's name, by which `Ledger.init` knows the run that applied it.
    static let paymentsByIdentity = "v12: payments by identity"

    /// v12: each counted payment a row of its own, `(accountUid, feedItemUid, weekEnd,
    /// roundUp)`, keyed by the account and the payment's identity (`Uid.identity`), so that
    /// one lookup tells whether any week ever counted it; and on each week whether the
    /// ledger keeps its payments one by one (`itemised`), which v9's row per week marked;
    /// and for a week held over another ledger's transfer, the week that transfer names and
    /// the part of this week's amount its days account for (`otherWeekEnd`, `sharedMinorUnits`).
    /// v9's rows are moved over with their uids trimmed and lower-cased. A payment that an
    /// earlier roundup counted in two weeks (in two spellings, or settled twice) keeps both
    /// rows, as history: the weeks' totals stay what they moved. They are counted in
    /// `duplicates`, for the one notice the opening run gives (`Ledger.notices`).
    private static func movePaymentsToIdentity(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE payment (
                    accountUid TEXT NOT NULL,
                    feedItemUid TEXT NOT NULL,
                    weekEnd TEXT NOT NULL,
                    roundUp INTEGER NOT NULL,
                    PRIMARY KEY (accountUid, feedItemUid, weekEnd)
                ) WITHOUT ROWID;
                ALTER TABLE transfer ADD COLUMN itemised INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE transfer ADD COLUMN otherWeekEnd TEXT;
                ALTER TABLE transfer ADD COLUMN sharedMinorUnits INTEGER CHECK (sharedMinorUnits >= 0);
                UPDATE transfer SET itemised = 1 WHERE EXISTS (
                    SELECT 1 FROM counted
                    WHERE lower(counted.accountUid) = transfer.accountUid AND counted.weekEnd = transfer.weekEnd);
                UPDATE OR IGNORE transfer SET feedItemUid = lower(trim(feedItemUid, ' ' || char(9, 10, 11, 12, 13)))
                    WHERE feedItemUid IS NOT NULL;
                """)
        let insert = try db.makeStatement(
            sql: "INSERT OR IGNORE INTO payment (accountUid, feedItemUid, weekEnd, roundUp) VALUES (?, ?, ?, ?)")
        let weeks = try Row.fetchCursor(db, sql: "SELECT accountUid, weekEnd, payments FROM counted")
        while let week = try weeks.next() {
            let read = LedgerRow(row: week, table: "counted")
            let account = Uid.canonical(try read.requiredText(Column("accountUid")))
            let weekEnd = try read.requiredText(Column("weekEnd"))
            for (uid, roundUp) in CountedPayments.decode(try read.requiredText(Column("payments"))) {
                let identity = v12Identity(uid)
                guard !identity.isEmpty else { continue }
                try insert.execute(arguments: [account, identity, weekEnd, roundUp])
            }
        }
        try db.execute(sql: "DROP TABLE counted")
    }

    /// A payment's identity as v12 wrote it, kept as it was so that the migration moves an
    /// old ledger the same way whatever later versions make of a uid: trimmed of white space
    /// and with ASCII capitals made small. (A run now also requires a UUID, `Uid.identity`;
    /// for a UUID the two agree.)
    private static func v12Identity(_ uid: String) -> String {
        var trimmed = Substring(uid)
        while trimmed.first?.isWhitespace == true { trimmed.removeFirst() }
        while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
        return Uid.canonical(String(trimmed))
    }

    /// Payments the ledger has counted in more than one week: only ever by a roundup before
    /// v12, whose rows are kept as history.
    static func paymentsCountedTwice(_ db: Database) throws -> Int {
        try Int.fetchOne(
            db,
            sql: """
                SELECT count(*) FROM (
                    SELECT 1 FROM payment GROUP BY accountUid, feedItemUid HAVING count(*) > 1)
                """) ?? 0
    }

    /// v10's bounds for weeks decided before it: the seven local days ending on the week's
    /// end date in `timeZone`, the configured zone, which is the best the ledger can know
    /// of the zone they were counted in. Run each time the ledger is opened by a command
    /// that knows the zone, so that a row written without bounds (by a run that opened the
    /// ledger before it could read its config) gets them too.
    static func boundWeeks(_ db: Database, in timeZone: TimeZone) throws {
        let unbounded = try Row.fetchAll(
            db, sql: "SELECT rowid, weekEnd FROM week WHERE startsAt IS NULL OR endsAt IS NULL")
        for row in unbounded {
            let stored: DatabaseValue = row["weekEnd"]
            guard let text = String.fromDatabaseValue(stored), let weekEnd = LocalDate(iso: text) else {
                throw LedgerError.corrupt("week.weekEnd value \(LedgerRow.describe(stored))")
            }
            let week = Week(endingOn: weekEnd, in: timeZone)
            try db.execute(
                sql: """
                    UPDATE week SET startsAt = ?, endsAt = ?, timeZone = coalesce(timeZone, ?) WHERE rowid = ?
                    """,
                arguments: [week.start.iso8601, week.end.iso8601, timeZone.identifier, row["rowid"]])
        }
    }

    /// v9: every payment a week counted, so that no other week (an overlapping window,
    /// another time zone, a repeat in one answer) counts it again: a row per week, its
    /// payments one per line as `feedItemUid<TAB>round-up in minor units` (`CountedPayments`).
    /// v12 moved them to a row per payment and dropped the table.
    private static func countPayments(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE counted (
                    accountUid TEXT NOT NULL,
                    weekEnd TEXT NOT NULL,
                    payments TEXT NOT NULL,
                    PRIMARY KEY (accountUid, weekEnd)
                ) WITHOUT ROWID
                """)
    }

    /// Account and goal uids in lower case (`Uid.canonical`), as every reader compares them,
    /// on each opening of the ledger (`Ledger.init`), for rows a person wrote by hand since.
    /// SQLite's `lower` changes ASCII letters only, as `Uid.canonical` does. Two weeks of one
    /// account whose uids differ only in case cannot both be kept: such a ledger is refused
    /// as it is, unchanged, for a person to look at. A leg's week follows its week's
    /// (`ON UPDATE CASCADE`).
    static func lowerCaseUids(_ db: Database) throws {
        for table in ["week", "leg"] {
            if let odd = try String.fetchOne(
                db, sql: "SELECT typeof(accountUid) FROM \(table) WHERE typeof(accountUid) != 'text' LIMIT 1")
            {
                throw LedgerError.corrupt("\(table).accountUid value of type \(odd)")
            }
        }
        guard
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM week WHERE accountUid != lower(accountUid))
                        OR EXISTS (SELECT 1 FROM leg WHERE accountUid != lower(accountUid)
                            OR goalUid != lower(goalUid) OR earlierGoalUids != lower(earlierGoalUids))
                    """) == true
        else { return }
        try refuseCaseClash(db)
        try db.execute(
            sql: """
                UPDATE week SET accountUid = lower(accountUid);
                UPDATE leg SET accountUid = lower(accountUid), goalUid = lower(goalUid),
                               earlierGoalUids = lower(earlierGoalUids);
                """)
    }

    /// v8: account and goal uids in lower case (`Uid.canonical`), as every reader compares
    /// them. Earlier versions stored them as the config or the bank spelt them. SQLite's
    /// `lower` changes ASCII letters only, as `Uid.canonical` does. Two rows of one week
    /// whose account uids differ only in case cannot both be kept: such a ledger is refused
    /// as it is, unchanged, for a person to look at. (Until v17 it ran each time the ledger
    /// opened too; `lowerCaseUids` does that now, on the tables v17 made.)
    private static func lowerCaseTransferUids(_ db: Database) throws {
        if let odd = try String.fetchOne(
            db, sql: "SELECT typeof(accountUid) FROM transfer WHERE typeof(accountUid) != 'text' LIMIT 1")
        {
            throw LedgerError.corrupt("transfer.accountUid value of type \(odd)")
        }
        guard
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM transfer WHERE accountUid != lower(accountUid)
                        OR goalUid != lower(goalUid) OR earlierGoalUids != lower(earlierGoalUids))
                    """) == true
        else { return }
        if let clash = try Row.fetchOne(
            db,
            sql: """
                SELECT lower(accountUid) AS account, weekEnd FROM transfer
                GROUP BY lower(accountUid), weekEnd HAVING count(*) > 1 LIMIT 1
                """)
        {
            let account: String = clash["account"] ?? "?"
            let week: String = clash["weekEnd"] ?? "?"
            throw LedgerError.corrupt(
                "pair of rows for the account \(account) and the week \(week), whose uids differ only in case")
        }
        try db.execute(
            sql: """
                UPDATE transfer SET accountUid = lower(accountUid), goalUid = lower(goalUid),
                                    earlierGoalUids = lower(earlierGoalUids)
                """)
    }

    /// Refuses a ledger with two rows of one week whose account uids differ only in case,
    /// which lower-casing could not both keep: in the table of weeks of either schema.
    static func refuseCaseClash(_ db: Database) throws {
        let table = try db.tableExists("week") ? "week" : "transfer"
        guard try db.tableExists(table) else { return }
        if let clash = try Row.fetchOne(
            db,
            sql: """
                SELECT lower(accountUid) AS account, weekEnd FROM \(table)
                WHERE typeof(accountUid) = 'text'
                GROUP BY lower(accountUid), weekEnd HAVING count(*) > 1 LIMIT 1
                """)
        {
            let account: String = clash["account"] ?? "?"
            let week: String = clash["weekEnd"] ?? "?"
            throw LedgerError.corrupt(
                "pair of rows for the account \(account) and the week \(week), whose uids differ only in case")
        }
    }

    /// v4: held and abandoned weeks, and how a week's arrival was established. SQLite
    /// cannot change a CHECK constraint in place, so the table is rebuilt.
    private static func addHeldWeeks(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE transfer_v4 (
                    accountUid TEXT NOT NULL,
                    weekEnd TEXT NOT NULL,
                    status TEXT NOT NULL
                        CHECK (status IN ('pending', 'done', 'nothing', 'held', 'abandoned')),
                    currency TEXT NOT NULL,
                    minorUnits INTEGER NOT NULL CHECK (minorUnits >= 0),
                    goalUid TEXT,
                    goalName TEXT,
                    transferUid TEXT UNIQUE,
                    lastError TEXT,
                    createdAt TEXT NOT NULL,
                    updatedAt TEXT NOT NULL,
                    accountName TEXT,
                    note TEXT,
                    confirmation TEXT CHECK (confirmation IN ('bank', 'feed')),
                    feedItemUid TEXT UNIQUE,
                    reason TEXT,
                    resolution TEXT,
                    earlierGoalUids TEXT,
                    PRIMARY KEY (accountUid, weekEnd)
                );
                INSERT INTO transfer_v4 (accountUid, weekEnd, status, currency, minorUnits, goalUid, goalName,
                                         transferUid, lastError, createdAt, updatedAt, accountName, note,
                                         confirmation)
                    SELECT accountUid, weekEnd, status, currency, minorUnits, goalUid, goalName, transferUid,
                           lastError, createdAt, updatedAt, accountName, note,
                           CASE status WHEN 'done' THEN 'bank' END
                    FROM transfer;
                DROP TABLE transfer;
                ALTER TABLE transfer_v4 RENAME TO transfer;
                """)
    }

    /// v5: requests per UTC day, for the daily allowance.
    private static func countRequests(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE requests (
                    day TEXT PRIMARY KEY,
                    count INTEGER NOT NULL CHECK (count >= 0),
                    lastWeekCost INTEGER CHECK (lastWeekCost >= 0)
                )
                """)
    }

    /// v6: a row per real run.
    private static func recordRuns(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE run (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    startedAt TEXT NOT NULL,
                    endedAt TEXT,
                    exitCode INTEGER,
                    weeks TEXT,
                    accountsDone INTEGER NOT NULL DEFAULT 0,
                    accountsHeld INTEGER NOT NULL DEFAULT 0,
                    accountsFailed INTEGER NOT NULL DEFAULT 0,
                    onlyHeld INTEGER NOT NULL DEFAULT 0,
                    summary TEXT
                )
                """)
    }
}
