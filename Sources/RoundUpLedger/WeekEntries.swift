public import Foundation
import GRDB
public import RoundUp
public import RoundUpVocabulary

/// The account-weeks: what was decided for each (account, week), the transfers it moves
/// (its legs), and how they ended. A week is written once, when it is decided, and from
/// then on only moves between states by the updates below, each of which changes nothing
/// unless the week, and the leg it names, are pending or held.
extension Ledger {
    private typealias Columns = WeekRow.Columns
    private typealias LegColumns = LegRow.Columns

    /// `accountUid`'s week ending `weekEnd`, with its legs, if the ledger has it.
    public func accountWeek(accountUid: String, weekEnd: LocalDate) throws -> AccountWeek? {
        try database.read { db in
            let legs = try Ledger.legRows(accountUid, weekEnd).fetchAll(db)
            guard let row = try Ledger.weekRow(accountUid, weekEnd).fetchOne(db) else {
                // A leg without its week is damage, never a week not yet decided.
                if let orphan = legs.first { throw Ledger.orphan(orphan) }
                return nil
            }
            return try Ledger.withLegs([row], legs: legs).first
        }
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
                    SELECT * FROM week
                    WHERE accountUid = ? AND weekEnd != ? AND weekEnd >= ? AND weekEnd <= ?
                    """,
                arguments: [
                    accountUid, weekEnd.description, weekEnd.adding(days: -Ledger.neighbourDays).description,
                    weekEnd.adding(days: Ledger.neighbourDays).description,
                ])
        }
        return try rows.map { row in
            let week = try WeekRow(row: row).week
            let local = Week(endingOn: week.weekEnd, in: zone)
            return CountedSpan(
                weekEnd: week.weekEnd, start: week.startsAt ?? local.start, end: week.endsAt ?? local.end,
                timeZone: week.timeZone, itemised: row["itemised"] == true)
        }
    }

    /// Every account-week with its legs, oldest week first.
    public func accountWeeks() throws -> [AccountWeek] {
        try database.read { db in
            try Ledger.withLegs(
                WeekRow.order(Columns.weekEnd, Columns.accountUid).fetchAll(db), legs: LegRow.fetchAll(db))
        }
    }

    /// Every account-week of `accountUid` with its legs, oldest week first.
    public func accountWeeks(accountUid: String) throws -> [AccountWeek] {
        try database.read { db in
            try Ledger.withLegs(
                WeekRow.filter(Columns.accountUid == accountUid).order(Columns.weekEnd).fetchAll(db),
                legs: LegRow.filter(LegColumns.accountUid == accountUid).fetchAll(db))
        }
    }

    /// The account-weeks that end on one of `ends`, with their legs, oldest week first.
    public func accountWeeks(endingOn ends: Set<LocalDate>) throws -> [AccountWeek] {
        let days = ends.map(\.description)
        return try database.read { db in
            try Ledger.withLegs(
                WeekRow.filter(days.contains(Columns.weekEnd)).order(Columns.weekEnd, Columns.accountUid).fetchAll(db),
                legs: LegRow.filter(days.contains(LegColumns.weekEnd)).fetchAll(db))
        }
    }

    /// `weeks` each with its legs from `legs`, in index order, where `legs` are every leg of
    /// those weeks. What this roundup never writes is the ledger's damage, refused rather
    /// than guessed at: a week without a leg, a leg without its week, and a week whose legs
    /// do not agree with it (`disagreement`).
    private static func withLegs(_ weeks: [WeekRow], legs: [LegRow]) throws -> [AccountWeek] {
        var byWeek: [AccountWeekKey: [TransferLeg]] = [:]
        for row in legs { byWeek[row.key, default: []].append(row.leg) }
        let result = try weeks.map { row in
            var week = row.week
            week.legs = (byWeek.removeValue(forKey: week.key) ?? []).sorted { $0.index < $1.index }
            if let problem = disagreement(week) {
                throw LedgerError.corrupt("week \(week.accountUid) \(week.weekEnd), \(problem)")
            }
            return week
        }
        if let stray = legs.first(where: { byWeek[$0.key] != nil }) { throw orphan(stray) }
        return result
    }

    /// Why `week`'s legs do not agree with it, or nil when they do. This roundup numbers a
    /// week's legs from 0 with no gap, their amounts sum to the week's (a done week's: those
    /// not given up), and the week stands where its legs do: done when each arrived, moved
    /// nothing or was given up after another arrived; nothing when each moved nothing; and
    /// otherwise in the state of its open legs, beside any that arrived.
    static func disagreement(_ week: AccountWeek) -> String? {
        guard !week.legs.isEmpty else { return "which has no leg" }
        guard week.legs.map(\.index) == Array(week.legs.indices) else {
            return
                "which has \(week.legs.count) leg(s), numbered \(week.legs.map { String($0.index) }.joined(separator: ", ")): "
                + "this roundup numbers them from 0"
        }
        let counted = week.status == .done ? week.legs.filter { $0.status != .abandoned } : week.legs
        let sum = counted.reduce(into: Int64(0)) { $0 &+= $1.minorUnits }
        guard sum == week.minorUnits else {
            let legs = week.legs.count == 1 ? "its leg moves" : "its legs move"
            return "which moves \(week.minorUnits) in minor units while \(legs) \(sum)"
        }
        let states = Set(week.legs.map(\.status))
        let agrees =
            switch week.status {
            case .done: states.isSubset(of: [.done, .nothing, .abandoned]) && states.contains(.done)
            case .nothing: states == [.nothing]
            case .pending, .held, .abandoned:
                states.subtracting([.done]) == [week.status]
            }
        guard agrees else {
            let legs = week.legs.map(\.status.rawValue).joined(separator: ", ")
            return week.legs.count == 1
                ? "which is \(week.status.rawValue) while its leg is \(legs)"
                : "which is \(week.status.rawValue) while its legs are \(legs)"
        }
        return nil
    }

    /// The error for a leg whose week the ledger does not have.
    private static func orphan(_ leg: LegRow) -> LedgerError {
        .corrupt("leg \(leg.leg.index) of the week \(leg.key.accountUid) \(leg.key.weekEnd), which has no week row")
    }

    /// Records what was decided for the week, with its legs: a pending transfer (written
    /// before it is sent), nothing to move, a transfer found already made, or a week held
    /// for a person; and, in the same transaction, the payments it `counted` (feed item uid
    /// and round-up in minor units), which no other week counts again, whatever becomes of
    /// this one. The week is marked as one whose payments are known one by one
    /// (`CountedSpan.itemised`), even when it counted none, and as owing its report until
    /// the run writes it: a run stopped before then leaves that to the next one
    /// (`weeksMissingReports`). Fails if the (account, week) already has an entry: a week
    /// is decided once.
    public func recordDecision(
        _ week: AccountWeek, counting counted: [CountedTransaction] = [], at now: Instant
    ) throws {
        // A new week has no history yet: no failure, no person's decision, no earlier goal.
        var decided = week
        decided.resolution = nil
        decided.reason = week.reason.map(Ledger.clip)
        decided.createdAt = now.iso8601
        decided.updatedAt = now.iso8601
        for index in decided.legs.indices {
            decided.legs[index].lastError = nil
            decided.legs[index].earlierGoalUids = []
        }
        let entry = decided
        try database.write { db in
            try WeekRow(decided).insert(db)
            for leg in decided.legs { try LegRow(leg, of: decided.key).insert(db) }
            let week = entry.weekEnd.description
            try db.execute(
                sql: "UPDATE week SET itemised = 1, reportMissing = 1 WHERE accountUid = ? AND weekEnd = ?",
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

    /// Records that leg `leg`'s money arrived: the bank confirmed the transfer (at
    /// `confirmedAt` on its clock), or the feed item `feedItemUid` shows it. The week is
    /// done once all its legs are. Only a pending or held leg of a pending or held week
    /// changes.
    public func recordDone(
        accountUid: String, weekEnd: LocalDate, leg: Int, confirmation: Confirmation = .bank,
        feedItemUid: String? = nil, confirmedAt: Instant? = nil, resolution: String? = nil, at now: Instant
    ) throws {
        try database.write { db in
            try Ledger.expectOneChange(
                try Ledger.undecidedLegs(accountUid, weekEnd).filter(LegColumns.leg == leg).updateAll(
                    db,
                    [
                        LegColumns.status.set(to: WeekState.done.rawValue), LegColumns.lastError.set(to: nil),
                        LegColumns.confirmation.set(to: confirmation.rawValue),
                        LegColumns.feedItemUid.set(to: feedItemUid),
                        LegColumns.confirmedAt.set(to: confirmedAt?.iso8601),
                    ]), "\(accountUid) \(weekEnd) leg \(leg)")
            let open = try Ledger.legRows(accountUid, weekEnd).filter(
                ![WeekState.done.rawValue, WeekState.nothing.rawValue].contains(LegColumns.status)
            ).fetchCount(db)
            var changes = [Columns.updatedAt.set(to: now.iso8601)]
            if open == 0 {
                changes += [Columns.status.set(to: WeekState.done.rawValue), Columns.reason.set(to: nil)]
            }
            // A week confirmed by a run keeps what a person decided about it earlier.
            if let resolution { changes.append(Columns.resolution.set(to: resolution)) }
            try Ledger.expectOneChange(
                try Ledger.undecided(accountUid, weekEnd).updateAll(db, changes), "\(accountUid) \(weekEnd)")
        }
    }

    /// Records that the pending leg's transfer is about to be sent, at `bankTime` on the
    /// bank's clock: before the request goes out, so that a send is never made unrecorded.
    /// A run's send leaves the week owing a report until the run writes it (`owesReport`);
    /// a person's `resolve` says what it did itself.
    public func recordSend(
        accountUid: String, weekEnd: LocalDate, leg: Int, bankTime: Instant, owesReport: Bool = true, at now: Instant
    ) throws {
        var changes = [Columns.updatedAt.set(to: now.iso8601)]
        if owesReport { changes.append(Columns.reportMissing.set(to: 1)) }
        try database.write { db in
            let pending = LegColumns.status == WeekState.pending.rawValue
            try Ledger.expectOneChange(
                try Ledger.legRows(accountUid, weekEnd).filter(LegColumns.leg == leg && pending).updateAll(
                    db,
                    [
                        LegColumns.sends.set(to: LegColumns.sends + 1),
                        LegColumns.firstSentAt.set(to: LegColumns.firstSentAt ?? bankTime.iso8601),
                        LegColumns.lastSentAt.set(to: bankTime.iso8601), LegColumns.lastSentOn.set(to: now.iso8601),
                    ]), "\(accountUid) \(weekEnd) leg \(leg)")
            try Ledger.expectOneChange(
                try Ledger.weekRow(accountUid, weekEnd).filter(Columns.status == WeekState.pending.rawValue).updateAll(
                    db, changes), "\(accountUid) \(weekEnd)")
        }
    }

    /// Records that the bank refused the leg's latest send (a 4xx, no connection made): it
    /// moved nothing, so it counts as no send, and the send before it (`previous`, on the
    /// bank's clock and this machine's; nil for none) is the last one again: a later run
    /// waits for the feed to show that one, if any.
    public func recordSendRefused(
        accountUid: String, weekEnd: LocalDate, leg: Int, previous: (bank: Instant?, local: Instant?), at now: Instant
    ) throws {
        try database.write { db in
            let refused = try Ledger.legRows(accountUid, weekEnd).filter(LegColumns.leg == leg && LegColumns.sends > 0)
                .updateAll(
                    db,
                    [
                        LegColumns.sends.set(to: LegColumns.sends - 1),
                        LegColumns.lastSentAt.set(to: previous.bank?.iso8601),
                        LegColumns.lastSentOn.set(to: previous.local?.iso8601),
                    ])
            if refused > 0 {
                try Ledger.weekRow(accountUid, weekEnd).updateAll(db, Columns.updatedAt.set(to: now.iso8601))
            }
        }
    }

    /// Records that the goal's total grew by the leg's amount after a send the feed did
    /// not show: the money moved, and no run sends the leg again.
    public func recordGoalGrew(accountUid: String, weekEnd: LocalDate, leg: Int, at now: Instant) throws {
        try change(accountUid, weekEnd, leg: leg, week: [], legs: [LegColumns.goalGrew.set(to: 1)], at: now)
    }

    /// Records that the feed item `feedItemUid` is the transfer of the done leg, which the
    /// bank confirmed without naming one. False, and nothing changes, when the leg already
    /// has its item, is not done, or another leg has claimed that item: an item confirms
    /// one transfer, once.
    @discardableResult
    public func recordClaim(accountUid: String, weekEnd: LocalDate, leg: Int, feedItemUid: String) throws -> Bool {
        try database.write { db in
            guard try LegRow.filter(LegColumns.feedItemUid == feedItemUid).fetchCount(db) == 0 else { return false }
            // The week's own times stay as they were: its confirmation is when it was done.
            return try Ledger.legRows(accountUid, weekEnd).filter(
                LegColumns.leg == leg && LegColumns.status == WeekState.done.rawValue && LegColumns.feedItemUid == nil
            ).updateAll(db, [LegColumns.feedItemUid.set(to: feedItemUid)]) == 1
        }
    }

    /// Notes why the leg's pending transfer has not been confirmed; it stays pending.
    public func recordFailure(accountUid: String, weekEnd: LocalDate, leg: Int, error: String, at now: Instant) throws {
        try database.write { db in
            let failed = try Ledger.undecidedLegs(accountUid, weekEnd).filter(LegColumns.leg == leg).updateAll(
                db, LegColumns.lastError.set(to: Ledger.clip(error)))
            if failed > 0 {
                _ = try Ledger.undecided(accountUid, weekEnd).updateAll(db, Columns.updatedAt.set(to: now.iso8601))
            }
        }
    }

    /// Holds a pending week and its open legs for a person, saying why; runs leave it be
    /// until it is resolved. Over another ledger's transfer, the week it names and how much
    /// may be saved twice are noted too.
    public func recordHeld(
        accountUid: String, weekEnd: LocalDate, reason: String, otherWeekEnd: LocalDate? = nil,
        sharedMinorUnits: Int64? = nil, at now: Instant
    ) throws {
        var changes = [Columns.status.set(to: WeekState.held.rawValue), Columns.reason.set(to: Ledger.clip(reason))]
        if let otherWeekEnd {
            changes += [
                Columns.otherWeekEnd.set(to: otherWeekEnd.description),
                Columns.sharedMinorUnits.set(to: sharedMinorUnits),
            ]
        }
        try change(
            accountUid, weekEnd, leg: nil, week: changes, legs: [LegColumns.status.set(to: WeekState.held.rawValue)],
            at: now)
    }

    /// A week whose recorded transfers were to be sent again and no longer fit what the
    /// account can spare: it ends held back, as a week decided without room would. Its open
    /// legs moved nothing, its payments stay counted, and `note` says why; its legs' transfer
    /// uids and sends are kept. A leg that arrived stays as it is: the week then moved that
    /// much, and is done.
    public func recordHeldBack(
        accountUid: String, weekEnd: LocalDate, note: String, forecast: ForecastSummary?, at now: Instant
    ) throws {
        let arrived = try database.read { db in
            try Ledger.legRows(accountUid, weekEnd).filter(LegColumns.status == WeekState.done.rawValue)
                .select(sum(LegColumns.minorUnits), as: Int64.self).fetchOne(db) ?? 0
        }
        try change(
            accountUid, weekEnd, leg: nil,
            week: [
                Columns.status.set(to: (arrived > 0 ? WeekState.done : .nothing).rawValue),
                Columns.minorUnits.set(to: arrived),
                Columns.note.set(to: Ledger.clip(note)), Columns.reason.set(to: nil),
                Columns.forecastThrough.set(to: forecast?.through.description),
                Columns.forecastPayday.set(to: forecast?.payday?.description),
                Columns.forecastPayments.set(to: forecast?.payments),
                Columns.forecastDue.set(to: forecast?.dueMinorUnits),
                Columns.forecastLowPoint.set(to: forecast?.lowPointMinorUnits),
            ],
            legs: [LegColumns.status.set(to: WeekState.nothing.rawValue), LegColumns.minorUnits.set(to: 0)], at: now)
    }

    /// A person's decision on a held or failed week (`roundup resolve`): send it again. Its
    /// open legs are pending again; leg `leg` goes to the same goal, or to `goal` with a new
    /// transfer uid, the goal it had joining the ones the feed is searched for.
    public func recordRetry(
        accountUid: String, weekEnd: LocalDate, leg: Int, goal: (uid: String, name: String, transferUid: String)? = nil,
        resolution: String, at now: Instant
    ) throws {
        try database.write { db in
            let current = try Row.fetchOne(
                db,
                Ledger.legRows(accountUid, weekEnd).filter(LegColumns.leg == leg).select(
                    LegColumns.goalUid, LegColumns.earlierGoalUids))
            var earlier = LegRow.goalList(current?[LegColumns.earlierGoalUids])
            if let goal, let old: String = current?[LegColumns.goalUid], old != goal.uid, !earlier.contains(old) {
                earlier.append(old)
            }
            var redirect = [LegColumns.earlierGoalUids.set(to: LegRow.goalText(earlier))]
            if let goal {
                redirect += [
                    LegColumns.goalUid.set(to: goal.uid), LegColumns.goalName.set(to: goal.name),
                    LegColumns.transferUid.set(to: goal.transferUid),
                ]
            }
            try Ledger.expectOneChange(
                try Ledger.undecidedLegs(accountUid, weekEnd).filter(LegColumns.leg == leg).updateAll(db, redirect),
                "\(accountUid) \(weekEnd) leg \(leg)")
            _ = try Ledger.undecidedLegs(accountUid, weekEnd).updateAll(
                db, [LegColumns.status.set(to: WeekState.pending.rawValue), LegColumns.lastError.set(to: nil)])
            try Ledger.expectOneChange(
                try Ledger.undecided(accountUid, weekEnd).updateAll(
                    db,
                    [
                        Columns.status.set(to: WeekState.pending.rawValue), Columns.reason.set(to: nil),
                        Columns.resolution.set(to: Ledger.clip(resolution)), Columns.updatedAt.set(to: now.iso8601),
                        // Held again later, it is told again.
                        Column("heldToldAt").set(to: nil),
                    ]), "\(accountUid) \(weekEnd)")
        }
    }

    /// A person's decision that a held or failed week's money is not to be moved: the week
    /// and its open legs are abandoned. A leg that arrived stays as it is: the week then
    /// moved that much, and is done, with the rest given up.
    public func recordAbandoned(accountUid: String, weekEnd: LocalDate, reason: String, at now: Instant) throws {
        let arrived = try database.read { db in
            try Ledger.legRows(accountUid, weekEnd).filter(LegColumns.status == WeekState.done.rawValue)
                .select(sum(LegColumns.minorUnits), as: Int64.self).fetchOne(db)
        }
        var week = [
            Columns.status.set(to: (arrived == nil ? WeekState.abandoned : .done).rawValue),
            Columns.reason.set(to: Ledger.clip(reason)), Columns.resolution.set(to: "abandoned at \(now.iso8601)"),
        ]
        if let arrived { week.append(Columns.minorUnits.set(to: arrived)) }
        try change(
            accountUid, weekEnd, leg: nil, week: week, legs: [LegColumns.status.set(to: WeekState.abandoned.rawValue)],
            at: now)
    }

    /// Makes `legChanges` to the week's leg `leg` (to each of its open legs, for nil) and
    /// `weekChanges` to the week, in one transaction: the week and a leg must be pending or
    /// held, or nothing changes and it is an error.
    private func change(
        _ accountUid: String, _ weekEnd: LocalDate, leg: Int?, week weekChanges: [ColumnAssignment],
        legs legChanges: [ColumnAssignment], at now: Instant
    ) throws {
        try database.write { db in
            var legs = Ledger.undecidedLegs(accountUid, weekEnd)
            if let leg { legs = legs.filter(LegColumns.leg == leg) }
            guard try legs.updateAll(db, legChanges) > 0 else {
                throw LedgerError.unchanged("\(accountUid) \(weekEnd)" + (leg.map { " leg \($0)" } ?? ""))
            }
            try Ledger.expectOneChange(
                try Ledger.undecided(accountUid, weekEnd).updateAll(
                    db, weekChanges + [Columns.updatedAt.set(to: now.iso8601)]), "\(accountUid) \(weekEnd)")
        }
    }

    /// The row of one (account, week).
    private static func weekRow(_ accountUid: String, _ weekEnd: LocalDate) -> QueryInterfaceRequest<WeekRow> {
        WeekRow.filter(Columns.accountUid == accountUid && Columns.weekEnd == weekEnd.description)
    }

    /// The legs of one (account, week).
    private static func legRows(_ accountUid: String, _ weekEnd: LocalDate) -> QueryInterfaceRequest<LegRow> {
        LegRow.filter(LegColumns.accountUid == accountUid && LegColumns.weekEnd == weekEnd.description)
    }

    /// The row of one (account, week) while its outcome is still open: pending or held.
    private static func undecided(_ accountUid: String, _ weekEnd: LocalDate) -> QueryInterfaceRequest<WeekRow> {
        weekRow(accountUid, weekEnd).filter(Ledger.open.contains(Columns.status))
    }

    /// The legs of one (account, week) whose outcome is still open: pending or held.
    private static func undecidedLegs(_ accountUid: String, _ weekEnd: LocalDate) -> QueryInterfaceRequest<LegRow> {
        legRows(accountUid, weekEnd).filter(Ledger.open.contains(LegColumns.status))
    }

    /// The states of a week or leg whose outcome is still open.
    private static let open = [WeekState.pending.rawValue, WeekState.held.rawValue]

    /// An update meant for one week that changed none (the week was not in the state the
    /// update expects) is an error, never a silent no-op.
    private static func expectOneChange(_ changed: Int, _ week: String) throws {
        guard changed == 1 else { throw LedgerError.unchanged(week) }
    }
}
