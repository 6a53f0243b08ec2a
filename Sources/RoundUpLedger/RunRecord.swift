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

    /// Whether it covered the week ending `weekEnd`.
    public func covers(_ weekEnd: LocalDate) -> Bool {
        let ends = (weeks ?? "").components(separatedBy: " – ").compactMap { LocalDate(iso: $0) }
        guard let first = ends.first, let last = ends.last else { return false }
        return first <= weekEnd && weekEnd <= last
    }
    public var accountsDone: Int
    public var accountsHeld: Int
    /// Account-weeks that did not finish: failed, or left unconfirmed (the summary tells
    /// the two apart).
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

/// A run as a row of the ledger's `run` table, its times in ISO 8601 text. The row is begun
/// with only its start (`startRun`) and completed when the run ends (`finishRun`), so it is
/// read as a record and written column by column.
struct RunRow: FetchableRecord, TableRecord {
    static let databaseTableName = "run"

    /// The table's columns, named as the `RunRecord` properties they hold.
    enum Columns: String, ColumnExpression {
        case id, startedAt, endedAt, exitCode, weeks, accountsDone, accountsHeld, accountsFailed, onlyHeld, summary
    }

    var run: RunRecord

    init(row: Row) throws {
        let read = LedgerRow(row: row, table: RunRow.databaseTableName)
        run = RunRecord(
            id: try read.requiredInteger(Columns.id),
            startedAt: try read.required(Columns.startedAt, Instant.init(iso8601:)),
            endedAt: try read.parsed(Columns.endedAt, Instant.init(iso8601:)),
            exitCode: try read.int32(Columns.exitCode),
            weeks: try read.text(Columns.weeks), accountsDone: try read.count(Columns.accountsDone),
            accountsHeld: try read.count(Columns.accountsHeld), accountsFailed: try read.count(Columns.accountsFailed),
            summary: try read.text(Columns.summary))
        run.onlyHeld = try read.flag(Columns.onlyHeld)
    }
}

extension Ledger {
    private typealias Columns = RunRow.Columns

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
            _ = try RunRow.filter(Columns.id == record.id).updateAll(
                db,
                [
                    Columns.endedAt.set(to: record.endedAt?.iso8601),
                    Columns.exitCode.set(to: record.exitCode.map { Int($0) }), Columns.weeks.set(to: record.weeks),
                    Columns.accountsDone.set(to: record.accountsDone),
                    Columns.accountsHeld.set(to: record.accountsHeld),
                    Columns.accountsFailed.set(to: record.accountsFailed),
                    Columns.summary.set(to: record.summary.map(Ledger.clip)), Columns.onlyHeld.set(to: record.onlyHeld),
                ])
        }
    }

    /// The newest `limit` runs, newest first.
    public func runs(limit: Int = 20) throws -> [RunRecord] {
        try database.read { db in try RunRow.order(Columns.id.desc).limit(limit).fetchAll(db).map(\.run) }
    }

    /// The newest run that ended with exit 0.
    public func lastSuccessfulRun() throws -> RunRecord? {
        try database.read { db in
            try RunRow.filter(Columns.exitCode == 0).order(Columns.id.desc).fetchOne(db)?.run
        }
    }
}
