import GRDB
public import RoundUp

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

    /// The payments `accountUid`'s week ending `weekEnd` counted, amounts in `currency`, in
    /// the order they settled: each as the report shows it (`listed`), and the round-ups of
    /// those counted before v13, when the ledger kept only that of a payment (`unlisted`).
    public func recordedPayments(accountUid: String, weekEnd: LocalDate, in currency: Currency) throws -> (
        listed: [CountedTransaction], unlisted: [Money]
    ) {
        try database.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT feedItemUid, roundUp, amount, settlementTime, counterParty FROM payment
                    WHERE accountUid = ? AND weekEnd = ? ORDER BY settlementTime, feedItemUid
                    """,
                arguments: [accountUid, weekEnd.description])
            var listed: [CountedTransaction] = []
            var unlisted: [Money] = []
            for row in rows {
                let read = LedgerRow(row: row, table: "payment")
                let roundUp = Money(minorUnits: try read.requiredInteger(Column("roundUp")), currency: currency)
                guard let amount = try read.integer(Column("amount")) else {
                    unlisted.append(roundUp)
                    continue
                }
                listed.append(
                    CountedTransaction(
                        uid: try read.requiredText(Column("feedItemUid")),
                        settlementTime: try read.integer(Column("settlementTime")).map {
                            Instant(millisecondsSince1970: $0)
                        },
                        counterPartyName: try read.text(Column("counterParty")),
                        amount: Money(minorUnits: amount, currency: currency), roundUp: roundUp))
            }
            return (listed, unlisted)
        }
    }
}
