package import RoundUp
package import RoundUpLedger
import RoundUpVocabulary
import RoundUpWeek

/// What the job writes of a week it settled by looking in the feed: the transfer found, or
/// the week held for a person.
package struct WeekRecords: Sendable {
    let ledger: Ledger
    let now: @Sendable () -> Instant

    package init(
        ledger: Ledger, now: @escaping @Sendable () -> Instant
    ) {
        self.ledger = ledger
        self.now = now
    }

    /// Records that `found` is `leg`'s transfer: it arrived.
    func recordFound(_ found: FeedTransfer, for entry: AccountWeek, leg: TransferLeg) throws(AccountFailure) {
        try AccountFailure.ledgerWrite("record that the transfer arrived") {
            try ledger.recordDone(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: leg.index, confirmation: .feed,
                feedItemUid: found.feedItemUid, at: now())
        }
    }

    /// Holds `entry`'s week for a person, for `reason`; over another ledger's transfer, noting
    /// the week it names and how much may be saved twice.
    func hold(_ entry: AccountWeek, reason: String, otherLedger: OtherLedgerHold? = nil) throws(AccountFailure) -> Never
    {
        try AccountFailure.ledgerWrite("hold the week") {
            try ledger.recordHeld(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, reason: reason,
                otherWeekEnd: otherLedger?.otherWeekEnd, sharedMinorUnits: otherLedger?.shared, at: now())
        }
        throw AccountFailure.held(reason)
    }
}
