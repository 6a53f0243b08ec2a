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

/// The weeks whose report a run could not write (a full disk), which a later run writes
/// from the ledger, once.
extension Ledger {
    /// Records that the report of the week ending `weekEnd` was not written, on the
    /// entries the ledger has of it for `accountUids`.
    public func markReportMissing(weekEnd: LocalDate, accountUids: [String]) throws {
        try database.write { db in
            for accountUid in accountUids {
                try db.execute(
                    sql: "UPDATE transfer SET reportMissing = 1 WHERE accountUid = ? AND weekEnd = ?",
                    arguments: [accountUid, weekEnd.description])
            }
        }
    }

    /// The weeks with a report missing, oldest first.
    public func weeksMissingReports() throws -> [LocalDate] {
        try database.read { db in
            try String.fetchAll(
                db, sql: "SELECT DISTINCT weekEnd FROM transfer WHERE reportMissing = 1 ORDER BY weekEnd"
            ).compactMap { LocalDate(iso: $0) }
        }
    }

    /// Records that the week's report has been written.
    public func clearReportMissing(weekEnd: LocalDate) throws {
        try database.write { db in
            try db.execute(
                sql: "UPDATE transfer SET reportMissing = 0 WHERE weekEnd = ?", arguments: [weekEnd.description])
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
