import GRDB
public import RoundUp

/// A counted payment as the ledger keeps it: its round-up always, and since v13 what the
/// report shows of it.
public struct RecordedPayment: Sendable, Equatable {
    public var feedItemUid: String
    public var roundUpMinorUnits: Int64
    /// Nil for a payment counted before v13.
    public var amountMinorUnits: Int64?
    public var settlementTime: Instant?
    public var counterParty: String?
}

/// The weeks whose report a run has not written: one stopped between recording a week
/// and writing its report (a crash, a kill, a full disk). A later run writes each from the
/// ledger, once. A week owes its report from the moment its decision is recorded, and
/// whenever a run sends its transfer, until the run writes the report.
extension Ledger {
    /// Records that the report of the week ending `weekEnd` was not written, on the
    /// entries the ledger has of it for `accountUids`.
    public func markReportMissing(weekEnd: LocalDate, accountUids: [String]) throws {
        try database.write { db in
            for accountUid in accountUids {
                try db.execute(
                    sql: "UPDATE week SET reportMissing = 1 WHERE accountUid = ? AND weekEnd = ?",
                    arguments: [accountUid, weekEnd.description])
            }
        }
    }

    /// The weeks with a report missing, oldest first.
    public func weeksMissingReports() throws -> [LocalDate] {
        try database.read { db in
            try String.fetchAll(
                db, sql: "SELECT DISTINCT weekEnd FROM week WHERE reportMissing = 1 ORDER BY weekEnd"
            ).compactMap { LocalDate(iso: $0) }
        }
    }

    /// Records that the week's report has been written: for `accountUids`, or for every
    /// account when nil.
    public func clearReportMissing(weekEnd: LocalDate, accountUids: [String]? = nil) throws {
        try database.write { db in
            guard let accountUids else {
                try db.execute(
                    sql: "UPDATE week SET reportMissing = 0 WHERE weekEnd = ?", arguments: [weekEnd.description])
                return
            }
            for accountUid in accountUids {
                try db.execute(
                    sql: "UPDATE week SET reportMissing = 0 WHERE accountUid = ? AND weekEnd = ?",
                    arguments: [accountUid, weekEnd.description])
            }
        }
    }

    /// The payments `accountUid`'s week ending `weekEnd` counted, in the order they settled.
    public func recordedPayments(accountUid: String, weekEnd: LocalDate) throws -> [RecordedPayment] {
        try database.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT feedItemUid, roundUp, amount, settlementTime, counterParty FROM payment
                    WHERE accountUid = ? AND weekEnd = ? ORDER BY settlementTime, feedItemUid
                    """,
                arguments: [accountUid, weekEnd.description])
            return try rows.map { row in
                let read = LedgerRow(row: row, table: "payment")
                return RecordedPayment(
                    feedItemUid: try read.requiredText(Column("feedItemUid")),
                    roundUpMinorUnits: try read.requiredInteger(Column("roundUp")),
                    amountMinorUnits: try read.integer(Column("amount")),
                    settlementTime: try read.integer(Column("settlementTime")).map {
                        Instant(millisecondsSince1970: $0)
                    },
                    counterParty: try read.text(Column("counterParty")))
            }
        }
    }
}
