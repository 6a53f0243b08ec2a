import Foundation
import GRDB
public import RoundUp

/// Where an (account, week) stands.
public enum LedgerStatus: String, Sendable, Codable, CaseIterable {
    /// The transfer was decided and may have been sent; its outcome is not known yet.
    /// The next run looks for it in the account's feed, and sends it again with the same
    /// transfer uid and amount only when it is not there.
    case pending
    /// The money arrived: the bank confirmed the transfer, or the feed shows it.
    case done
    /// There was nothing to move.
    case nothing
    /// The job cannot tell what to do without a person (`roundup resolve`); runs leave it be.
    case held
    /// A person decided that this week's money is not to be moved.
    case abandoned
}

/// How a week's arrival was established.
public enum Confirmation: String, Sendable, Codable {
    /// The bank answered the transfer with success.
    case bank
    /// The account's feed shows the transfer (`feedItemUid`).
    case feed
}

/// One (account, week) in the ledger.
public struct LedgerEntry: Sendable, Equatable {
    public var accountUid: String
    public var weekEnd: LocalDate
    public var status: LedgerStatus
    public var currency: String
    public var minorUnits: Int64
    public var goalUid: String?
    public var goalName: String?
    public var transferUid: String?
    /// The last thing that went wrong with a pending transfer.
    public var lastError: String?
    /// The account's name when the week was decided, for people reading the history.
    public var accountName: String?
    /// Why less than the week's round-up was moved (a minimum balance held it back).
    public var note: String?
    /// How a done week's arrival was established.
    public var confirmation: Confirmation?
    /// The feed item that shows this week's transfer; one item confirms one week.
    public var feedItemUid: String?
    /// Why the week is held for a person, or why a person abandoned it.
    public var reason: String?
    /// What a person decided with `roundup resolve`, and when.
    public var resolution: String?
    /// Goals an earlier attempt of this week's transfer was sent to, before a person
    /// redirected it: the feed is searched for those too.
    public var earlierGoalUids: [String] = []
    /// When the week was first decided (ISO 8601, UTC); set by the ledger.
    public var createdAt: String?
    /// When the entry last changed (ISO 8601, UTC); set by the ledger.
    public var updatedAt: String?

    public init(
        accountUid: String, weekEnd: LocalDate, status: LedgerStatus, currency: String, minorUnits: Int64,
        goalUid: String? = nil, goalName: String? = nil, transferUid: String? = nil, lastError: String? = nil,
        accountName: String? = nil, note: String? = nil
    ) {
        self.accountUid = accountUid
        self.weekEnd = weekEnd
        self.status = status
        self.currency = currency
        self.minorUnits = minorUnits
        self.goalUid = goalUid
        self.goalName = goalName
        self.transferUid = transferUid
        self.lastError = lastError
        self.accountName = accountName
        self.note = note
    }

    /// Every goal this week's transfer may have gone to.
    public var goalUids: Set<String> { Set(earlierGoalUids + (goalUid.map { [$0] } ?? [])) }

    /// A pending transfer whose last attempt failed: listed by `roundup resolve`.
    public var hasFailed: Bool { status == .pending && lastError != nil }
}

/// The record of what the job decided and did, one row per (account, week), in SQLite in
/// the state directory, and a row per real run. With the account's feed it is what makes a transfer happen at
/// most once: the intent is written before the transfer is sent, the outcome after the
/// bank confirms it or the feed shows it, and a row is never removed. It also counts the
/// requests real runs sent each UTC day, for the daily allowance. It holds no secret.
public struct Ledger: Sendable {
    private let database: DatabaseQueue

    /// Where the ledger of `stateDirectory` is.
    public static func path(in stateDirectory: String) -> String { stateDirectory + "/ledger.sqlite" }

