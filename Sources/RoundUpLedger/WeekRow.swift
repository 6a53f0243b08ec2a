import GRDB
import RoundUp
import RoundUpVocabulary

/// An account-week's decision as a row of the ledger's `week` table; its transfers are rows
/// of `leg` (`LegRow`). Every column is text a person can read with `sqlite3`: the week as
/// `YYYY-MM-DD`, the status by name, the times in ISO 8601. The records are types of the
/// ledger's own, not conformances of `AccountWeek`, so that GRDB stays out of the module's
/// public interface.
struct WeekRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "week"

    /// The table's columns, named as the `AccountWeek` properties they hold, and whether the
    /// ledger keeps the week's payments one by one (`itemised`) and owes its report
    /// (`reportMissing`).
    enum Columns: String, ColumnExpression {
        case accountUid, weekEnd, status, currency, minorUnits, accountName, note, reason, resolution
        case startsAt, endsAt, timeZone, otherWeekEnd, sharedMinorUnits
        case forecastThrough, forecastPayday, forecastPayments, forecastDue, forecastLowPoint
        case itemised, reportMissing, createdAt, updatedAt
    }

    /// The week, with no legs yet: `Ledger` adds them from their own rows.
    var week: AccountWeek

    init(_ week: AccountWeek) { self.week = week }

    /// A row whose week or status this code never writes, or with a value of the wrong
    /// type, is corrupt: refused, naming the column and the value, rather than read as
    /// some other week or state.
    init(row: Row) throws {
        let read = LedgerRow(row: row, table: WeekRow.databaseTableName)
        week = AccountWeek(
            accountUid: Uid.canonical(try read.requiredText(Columns.accountUid)),
            weekEnd: try read.required(Columns.weekEnd, LocalDate.init(iso:)),
            status: try read.required(Columns.status, WeekState.init(rawValue:)),
            currency: try read.requiredText(Columns.currency), minorUnits: try read.requiredInteger(Columns.minorUnits),
            accountName: try read.text(Columns.accountName), note: try read.text(Columns.note))
        week.legs = []
        week.reason = try read.text(Columns.reason)
        week.resolution = try read.text(Columns.resolution)
        week.startsAt = try read.parsed(Columns.startsAt) { Instant(iso8601: $0) }
        week.endsAt = try read.parsed(Columns.endsAt) { Instant(iso8601: $0) }
        week.timeZone = try read.text(Columns.timeZone)
        week.otherWeekEnd = try read.parsed(Columns.otherWeekEnd, LocalDate.init(iso:))
        week.sharedMinorUnits = try read.integer(Columns.sharedMinorUnits)
        if let through = try read.parsed(Columns.forecastThrough, LocalDate.init(iso:)) {
            week.forecast = ForecastSummary(
                through: through, payday: try read.parsed(Columns.forecastPayday, LocalDate.init(iso:)),
                payments: Int(try read.integer(Columns.forecastPayments) ?? 0),
                dueMinorUnits: try read.integer(Columns.forecastDue) ?? 0,
                lowPointMinorUnits: try read.integer(Columns.forecastLowPoint))
        }
        // Kept as written, once they read as instants: a feed search starts from when the
        // intent was recorded, so a time that is not one must never be taken for "now".
        week.createdAt = try read.required(Columns.createdAt) { Instant(iso8601: $0) == nil ? nil : $0 }
        week.updatedAt = try read.required(Columns.updatedAt) { Instant(iso8601: $0) == nil ? nil : $0 }
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.accountUid] = week.accountUid
        container[Columns.weekEnd] = week.weekEnd.description
        container[Columns.status] = week.status.rawValue
        container[Columns.currency] = week.currency
        container[Columns.minorUnits] = week.minorUnits
        container[Columns.accountName] = week.accountName
        container[Columns.note] = week.note
        container[Columns.reason] = week.reason
        container[Columns.resolution] = week.resolution
        container[Columns.startsAt] = week.startsAt?.iso8601
        container[Columns.endsAt] = week.endsAt?.iso8601
        container[Columns.timeZone] = week.timeZone
        container[Columns.otherWeekEnd] = week.otherWeekEnd?.description
        container[Columns.sharedMinorUnits] = week.sharedMinorUnits
        container[Columns.forecastThrough] = week.forecast?.through.description
        container[Columns.forecastPayday] = week.forecast?.payday?.description
        container[Columns.forecastPayments] = week.forecast?.payments
        container[Columns.forecastDue] = week.forecast?.dueMinorUnits
        container[Columns.forecastLowPoint] = week.forecast?.lowPointMinorUnits
        container[Columns.createdAt] = week.createdAt
        container[Columns.updatedAt] = week.updatedAt
    }
}

