public import Foundation
import GRDB
public import RoundUp
public import RoundUpVocabulary

/// The week entries: what was decided for each (account, week), and how it ended. An entry
/// is written once, when the week is decided, and from then on only moves between states
/// by the updates below, each of which changes nothing unless the week is pending or held.
extension Ledger {
    private typealias Columns = TransferRow.Columns

    /// The entry for `accountUid`'s week ending `weekEnd`, if any.
    public func entry(accountUid: String, weekEnd: LocalDate) throws -> LedgerEntry? {
        try database.read { db in try Ledger.week(accountUid, weekEnd).fetchOne(db)?.entry }
    }

    /// How many days either side of a week's end a week that could share instants with it,
    /// end where it begins, or leave a gap it reaches back over (`WeekWindow`) may end: a
    /// week is seven days, and reaches back at most 13 days before its end.
    package static let neighbourDays = 14

    /// `accountUid`'s weeks other than the one ending `weekEnd` that could share instants
    /// with it, end where it begins, or end in the gap before it (end dates up to
    /// `neighbourDays` either side), with their bounds (those of seven days in `zone` for a
    /// week recorded without them) and whether the ledger kept their payments.
    public func neighbours(accountUid: String, weekEnd: LocalDate, zone: TimeZone) throws -> [CountedSpan] {
        let rows = try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM transfer
                    WHERE accountUid = ? AND weekEnd != ? AND weekEnd >= ? AND weekEnd <= ?
                    """,
                arguments: [
                    accountUid, weekEnd.description, weekEnd.adding(days: -Ledger.neighbourDays).description,
                    weekEnd.adding(days: Ledger.neighbourDays).description,
                ])
        }
        return try rows.map { row in
            let entry = try TransferRow(row: row).entry
            let local = Week(endingOn: entry.weekEnd, in: zone)
            return CountedSpan(
                weekEnd: entry.weekEnd, start: entry.startsAt ?? local.start, end: entry.endsAt ?? local.end,
                timeZone: entry.timeZone, itemised: row["itemised"] == true)
        }
    }

    /// Every entry, oldest week first.
    public func entries() throws -> [LedgerEntry] {
        try database.read { db in try TransferRow.order(Columns.weekEnd, Columns.accountUid).fetchAll(db).map(\.entry) }
    }

    /// Every entry of `accountUid`, oldest week first.
    public func entries(accountUid: String) throws -> [LedgerEntry] {
        try database.read { db in
            try TransferRow.filter(Columns.accountUid == accountUid).order(Columns.weekEnd).fetchAll(db).map(\.entry)
        }
    }

    /// Records what was decided for the week: a pending transfer (written before it is
    /// sent), nothing to move, a transfer found already made, or a week held for a person;
    /// and, in the same transaction, the payments it `counted` (feed item uid and round-up
    /// in minor units), which no other week counts again, whatever becomes of this one. The
    /// week is marked as one whose payments are known one by one (`CountedSpan.itemised`),
    /// even when it counted none, and as owing its report until the run writes it: a run
    /// stopped before then leaves that to the next one (`weeksMissingReports`).
    /// Fails if the (account, week) already has an entry: a week is decided once.
    public func recordDecision(
        _ entry: LedgerEntry, counting counted: [CountedTransaction] = [], at now: Instant
    ) throws {
        // A new week has no history yet: no failure, no person's decision, no earlier goal.
        var decided = entry
        decided.lastError = nil
        decided.resolution = nil
        decided.earlierGoalUids = []
        decided.reason = entry.reason.map(Ledger.clip)
        decided.createdAt = now.iso8601
        decided.updatedAt = now.iso8601
        try database.write { db in
            try TransferRow(decided).insert(db)
            let week = entry.weekEnd.description
            try db.execute(
                sql: "UPDATE transfer SET itemised = 1, reportMissing = 1 WHERE accountUid = ? AND weekEnd = ?",
                arguments: [entry.accountUid, week])
            // A hundred rows a statement: a busy week writes its payments in a thousand.
            let rows = 100
            var start = counted.startIndex
            while start < counted.endIndex {
                let part = counted[start..<min(start + rows, counted.endIndex)]
                let values = Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: part.count).joined(separator: ", ")
                var arguments: [(any DatabaseValueConvertible)?] = []
                arguments.reserveCapacity(part.count * 7)
                for payment in part {
                    arguments += [
                        entry.accountUid, payment.uid, week, payment.roundUp.minorUnits, payment.amount.minorUnits,
                        // In milliseconds: formatting the time of each of a busy week's payments as text cost more.
                        payment.settlementTime?.millisecondsSince1970,
                        payment.counterPartyName.map { $0.utf8.count > 1000 ? Ledger.clip($0) : $0 },
                    ]
                }
                let insert = try db.cachedStatement(
                    sql: """
                        INSERT OR IGNORE INTO payment
                        (accountUid, feedItemUid, weekEnd, roundUp, amount, settlementTime, counterParty) VALUES \(values)
                        """)
                try insert.execute(arguments: StatementArguments(arguments))
                start = part.endIndex
            }
        }
    }

    /// Those of `uids` (payment identities, `Uid.identity`) that any of `accountUid`'s
    /// weeks other than the one ending `weekEnd` counted, however long ago and whatever
    /// its window: a payment is counted once, ever. One indexed lookup per thousand uids.
    public func countedElsewhere(accountUid: String, weekEnd: LocalDate, among uids: [String]) throws -> Set<String> {
        var counted = Set<String>()
        let chunk = 1000
        try database.read { db in
            for start in stride(from: 0, to: uids.count, by: chunk) {
                let part = uids[start..<min(start + chunk, uids.count)]
                let marks = Array(repeating: "?", count: part.count).joined(separator: ", ")
                let found = try String.fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT feedItemUid FROM payment
                        WHERE accountUid = ? AND weekEnd != ? AND feedItemUid IN (\(marks))
                        """,
                    arguments: StatementArguments([accountUid, weekEnd.description] + Array(part)))
                counted.formUnion(found)
            }
        }
        return counted
    }

    /// The payments the ledger has for `accountUid`'s week ending `weekEnd`: each identity
    /// with its round-up in minor units.
    package func payments(accountUid: String, weekEnd: LocalDate) throws -> [String: Int64] {
        try database.read { db in
            var payments: [String: Int64] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT feedItemUid, roundUp FROM payment WHERE accountUid = ? AND weekEnd = ?",
                arguments: [accountUid, weekEnd.description])
            while let row = try rows.next() {
                let read = LedgerRow(row: row, table: "payment")
                payments[try read.requiredText(Column("feedItemUid"))] = try read.requiredInteger(Column("roundUp"))
            }
            return payments
        }
    }

    /// Records that the week's money arrived: the bank confirmed the transfer (at
    /// `confirmedAt` on its clock), or the feed item `feedItemUid` shows it. Only a pending
    /// or held week changes.
    public func recordDone(
        accountUid: String, weekEnd: LocalDate, confirmation: Confirmation = .bank, feedItemUid: String? = nil,
        confirmedAt: Instant? = nil, resolution: String? = nil, at now: Instant
    ) throws {
        var changes = [
            Columns.status.set(to: WeekState.done.rawValue), Columns.lastError.set(to: nil),
            Columns.reason.set(to: nil), Columns.confirmation.set(to: confirmation.rawValue),
            Columns.feedItemUid.set(to: feedItemUid), Columns.updatedAt.set(to: now.iso8601),
            Columns.confirmedAt.set(to: confirmedAt?.iso8601),
        ]
        // A week confirmed by a run keeps what a person decided about it earlier.
        if let resolution { changes.append(Columns.resolution.set(to: resolution)) }
        try change(accountUid, weekEnd, changes)
    }

    /// Records that the pending week's transfer is about to be sent, at `bankTime` on the
    /// bank's clock: before the request goes out, so that a send is never made unrecorded.
    /// A run's send leaves the week owing a report until the run writes it (`owesReport`);
    /// a person's `resolve` says what it did itself.
    public func recordSend(
        accountUid: String, weekEnd: LocalDate, bankTime: Instant, owesReport: Bool = true, at now: Instant
    ) throws {
        var changes = [
            Columns.sends.set(to: Columns.sends + 1),
            Columns.firstSentAt.set(to: Columns.firstSentAt ?? bankTime.iso8601),
            Columns.lastSentAt.set(to: bankTime.iso8601), Columns.lastSentOn.set(to: now.iso8601),
            Columns.updatedAt.set(to: now.iso8601),
        ]
        if owesReport { changes.append(Columns.reportMissing.set(to: 1)) }
        try database.write { db in
            try Ledger.expectOneChange(
                try Ledger.week(accountUid, weekEnd).filter(Columns.status == WeekState.pending.rawValue).updateAll(
                    db, changes), "\(accountUid) \(weekEnd)")
        }
    }

    /// Records that the bank refused the week's latest send (a 4xx, no connection made): it
    /// moved nothing, so it counts as no send, and the send before it (`previous`, on the
    /// bank's clock and this machine's; nil for none) is the last one again: a later run
    /// waits for the feed to show that one, if any.
    public func recordSendRefused(
        accountUid: String, weekEnd: LocalDate, previous: (bank: Instant?, local: Instant?), at now: Instant
    ) throws {
        try database.write { db in
            _ = try Ledger.week(accountUid, weekEnd).filter(Columns.sends > 0).updateAll(
                db,
                [
                    Columns.sends.set(to: Columns.sends - 1), Columns.lastSentAt.set(to: previous.bank?.iso8601),
                    Columns.lastSentOn.set(to: previous.local?.iso8601), Columns.updatedAt.set(to: now.iso8601),
                ])
        }
    }

    /// Records that the goal's total grew by the week's amount after a send the feed did
    /// not show: the money moved, and no run sends the week again.
    public func recordGoalGrew(accountUid: String, weekEnd: LocalDate, at now: Instant) throws {
        try change(accountUid, weekEnd, [Columns.goalGrew.set(to: 1), Columns.updatedAt.set(to: now.iso8601)])
    }

    /// Records that the feed item `feedItemUid` is the transfer of the done week, which the
    /// bank confirmed without naming one. False, and nothing changes, when the week already
    /// has its item, is not done, or another week has claimed that item: an item confirms
    /// one week, once.
    @discardableResult
    public func recordClaim(accountUid: String, weekEnd: LocalDate, feedItemUid: String) throws -> Bool {
        try database.write { db in
            guard try TransferRow.filter(Columns.feedItemUid == feedItemUid).fetchCount(db) == 0 else { return false }
            // The week's own times stay as they were: its confirmation is when it was done.
            return try Ledger.week(accountUid, weekEnd).filter(
                Columns.status == WeekState.done.rawValue && Columns.feedItemUid == nil
            ).updateAll(db, [Columns.feedItemUid.set(to: feedItemUid)]) == 1
        }
    }

    /// Notes why the pending transfer has not been confirmed; it stays pending.
    public func recordFailure(accountUid: String, weekEnd: LocalDate, error: String, at now: Instant) throws {
        try database.write { db in
            _ = try Ledger.undecided(accountUid, weekEnd).updateAll(
                db, [Columns.lastError.set(to: Ledger.clip(error)), Columns.updatedAt.set(to: now.iso8601)])
        }
    }

    /// Holds a pending week for a person, saying why; runs leave it be until it is resolved.
    /// Over another ledger's transfer, the week it names and how much may be saved twice
    /// are noted too.
    public func recordHeld(
        accountUid: String, weekEnd: LocalDate, reason: String, otherWeekEnd: LocalDate? = nil,
        sharedMinorUnits: Int64? = nil, at now: Instant
    ) throws {
        var changes = [
            Columns.status.set(to: WeekState.held.rawValue), Columns.reason.set(to: Ledger.clip(reason)),
            Columns.updatedAt.set(to: now.iso8601),
        ]
        if let otherWeekEnd {
            changes += [
                Columns.otherWeekEnd.set(to: otherWeekEnd.description),
                Columns.sharedMinorUnits.set(to: sharedMinorUnits),
            ]
        }
        try change(accountUid, weekEnd, changes)
    }

    /// A week whose recorded transfer was to be sent again and no longer fits what the
    /// account can spare: it ends held back, as a week decided without room would. Nothing
    /// moved, its payments stay counted, and `note` says why; its transfer uid and sends are
    /// kept.
    public func recordHeldBack(
        accountUid: String, weekEnd: LocalDate, note: String, forecast: ForecastSummary?, at now: Instant
    ) throws {
        try change(
            accountUid, weekEnd,
            [
                Columns.status.set(to: WeekState.nothing.rawValue), Columns.minorUnits.set(to: 0),
                Columns.note.set(to: Ledger.clip(note)), Columns.reason.set(to: nil),
                Columns.forecastThrough.set(to: forecast?.through.description),
                Columns.forecastPayday.set(to: forecast?.payday?.description),
                Columns.forecastPayments.set(to: forecast?.payments),
                Columns.forecastDue.set(to: forecast?.dueMinorUnits),
                Columns.forecastLowPoint.set(to: forecast?.lowPointMinorUnits),
                Columns.updatedAt.set(to: now.iso8601),
            ])
    }

    /// A person's decision on a held or failed week (`roundup resolve`): send it again,
    /// to the same goal or to another one with a new transfer uid.
    public func recordRetry(
        accountUid: String, weekEnd: LocalDate, goal: (uid: String, name: String, transferUid: String)? = nil,
        resolution: String, at now: Instant
    ) throws {
        try database.write { db in
            let current = try Row.fetchOne(
                db, Ledger.week(accountUid, weekEnd).select(Columns.goalUid, Columns.earlierGoalUids))
            var earlier = TransferRow.goalList(current?[Columns.earlierGoalUids])
            if let goal, let old: String = current?[Columns.goalUid], old != goal.uid, !earlier.contains(old) {
                earlier.append(old)
            }
            var changes = [
                Columns.status.set(to: WeekState.pending.rawValue), Columns.reason.set(to: nil),
                Columns.lastError.set(to: nil), Columns.resolution.set(to: Ledger.clip(resolution)),
                Columns.earlierGoalUids.set(to: TransferRow.goalText(earlier)),
                Columns.updatedAt.set(to: now.iso8601),
            ]
            if let goal {
                changes += [
                    Columns.goalUid.set(to: goal.uid), Columns.goalName.set(to: goal.name),
                    Columns.transferUid.set(to: goal.transferUid),
                ]
            }
            try Ledger.expectOneChange(
                try Ledger.undecided(accountUid, weekEnd).updateAll(db, changes), "\(accountUid) \(weekEnd)")
        }
    }

    /// A person's decision that a held or failed week's money is not to be moved.
    public func recordAbandoned(accountUid: String, weekEnd: LocalDate, reason: String, at now: Instant) throws {
        try change(
            accountUid, weekEnd,
            [
                Columns.status.set(to: WeekState.abandoned.rawValue), Columns.reason.set(to: Ledger.clip(reason)),
                Columns.resolution.set(to: "abandoned at \(now.iso8601)"), Columns.updatedAt.set(to: now.iso8601),
            ])
    }

    /// Makes `changes` to the week, which must be pending or held.
    private func change(_ accountUid: String, _ weekEnd: LocalDate, _ changes: [ColumnAssignment]) throws {
        try database.write { db in
            try Ledger.expectOneChange(
                try Ledger.undecided(accountUid, weekEnd).updateAll(db, changes), "\(accountUid) \(weekEnd)")
        }
    }

    /// The entry of one (account, week).
    private static func week(_ accountUid: String, _ weekEnd: LocalDate) -> QueryInterfaceRequest<TransferRow> {
        TransferRow.filter(Columns.accountUid == accountUid && Columns.weekEnd == weekEnd.description)
    }

    /// The entry of one (account, week) while its outcome is still open: pending or held.
    private static func undecided(_ accountUid: String, _ weekEnd: LocalDate) -> QueryInterfaceRequest<TransferRow> {
        week(accountUid, weekEnd).filter(
            [WeekState.pending.rawValue, WeekState.held.rawValue].contains(Columns.status))
    }

    /// An update meant for one week that changed none (the week was not in the state the
    /// update expects) is an error, never a silent no-op.
    private static func expectOneChange(_ changed: Int, _ week: String) throws {
        guard changed == 1 else { throw LedgerError.unchanged(week) }
    }
}
