import GRDB
public import RoundUp

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
                    record.accountsHeld, record.accountsFailed, record.summary.map(Ledger.clip),
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
