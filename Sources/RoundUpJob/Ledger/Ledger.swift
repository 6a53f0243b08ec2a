import Foundation
import GRDB
public import RoundUp

/// Where an (account, week) stands.
public enum LedgerStatus: String, Sendable, Codable {
    /// The transfer was decided and may have been sent; its outcome is not known yet.
    /// The next run sends it again with the same transfer uid and amount.
    case pending
    /// The bank confirmed the transfer.
    case done
    /// There was nothing to move.
    case nothing
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
}

/// The record of what the job decided and did, one row per (account, week), in SQLite in
/// the state directory. It is what makes a transfer happen at most once: the intent is
/// written before the transfer is sent, the outcome after the bank confirms it, and a row
/// is never removed. It holds no secret.
public struct Ledger: Sendable {
    private let database: DatabaseQueue

    /// Where the ledger of `stateDirectory` is.
    public static func path(in stateDirectory: String) -> String { stateDirectory + "/ledger.sqlite" }

    /// Opens (creating if needed) the ledger at `path`.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        try self.init(database: try DatabaseQueue(path: path, configuration: configuration))
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
        try migrator.migrate(database)
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

    /// Every entry, oldest week first.
    public func entries() throws -> [LedgerEntry] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM transfer ORDER BY weekEnd, accountUid").map(Ledger.entry(from:))
        }
    }

    /// Records what was decided for the week: a pending transfer (written before it is
    /// sent) or nothing to move. Fails if the (account, week) already has an entry: a week
    /// is decided once.
    public func recordDecision(_ entry: LedgerEntry, at now: Instant) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO transfer (accountUid, weekEnd, status, currency, minorUnits, goalUid, goalName,
                                          transferUid, lastError, accountName, note, createdAt, updatedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)
                    """,
                arguments: [
                    entry.accountUid, entry.weekEnd.description, entry.status.rawValue, entry.currency,
                    entry.minorUnits, entry.goalUid, entry.goalName, entry.transferUid, entry.accountName,
                    entry.note, now.iso8601, now.iso8601,
                ])
        }
    }

    /// Records that the bank confirmed the pending transfer.
    public func recordDone(accountUid: String, weekEnd: LocalDate, at now: Instant) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    UPDATE transfer SET status = 'done', lastError = NULL, updatedAt = ?
                    WHERE accountUid = ? AND weekEnd = ? AND status = 'pending'
                    """,
                arguments: [now.iso8601, accountUid, weekEnd.description])
        }
    }

    /// Notes why the pending transfer has not been confirmed; it stays pending.
    public func recordFailure(accountUid: String, weekEnd: LocalDate, error: String, at now: Instant) throws {
        try database.write { db in
            try db.execute(
                sql: "UPDATE transfer SET lastError = ?, updatedAt = ? WHERE accountUid = ? AND weekEnd = ?",
                arguments: [String(error.prefix(500)), now.iso8601, accountUid, weekEnd.description])
        }
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
        entry.updatedAt = row["updatedAt"]
        return entry
    }
}

/// The ledger holds something it never writes.
public enum LedgerError: Error, CustomStringConvertible {
    case corrupt(String)

    public var description: String {
        switch self {
        case .corrupt(let what): "the ledger holds an unreadable \(what)"
        }
    }
}
