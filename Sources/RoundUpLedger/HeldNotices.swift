import GRDB
public import RoundUp
public import RoundUpVocabulary

/// Which held weeks the saver has been told of through `notify.to`: each once, when it is
/// first held (and again only after a person sends it again and it is held anew).
///
/// `heldToldAt` is nil for a week not yet told, `claimed <time>` while a run is telling
/// it, and the time it was told once one place took it. A claim a run never settled (it
/// was killed between claiming and telling) lapses after `claimLapse`, and a later run
/// tells the week.
extension Ledger {
    /// How long a claim holds before a later run may tell the week itself.
    public static let claimLapse: Int64 = 15 * 60

    /// The held weeks no one has been told of, claimed now by this run at `now`, in one
    /// transaction: a run that starts meanwhile does not tell them too.
    public func claimHeldUntold(at now: Instant) throws -> [AccountWeek] {
        let lapsed =
            "claimed " + Instant(millisecondsSince1970: now.millisecondsSince1970 - Ledger.claimLapse * 1000).iso8601
        return try database.write { db in
            let told = Column("heldToldAt")
            let untold = WeekRow.filter(WeekRow.Columns.status == WeekState.held.rawValue)
                .filter(told == nil || (told.like("claimed %") && told < lapsed))
                .order(WeekRow.Columns.weekEnd, WeekRow.Columns.accountUid)
            let weeks = try untold.fetchAll(db).map(\.week)
            try untold.updateAll(db, told.set(to: "claimed " + now.iso8601))
            return weeks
        }
    }

    /// The weeks `keys`, claimed at `claimedAt`, told: at `now` when some place took them, or
    /// given back (nil) for a later run to tell.
    public func settleHeldTold(_ keys: [AccountWeekKey], claimedAt: Instant, toldAt now: Instant?) throws {
        try database.write { db in
            for key in keys {
                try WeekRow.filter(WeekRow.Columns.accountUid == key.accountUid)
                    .filter(WeekRow.Columns.weekEnd == key.weekEnd.description)
                    .filter(Column("heldToldAt") == "claimed " + claimedAt.iso8601)
                    .updateAll(db, Column("heldToldAt").set(to: now?.iso8601))
            }
        }
    }
}
