import GRDB
public import RoundUp

/// The accounts real runs began to work on, each with the first scheduled week a run began
/// for it: the `account` table. An account a run began but never recorded a week for
/// (killed, stopped, failed) is known from here, so that the weeks from its first are
/// caught up rather than left behind for good.
extension Ledger {
    /// Notes that a run begins the scheduled week ending `weekEnd` for `accountUids`; an
    /// account already known keeps its first week.
    public func begin(weekEnd: LocalDate, for accountUids: [String]) throws {
        guard !accountUids.isEmpty else { return }
        try database.write { db in
            for uid in accountUids {
                try db.execute(
                    sql:
                        "INSERT INTO account (accountUid, firstWeekEnd) VALUES (?, ?) ON CONFLICT (accountUid) DO NOTHING",
                    arguments: [uid, weekEnd.description])
            }
        }
    }

    /// Forgets `accountUid` when the ledger has no week of it: the run left it alone (skipped),
    /// so it has no week to catch up.
    public func forgetUnrecorded(_ accountUid: String) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    DELETE FROM account WHERE accountUid = ?
                    AND NOT EXISTS (SELECT 1 FROM week WHERE week.accountUid = account.accountUid)
                    """, arguments: [accountUid])
        }
    }

    /// Forgets every account without a week in the ledger that is not among `listed`: the
    /// bank no longer lists it.
    public func forgetUnrecorded(notIn listed: Set<String>) throws {
        for (uid, _) in try knownAccounts() where !listed.contains(uid) { try forgetUnrecorded(uid) }
    }

    /// Each known account's first scheduled week.
    public func knownAccounts() throws -> [String: LocalDate] {
        try database.read { db in
            var known: [String: LocalDate] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT accountUid, firstWeekEnd FROM account") {
                let read = LedgerRow(row: row, table: "account")
                known[Uid.canonical(try read.requiredText(Column("accountUid")))] = try read.required(
                    Column("firstWeekEnd"), LocalDate.init(iso:))
            }
            return known
        }
    }
}
