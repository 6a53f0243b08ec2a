import GRDB
import RoundUp
import RoundUpVocabulary

/// A week entry as a row of the ledger's `transfer` table, which keeps the name it had when
/// every week was a transfer. Every column is text a person can read with `sqlite3`: the
/// week as `YYYY-MM-DD`, the status and confirmation by name, the earlier goals separated
/// by spaces, the times in ISO 8601. The record is a type of the ledger's own, not a
/// conformance of `LedgerEntry`, so that GRDB stays out of the module's public interface.
struct TransferRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "transfer"

    /// The table's columns, named as the `LedgerEntry` properties they hold.
    enum Columns: String, ColumnExpression {
        case accountUid, weekEnd, status, currency, minorUnits, goalUid, goalName, transferUid, lastError
        case accountName, note, confirmation, feedItemUid, reason, resolution, earlierGoalUids
        case createdAt, updatedAt, reference, startsAt, endsAt, timeZone, otherWeekEnd, sharedMinorUnits
        case forecastThrough, forecastPayday, forecastPayments, forecastDue, forecastLowPoint
        case firstSentAt, lastSentAt, sends, confirmedAt, lastSentOn, goalGrew, reportMissing
    }

    var entry: LedgerEntry

    init(_ entry: LedgerEntry) { self.entry = entry }

    /// A row whose week or status this code never writes, or with a value of the wrong
    /// type, is corrupt: refused, naming the column and the value, rather than read as
    /// some other week or state.
    init(row: Row) throws {
        let read = LedgerRow(row: row, table: TransferRow.databaseTableName)
        entry = LedgerEntry(
            accountUid: Uid.canonical(try read.requiredText(Columns.accountUid)),
            weekEnd: try read.required(Columns.weekEnd, LocalDate.init(iso:)),
            status: try read.required(Columns.status, WeekState.init(rawValue:)),
            currency: try read.requiredText(Columns.currency), minorUnits: try read.requiredInteger(Columns.minorUnits),
            goalUid: Uid.canonical(try read.text(Columns.goalUid)), goalName: try read.text(Columns.goalName),
            transferUid: try read.text(Columns.transferUid), lastError: try read.text(Columns.lastError),
            accountName: try read.text(Columns.accountName), note: try read.text(Columns.note))
        entry.confirmation = try read.parsed(Columns.confirmation, Confirmation.init(rawValue:))
        entry.feedItemUid = try read.text(Columns.feedItemUid)
        entry.reason = try read.text(Columns.reason)
        entry.resolution = try read.text(Columns.resolution)
        entry.earlierGoalUids = TransferRow.goalList(try read.text(Columns.earlierGoalUids))
        entry.reference = try read.text(Columns.reference)
        entry.startsAt = try read.parsed(Columns.startsAt) { Instant(iso8601: $0) }
        entry.endsAt = try read.parsed(Columns.endsAt) { Instant(iso8601: $0) }
        entry.timeZone = try read.text(Columns.timeZone)
        entry.otherWeekEnd = try read.parsed(Columns.otherWeekEnd, LocalDate.init(iso:))
        entry.sharedMinorUnits = try read.integer(Columns.sharedMinorUnits)
        if let through = try read.parsed(Columns.forecastThrough, LocalDate.init(iso:)) {
            entry.forecast = ForecastSummary(
                through: through, payday: try read.parsed(Columns.forecastPayday, LocalDate.init(iso:)),
                payments: Int(try read.integer(Columns.forecastPayments) ?? 0),
                dueMinorUnits: try read.integer(Columns.forecastDue) ?? 0,
                lowPointMinorUnits: try read.integer(Columns.forecastLowPoint))
        }
        entry.firstSentAt = try read.parsed(Columns.firstSentAt) { Instant(iso8601: $0) }
        entry.lastSentAt = try read.parsed(Columns.lastSentAt) { Instant(iso8601: $0) }
        entry.sends = try read.count(Columns.sends)
        entry.confirmedAt = try read.parsed(Columns.confirmedAt) { Instant(iso8601: $0) }
        entry.lastSentOn = try read.parsed(Columns.lastSentOn) { Instant(iso8601: $0) }
        entry.goalGrew = try read.flag(Columns.goalGrew)
        // Kept as written, once they read as instants: a feed search starts from when the
        // intent was recorded, so a time that is not one must never be taken for "now".
        entry.createdAt = try read.required(Columns.createdAt) { Instant(iso8601: $0) == nil ? nil : $0 }
        entry.updatedAt = try read.required(Columns.updatedAt) { Instant(iso8601: $0) == nil ? nil : $0 }
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.accountUid] = entry.accountUid
        container[Columns.weekEnd] = entry.weekEnd.description
        container[Columns.status] = entry.status.rawValue
        container[Columns.currency] = entry.currency
        container[Columns.minorUnits] = entry.minorUnits
        container[Columns.goalUid] = entry.goalUid
        container[Columns.goalName] = entry.goalName
        container[Columns.transferUid] = entry.transferUid
        container[Columns.lastError] = entry.lastError
        container[Columns.accountName] = entry.accountName
        container[Columns.note] = entry.note
        container[Columns.confirmation] = entry.confirmation?.rawValue
        container[Columns.feedItemUid] = entry.feedItemUid
        container[Columns.reason] = entry.reason
        container[Columns.resolution] = entry.resolution
        container[Columns.earlierGoalUids] = TransferRow.goalText(entry.earlierGoalUids)
        container[Columns.reference] = entry.reference
        container[Columns.startsAt] = entry.startsAt?.iso8601
        container[Columns.endsAt] = entry.endsAt?.iso8601
        container[Columns.timeZone] = entry.timeZone
        container[Columns.otherWeekEnd] = entry.otherWeekEnd?.description
        container[Columns.sharedMinorUnits] = entry.sharedMinorUnits
        container[Columns.forecastThrough] = entry.forecast?.through.description
        container[Columns.forecastPayday] = entry.forecast?.payday?.description
        container[Columns.forecastPayments] = entry.forecast?.payments
        container[Columns.forecastDue] = entry.forecast?.dueMinorUnits
        container[Columns.forecastLowPoint] = entry.forecast?.lowPointMinorUnits
        container[Columns.firstSentAt] = entry.firstSentAt?.iso8601
        container[Columns.lastSentAt] = entry.lastSentAt?.iso8601
        container[Columns.sends] = entry.sends
        container[Columns.confirmedAt] = entry.confirmedAt?.iso8601
        container[Columns.lastSentOn] = entry.lastSentOn?.iso8601
        container[Columns.goalGrew] = entry.goalGrew ? 1 : 0
        container[Columns.createdAt] = entry.createdAt
        container[Columns.updatedAt] = entry.updatedAt
    }

    /// Goal uids as the `earlierGoalUids` column holds them: separated by spaces, NULL for none.
    static func goalText(_ uids: [String]) -> String? { uids.isEmpty ? nil : uids.joined(separator: " ") }

    /// The goal uids in an `earlierGoalUids` column.
    static func goalList(_ text: String?) -> [String] {
        (text ?? "").split(separator: " ").map { Uid.canonical(String($0)) }
    }
}
