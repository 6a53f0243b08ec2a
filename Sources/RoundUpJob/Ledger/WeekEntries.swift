import GRDB
public import RoundUp

/// The week entries: what was decided for each (account, week), and how it ended. An entry
/// is written once, when the week is decided, and from then on only moves between states
/// by the updates below, each of which changes nothing unless the week is pending or held.
extension Ledger {
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

    /// Every entry of `accountUid`, oldest week first.
    public func entries(accountUid: String) throws -> [LedgerEntry] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM transfer WHERE accountUid = ? ORDER BY weekEnd", arguments: [accountUid]
            ).map(Ledger.entry(from:))
        }
    }

    /// Records what was decided for the week: a pending transfer (written before it is
    /// sent), nothing to move, a transfer found already made, or a week held for a person.
    /// Fails if the (account, week) already has an entry: a week is decided once.
    public func recordDecision(_ entry: LedgerEntry, at now: Instant) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO transfer (accountUid, weekEnd, status, currency, minorUnits, goalUid, goalName,
                                          transferUid, lastError, accountName, note, confirmation, feedItemUid,
                                          reason, createdAt, updatedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    entry.accountUid, entry.weekEnd.description, entry.status.rawValue, entry.currency,
                    entry.minorUnits, entry.goalUid, entry.goalName, entry.transferUid, entry.accountName,
                    entry.note, entry.confirmation?.rawValue, entry.feedItemUid, entry.reason.map(Ledger.clip),
                    now.iso8601, now.iso8601,
                ])
        }
    }

    /// Records that the week's money arrived: the bank confirmed the transfer, or the feed
    /// item `feedItemUid` shows it. Only a pending or held week changes.
    public func recordDone(
        accountUid: String, weekEnd: LocalDate, confirmation: Confirmation = .bank, feedItemUid: String? = nil,
        resolution: String? = nil, at now: Instant
    ) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    UPDATE transfer SET status = 'done', lastError = NULL, reason = NULL, confirmation = ?,
                                        feedItemUid = ?, resolution = COALESCE(?, resolution), updatedAt = ?
                    WHERE accountUid = ? AND weekEnd = ? AND status IN ('pending', 'held')
                    """,
                arguments: [
                    confirmation.rawValue, feedItemUid, resolution, now.iso8601, accountUid, weekEnd.description,
                ])
            try Ledger.expectOneChange(db, "\(accountUid) \(weekEnd)")
        }
    }

    /// Notes why the pending transfer has not been confirmed; it stays pending.
    public func recordFailure(accountUid: String, weekEnd: LocalDate, error: String, at now: Instant) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    UPDATE transfer SET lastError = ?, updatedAt = ?
                    WHERE accountUid = ? AND weekEnd = ? AND status IN ('pending', 'held')
                    """,
                arguments: [Ledger.clip(error), now.iso8601, accountUid, weekEnd.description])
        }
    }

    /// Holds a pending week for a person, saying why; runs leave it be until it is resolved.
    public func recordHeld(accountUid: String, weekEnd: LocalDate, reason: String, at now: Instant) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    UPDATE transfer SET status = 'held', reason = ?, updatedAt = ?
                    WHERE accountUid = ? AND weekEnd = ? AND status IN ('pending', 'held')
                    """,
                arguments: [Ledger.clip(reason), now.iso8601, accountUid, weekEnd.description])
            try Ledger.expectOneChange(db, "\(accountUid) \(weekEnd)")
        }
    }

    /// A person's decision on a held or failed week (`roundup resolve`): send it again,
    /// to the same goal or to another one with a new transfer uid.
    public func recordRetry(
        accountUid: String, weekEnd: LocalDate, goal: (uid: String, name: String, transferUid: String)? = nil,
        resolution: String, at now: Instant
    ) throws {
        try database.write { db in
            let current = try Row.fetchOne(
                db, sql: "SELECT goalUid, earlierGoalUids FROM transfer WHERE accountUid = ? AND weekEnd = ?",
                arguments: [accountUid, weekEnd.description])
            var earlier = Ledger.goalList(current?["earlierGoalUids"])
            if let goal, let old: String = current?["goalUid"], old != goal.uid, !earlier.contains(old) {
                earlier.append(old)
            }
            try db.execute(
                sql: """
                    UPDATE transfer SET status = 'pending', reason = NULL, lastError = NULL, resolution = ?,
                                        goalUid = COALESCE(?, goalUid), goalName = COALESCE(?, goalName),
                                        transferUid = COALESCE(?, transferUid), earlierGoalUids = ?, updatedAt = ?
                    WHERE accountUid = ? AND weekEnd = ? AND status IN ('pending', 'held')
                    """,
                arguments: [
                    Ledger.clip(resolution), goal?.uid, goal?.name, goal?.transferUid,
                    earlier.isEmpty ? nil : earlier.joined(separator: " "), now.iso8601, accountUid,
                    weekEnd.description,
                ])
            try Ledger.expectOneChange(db, "\(accountUid) \(weekEnd)")
        }
    }

    /// A person's decision that a held or failed week's money is not to be moved.
    public func recordAbandoned(accountUid: String, weekEnd: LocalDate, reason: String, at now: Instant) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    UPDATE transfer SET status = 'abandoned', reason = ?, resolution = ?, updatedAt = ?
                    WHERE accountUid = ? AND weekEnd = ? AND status IN ('pending', 'held')
                    """,
                arguments: [
                    Ledger.clip(reason), "abandoned at \(now.iso8601)", now.iso8601, accountUid, weekEnd.description,
                ])
            try Ledger.expectOneChange(db, "\(accountUid) \(weekEnd)")
        }
    }

    /// An update meant for one week that changed none (the week was not in the state the
    /// update expects) is an error, never a silent no-op.
    private static func expectOneChange(_ db: Database, _ week: String) throws {
        guard db.changesCount == 1 else { throw LedgerError.unchanged(week) }
    }

    private static func goalList(_ text: String?) -> [String] {
        (text ?? "").split(separator: " ").map(String.init)
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
        entry.confirmation = (row["confirmation"] as String?).flatMap(Confirmation.init(rawValue:))
        entry.feedItemUid = row["feedItemUid"]
        entry.reason = row["reason"]
        entry.resolution = row["resolution"]
        entry.earlierGoalUids = goalList(row["earlierGoalUids"])
        entry.createdAt = row["createdAt"]
        entry.updatedAt = row["updatedAt"]
        return entry
    }
}