/// One transfer of an account-week as a row of the ledger's `leg` table, kept under
/// (account, week, index): the goal, the amount, the transfer uid, and what became of it.
/// The earlier goals are separated by spaces, NULL for none.
struct LegRow: FetchableRecord, PersistableRecord {
    static let databaseTableName = "leg"

    /// The table's columns, named as the `TransferLeg` properties they hold; `leg` is its index.
    enum Columns: String, ColumnExpression {
        case accountUid, weekEnd, leg, status, goalUid, goalName, minorUnits, transferUid, reference
        case earlierGoalUids, lastError, confirmation, feedItemUid
        case firstSentAt, lastSentAt, sends, lastSentOn, confirmedAt, goalGrew
    }

    var key: AccountWeekKey
    var leg: TransferLeg

    init(_ leg: TransferLeg, of key: AccountWeekKey) {
        self.key = key
        self.leg = leg
    }

    init(row: Row) throws {
        let read = LedgerRow(row: row, table: LegRow.databaseTableName)
        key = AccountWeekKey(
            accountUid: Uid.canonical(try read.requiredText(Columns.accountUid)),
            weekEnd: try read.required(Columns.weekEnd, LocalDate.init(iso:)))
        leg = TransferLeg(
            index: try read.count(Columns.leg), status: try read.required(Columns.status, WeekState.init(rawValue:)),
            minorUnits: try read.requiredInteger(Columns.minorUnits))
        leg.goalUid = Uid.canonical(try read.text(Columns.goalUid))
        leg.goalName = try read.text(Columns.goalName)
        leg.transferUid = try read.text(Columns.transferUid)
        leg.reference = try read.text(Columns.reference)
        leg.earlierGoalUids = LegRow.goalList(try read.text(Columns.earlierGoalUids))
        leg.lastError = try read.text(Columns.lastError)
        leg.confirmation = try read.parsed(Columns.confirmation, Confirmation.init(rawValue:))
        leg.feedItemUid = try read.text(Columns.feedItemUid)
        leg.firstSentAt = try read.parsed(Columns.firstSentAt) { Instant(iso8601: $0) }
        leg.lastSentAt = try read.parsed(Columns.lastSentAt) { Instant(iso8601: $0) }
        leg.sends = try read.count(Columns.sends)
        leg.lastSentOn = try read.parsed(Columns.lastSentOn) { Instant(iso8601: $0) }
        leg.confirmedAt = try read.parsed(Columns.confirmedAt) { Instant(iso8601: $0) }
        leg.goalGrew = try read.flag(Columns.goalGrew)
    }

    func encode(to container: inout PersistenceContainer) {
        container[Columns.accountUid] = key.accountUid
        container[Columns.weekEnd] = key.weekEnd.description
        container[Columns.leg] = leg.index
        container[Columns.status] = leg.status.rawValue
        container[Columns.goalUid] = leg.goalUid
        container[Columns.goalName] = leg.goalName
        container[Columns.minorUnits] = leg.minorUnits
        container[Columns.transferUid] = leg.transferUid
        container[Columns.reference] = leg.reference
        container[Columns.earlierGoalUids] = LegRow.goalText(leg.earlierGoalUids)
        container[Columns.lastError] = leg.lastError
        container[Columns.confirmation] = leg.confirmation?.rawValue
        container[Columns.feedItemUid] = leg.feedItemUid
        container[Columns.firstSentAt] = leg.firstSentAt?.iso8601
        container[Columns.lastSentAt] = leg.lastSentAt?.iso8601
        container[Columns.sends] = leg.sends
        container[Columns.lastSentOn] = leg.lastSentOn?.iso8601
        container[Columns.confirmedAt] = leg.confirmedAt?.iso8601
        container[Columns.goalGrew] = leg.goalGrew ? 1 : 0
    }

    /// Goal uids as the `earlierGoalUids` column holds them: separated by spaces, NULL for none.
    static func goalText(_ uids: [String]) -> String? { uids.isEmpty ? nil : uids.joined(separator: " ") }

    /// The goal uids in an `earlierGoalUids` column.
    static func goalList(_ text: String?) -> [String] {
        (text ?? "").split(separator: " ").map { Uid.canonical(String($0)) }
    }
}