    /// Opens (creating if needed) the ledger at `path`.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        if !FileManager.default.fileExists(atPath: path) {
            // A new ledger is made whole beside its place and then renamed into it, so a run
            // killed while making it leaves no ledger rather than an empty one.
            let partial = path + ".new"
            unlink(partial)
            let fresh = try DatabaseQueue(path: partial, configuration: configuration)
            _ = try Ledger(database: fresh)
            try fresh.close()
            guard rename(partial, path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        }
        try Ledger.refuseIfEmpty(path)
        try self.init(database: try DatabaseQueue(path: path, configuration: configuration))
    }

    /// The ledger at `path` as it is now, for reading only: copied into memory (and brought
    /// up to the current schema there), so that nothing on disk is created, changed or
    /// locked, and a read-only or missing state directory does not matter. No file gives
    /// an empty ledger.
    public static func readOnlyCopy(of path: String) throws -> Ledger {
        let memory = try DatabaseQueue()
        try refuseIfEmpty(path)
        if FileManager.default.fileExists(atPath: path) {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(10)
            let file = try DatabaseQueue(path: path, configuration: configuration)
            try file.backup(to: memory)
            try file.close()
        }
        return try Ledger(database: memory)
    }

    /// A ledger file of zero bytes was cut short or damaged (SQLite would take it for a new,
    /// empty ledger and forget every week): refused like any damaged ledger.
    private static func refuseIfEmpty(_ path: String) throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard size != 0 else {
            throw LedgerError.empty(path)
        }
    }

    private init(database: DatabaseQueue) throws {
        self.database = database
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
        migrator.registerMigration("v4: held weeks and feed confirmations", migrate: Ledger.addHeldWeeks)
        Ledger.registerRequestsAndRuns(&migrator)
        try migrator.migrate(database)
    }

    /// v5: requests per UTC day, for the daily allowance; v6: a row per real run.
    private static func registerRequestsAndRuns(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v5: requests per day") { db in
            try db.execute(
                sql: """
                    CREATE TABLE requests (
                        day TEXT PRIMARY KEY,
                        count INTEGER NOT NULL CHECK (count >= 0),
                        lastWeekCost INTEGER CHECK (lastWeekCost >= 0)
                    )
                    """)
        }
        migrator.registerMigration("v6: runs") { db in
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

    /// The entry for `accountUid`'s week ending `weekEnd`, if any.
    public func entry(accountUid: String, weekEnd: LocalDate) throws -> LedgerEntry? {
        try database.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM transfer WHERE accountUid = ? AND weekEnd = ?",
                arguments: [accountUid, weekEnd.description]
            ).map(Ledger.entry(from:))
        }
    }

    /// Entries of `accountUid` for other weeks that share days with the week ending
    /// `weekEnd` (end dates less than seven days apart).
    public func overlapping(accountUid: String, weekEnd: LocalDate) throws -> [LedgerEntry] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT * FROM transfer WHERE accountUid = ? AND weekEnd > ? AND weekEnd < ? AND weekEnd != ?",
                arguments: [
                    accountUid, weekEnd.adding(days: -7).description, weekEnd.adding(days: 7).description,
                    weekEnd.description,
                ]
            ).map(Ledger.entry(from:))
        }
    }

    /// Returns once no write is under way (a write that starts later waits for nothing).
    public func settle() { try? database.writeWithoutTransaction { _ in } }

    /// Requests real runs with this ledger sent to the bank on `day` (a UTC date).
    public func requests(on day: LocalDate) throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT count FROM requests WHERE day = ?", arguments: [day.description]) ?? 0
        }
    }

    /// What the newest week a real run did cost in requests, if any run has counted one.
    public func lastWeekCost() throws -> Int? {
        try database.read { db in
            try Int.fetchOne(
                db, sql: "SELECT lastWeekCost FROM requests WHERE lastWeekCost IS NOT NULL ORDER BY day DESC LIMIT 1")
        }
    }

    /// Adds `count` requests, the cost of one week, to `day`'s; days more than 31 days
    /// before it are forgotten.
    public func addRequests(_ count: Int, on day: LocalDate) throws {
        guard count > 0 else { return }
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO requests (day, count, lastWeekCost) VALUES (?, ?, ?)
                    ON CONFLICT (day) DO UPDATE SET count = count + excluded.count, lastWeekCost = excluded.lastWeekCost
                    """, arguments: [day.description, count, count])
            try db.execute(sql: "DELETE FROM requests WHERE day < ?", arguments: [day.adding(days: -31).description])
        }
    }

    /// Every entry, oldest week first.
    public func entries() throws -> [LedgerEntry] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM transfer ORDER BY weekEnd, accountUid").map(Ledger.entry(from:))
        }
    }

    /// Every entry of `accountUid`, oldest week first.
    public func entries(accountUid: String) throws -> [LedgerEntry] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM transfer WHERE accountUid = ? ORDER BY weekEnd", arguments: [accountUid]
            ).map(Ledger.entry(from:))
        }
    }

    /// Records what was decided for the week: a pending transfer (written before it is
    /// sent), nothing to move, a transfer found already made, or a week held for a person.
    /// Fails if the (account, week) already has an entry: a week is decided once.
    public func recordDecision(_ entry: LedgerEntry, at now: Instant) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO transfer (accountUid, weekEnd, status, currency, minorUnits, goalUid, goalName,
                                          transferUid, lastError, accountName, note, confirmation, feedItemUid,
                                          reason, createdAt, updatedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    entry.accountUid, entry.weekEnd.description, entry.status.rawValue, entry.currency,
                    entry.minorUnits, entry.goalUid, entry.goalName, entry.transferUid, entry.accountName,
                    entry.note, entry.confirmation?.rawValue, entry.feedItemUid, entry.reason.map(Ledger.clip),
                    now.iso8601, now.iso8601,
                ])
        }
    }

    /// Records that the week's money arrived: the bank confirmed the transfer, or the feed
    /// item `feedItemUid` shows it. Only a pending or held week changes.
    public func recordDone(
        accountUid: String, weekEnd: LocalDate, confirmation: Confirmation = .bank, feedItemUid: String? = nil,
        resolution: String? = nil, at now: Instant
    ) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    UPDATE transfer SET status = 'done', lastError = NULL, reason = NULL, confirmation = ?,
                                        feedItemUid = ?, resolution = COALESCE(?, resolution), updatedAt = ?
                    WHERE accountUid = ? AND weekEnd = ? AND status IN ('pending', 'held')
                    """,
                arguments: [
                    confirmation.rawValue, feedItemUid, resolution, now.iso8601, accountUid, weekEnd.description,
                ])
            try Ledger.expectOneChange(db, "\(accountUid) \(weekEnd)")
        }
    }

    /// Notes why the pending transfer has not been confirmed; it stays pending.
    public func recordFailure(accountUid: String, weekEnd: LocalDate, error: String, at now: Instant) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    UPDATE transfer SET lastError = ?, updatedAt = ?
                    WHERE accountUid = ? AND weekEnd = ? AND status IN ('pending', 'held')
                    """,
                arguments: [Ledger.clip(error), now.iso8601, accountUid, weekEnd.description])
        }
    }

    /// Holds a pending week for a person, saying why; runs leave it be until it is resolved.
    public func recordHeld(accountUid: String, weekEnd: LocalDate, reason: String, at now: Instant) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    UPDATE transfer SET status = 'held', reason = ?, updatedAt = ?
                    WHERE accountUid = ? AND weekEnd = ? AND status IN ('pending', 'held')
                    """,
                arguments: [Ledger.clip(reason), now.iso8601, accountUid, weekEnd.description])
            try Ledger.expectOneChange(db, "\(accountUid) \(weekEnd)")
        }
    }

    /// A person's decision on a held or failed week (`roundup resolve`): send it again,
    /// to the same goal or to another one with a new transfer uid.
    public func recordRetry(
        accountUid: String, weekEnd: LocalDate, goal: (uid: String, name: String, transferUid: String)? = nil,
        resolution: String, at now: Instant
    ) throws {
        try database.write { db in
            let current = try Row.fetchOne(
                db, sql: "SELECT goalUid, earlierGoalUids FROM transfer WHERE accountUid = ? AND weekEnd = ?",
                arguments: [accountUid, weekEnd.description])
            var earlier = Ledger.goalList(current?["earlierGoalUids"])
            if let goal, let old: String = current?["goalUid"], old != goal.uid, !earlier.contains(old) {
                earlier.append(old)
            }
            try db.execute(
                sql: """
                    UPDATE transfer SET status = 'pending', reason = NULL, lastError = NULL, resolution = ?,
                                        goalUid = COALESCE(?, goalUid), goalName = COALESCE(?, goalName),
                                        transferUid = COALESCE(?, transferUid), earlierGoalUids = ?, updatedAt = ?
                    WHERE accountUid = ? AND weekEnd = ? AND status IN ('pending', 'held')
                    """,
                arguments: [
                    Ledger.clip(resolution), goal?.uid, goal?.name, goal?.transferUid,
                    earlier.isEmpty ? nil : earlier.joined(separator: " "), now.iso8601, accountUid,
                    weekEnd.description,
                ])
            try Ledger.expectOneChange(db, "\(accountUid) \(weekEnd)")
        }
    }

    /// A person's decision that a held or failed week's money is not to be moved.
    public func recordAbandoned(accountUid: String, weekEnd: LocalDate, reason: String, at now: Instant) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    UPDATE transfer SET status = 'abandoned', reason = ?, resolution = ?, updatedAt = ?
                    WHERE accountUid = ? AND weekEnd = ? AND status IN ('pending', 'held')
                    """,
                arguments: [
                    Ledger.clip(reason), "abandoned at \(now.iso8601)", now.iso8601, accountUid, weekEnd.description,
                ])
            try Ledger.expectOneChange(db, "\(accountUid) \(weekEnd)")
        }
    }

    private static func clip(_ text: String) -> String { String(text.prefix(500)) }

    /// An update meant for one week that changed none (the week was not in the state the
    /// update expects) is an error, never a silent no-op.
    private static func expectOneChange(_ db: Database, _ week: String) throws {
        guard db.changesCount == 1 else { throw LedgerError.unchanged(week) }
    }

    private static func goalList(_ text: String?) -> [String] {
        (text ?? "").split(separator: " ").map(String.init)
    }

    private static func entry(from row: Row) throws -> LedgerEntry {
        let weekText: String = row["weekEnd"]
        let statusText: String = row["status"]
        guard let weekEnd = LocalDate(iso: weekText), let status = LedgerStatus(rawValue: statusText) else {
            throw LedgerError.corrupt("row for week '\(weekText)' with status '\(statusText)'")
        }
        var entry = LedgerEntry(
            accountUid: row["accountUid"], weekEnd: weekEnd, status: status, currency: row["currency"],
            minorUnits: row["minorUnits"], goalUid: row["goalUid"], goalName: row["goalName"],
            transferUid: row["transferUid"], lastError: row["lastError"], accountName: row["accountName"],
            note: row["note"])
        entry.confirmation = (row["confirmation"] as String?).flatMap(Confirmation.init(rawValue:))
        entry.feedItemUid = row["feedItemUid"]
        entry.reason = row["reason"]
        entry.resolution = row["resolution"]
        entry.earlierGoalUids = goalList(row["earlierGoalUids"])
        entry.createdAt = row["createdAt"]
        entry.updatedAt = row["updatedAt"]
        return entry
    }
}

/// The ledger holds something it never writes.
public enum LedgerError: Error, CustomStringConvertible {
    case corrupt(String)
    /// An update found the week in another state than it expects.
    case unchanged(String)
    /// The ledger file has no bytes at all.
    case empty(String)

    public var description: String {
        switch self {
        case .corrupt(let what): "the ledger holds an unreadable \(what)"
        case .unchanged(let week): "the ledger's entry for \(week) is not in the state this change expects"
        case .empty(let path):
            "the ledger \(path) is empty (0 bytes): it was cut short or damaged; restore it from a backup, or move "
                + "it aside to start a new one"
        }
    }
}

/// One real run as the ledger keeps it: when, how it ended, and what became of its
/// account-weeks. A run still under way, or killed, has no end.
public struct RunRecord: Sendable, Equatable {
    public var id: Int64
    public var startedAt: Instant
    public var endedAt: Instant?
    public var exitCode: Int32?
    /// The weeks it covered, as their end dates: `2026-11-15`, or `2026-11-01 – 2026-11-15`.
    public var weeks: String?
    public var accountsDone: Int
    public var accountsHeld: Int
    public var accountsFailed: Int
    /// One line, for people and monitors: no token, account uid or balance.
    public var summary: String?
    /// It ended 78 only because weeks wait for a person (`roundup resolve`).
    public var onlyHeld = false

    public init(
        id: Int64, startedAt: Instant, endedAt: Instant?, exitCode: Int32?, weeks: String?, accountsDone: Int,
        accountsHeld: Int, accountsFailed: Int, summary: String?
    ) {
        self.id = id
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.exitCode = exitCode
        self.weeks = weeks
        self.accountsDone = accountsDone
        self.accountsHeld = accountsHeld
        self.accountsFailed = accountsFailed
        self.summary = summary
    }

}

extension Ledger {
    /// Records that a real run has begun; returns its id for `finishRun`.
    public func startRun(at now: Instant) throws -> Int64 {
        try database.write { db in
            try db.execute(sql: "INSERT INTO run (startedAt) VALUES (?)", arguments: [now.iso8601])
            return db.lastInsertedRowID
        }
    }

    /// Records how run `id` ended.
    public func finishRun(_ record: RunRecord) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    UPDATE run SET endedAt = ?, exitCode = ?, weeks = ?, accountsDone = ?, accountsHeld = ?,
                        accountsFailed = ?, summary = ?, onlyHeld = ?
                    WHERE id = ?
                    """,
                arguments: [
                    record.endedAt?.iso8601, record.exitCode.map { Int($0) }, record.weeks, record.accountsDone,
                    record.accountsHeld, record.accountsFailed, record.summary.map { String($0.prefix(500)) },
                    record.onlyHeld, record.id,
                ])
        }
    }

    /// The newest `limit` runs, newest first.
    public func runs(limit: Int = 20) throws -> [RunRecord] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM run ORDER BY id DESC LIMIT ?", arguments: [limit])
                .map(Ledger.run(from:))
        }
    }

    /// The newest run that ended with exit 0.
    public func lastSuccessfulRun() throws -> RunRecord? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM run WHERE exitCode = 0 ORDER BY id DESC LIMIT 1")
                .map(Ledger.run(from:))
        }
    }

    private static func run(from row: Row) throws -> RunRecord {
        func instant(_ column: String) throws -> Instant? {
            guard let text: String = row[column] else { return nil }
            guard let value = Instant(iso8601: text) else { throw LedgerError.corrupt("run.\(column) '\(text)'") }
            return value
        }
        guard let started = try instant("startedAt") else { throw LedgerError.corrupt("run.startedAt") }
        var record = RunRecord(
            id: row["id"], startedAt: started, endedAt: try instant("endedAt"),
            exitCode: (row["exitCode"] as Int?).map(Int32.init), weeks: row["weeks"], accountsDone: row["accountsDone"],
            accountsHeld: row["accountsHeld"], accountsFailed: row["accountsFailed"], summary: row["summary"])
        record.onlyHeld = row["onlyHeld"]
        return record
    }
}
