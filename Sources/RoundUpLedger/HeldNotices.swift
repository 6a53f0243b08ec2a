import GRDB
public import RoundUp
public import RoundUpVocabulary

/// Which held weeks the saver has been told of through `notify.to`: each once, when it is
/// first held (and again only after a person sends it again and it is held anew).
extension Ledger {
    /// The held weeks no one has been told of, claimed now as told at `now`, in one
    /// transaction: a run that starts meanwhile does not tell them too. A run that then
    /// reaches no one gives them back (`unclaimHeldTold`).
    public func claimHeldUntold(at now: Instant) throws -> [AccountWeek] {
        try database.write { db in
            let untold = WeekRow.filter(WeekRow.Columns.status == WeekState.held.rawValue)
                .filter(Column("heldToldAt") == nil).order(WeekRow.Columns.weekEnd, WeekRow.Columns.accountUid)
            let weeks = try untold.fetchAll(db).map(\.week)
            try untold.updateAll(db, Column("heldToldAt").set(to: now.iso8601))
            return weeks
        }
    }

    /// The weeks `keys`, claimed at `now` by `claimHeldUntold`, not told after all: a later
    /// run tells them.
    public func unclaimHeldTold(_ keys: [AccountWeekKey], claimedAt now: Instant) throws {
        try database.write { db in
            for key in keys {
                try WeekRow.filter(WeekRow.Columns.accountUid == key.accountUid)
                    .filter(WeekRow.Columns.weekEnd == key.weekEnd.description)
                    .filter(Column("heldToldAt") == now.iso8601)
                    .updateAll(db, Column("heldToldAt").set(to: nil))
            }
        }
    }
}
