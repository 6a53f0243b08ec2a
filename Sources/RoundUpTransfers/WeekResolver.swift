import Foundation
package import RoundUp
package import RoundUpHost
package import RoundUpLedger
package import RoundUpVocabulary
package import RoundUpWeek
package import StarlingAPI

/// The job's side of `roundup resolve`: a person's decision on one held or failed week,
/// carried out with the same feed search and transfer as a run.
package struct WeekResolver: Sendable {
    package let bank: BankClient
    let ledger: Ledger
    let rules: RuleSettings
    package let search: FeedSearch
    let records: WeekRecords
    let sender: TransferSender
    package let goals: GoalResolver
    /// How long it waits for a run working on the same account.
    let accountLockWait: Duration
    let now: @Sendable () -> Instant

    package init(
        bank: BankClient, ledger: Ledger, rules: RuleSettings, search: FeedSearch, records: WeekRecords,
        sender: TransferSender, goals: GoalResolver, accountLockWait: Duration, now: @escaping @Sendable () -> Instant
    ) {
        self.bank = bank
        self.ledger = ledger
        self.rules = rules
        self.search = search
        self.records = records
        self.sender = sender
        self.goals = goals
        self.accountLockWait = accountLockWait
        self.now = now
    }

    /// The account `uid`, as the bank lists it.
    package func account(_ uid: String) async throws(CommandFailure) -> Account {
        let accounts: [BankAccount]
        do {
            accounts = try await bank.accounts()
        } catch {
            throw CommandFailure(ExitStatus(error), error.description)
        }
        guard let account = accounts.first(where: { $0.accountUid == uid }) else {
            throw CommandFailure(.configuration, "the bank lists no account \(uid) for this token")
        }
        return account.account
    }

    /// Where `resolve` looks in the feed from, on the bank's clock: the week's first send,
    /// or for a held week the week's end if earlier, where the search that held it began (a
    /// transfer another ledger made before this one first looked is as much this week's as
    /// one made since); for a week never sent, the week's end.
    func resolveSearchStart(_ entry: AccountWeek) -> Instant {
        let time = search.time
        let end = time.bank(search.weekEnd(of: entry))
        guard entry.mayHaveBeenSent, let sent = entry.firstSend(time) else { return end }
        return entry.status == .held ? min(sent, end) : sent
    }

    /// `--check`: the feed is read again; the week is recorded as arrived when it shows the
    /// transfer, and a transfer of it that may still move is waited for. A week never sent
    /// has no transfer of its own: one that looks like it is shown, and recorded only when
    /// the person names it (`accept`, `--check --accept FEEDITEM`).
    package func checkAgain(_ entry: AccountWeek, account: Account, accept: String? = nil) async throws(CommandFailure)
        -> String
    {
        let since = resolveSearchStart(entry)
        let goal = "\"\(printable(entry.firstLeg.goalName ?? entry.firstLeg.goalUid ?? "the goal"))\""
        do throws(AccountFailure) {
            let (feed, week) = try await search.transfers(
                for: entry, account: account, since: since, readingFrom: search.time.bank(countedWeek(entry).start))
            let others = try search.entries(of: account)
            if let accept { return try accepted(accept, for: entry, week: week, feed: feed, ledger: others) }
            let check = search.decide(week, entry: entry, feed: week.recent(feed), ledger: others)
            if case .arrived(let found) = check, !entry.mayHaveBeenSent {
                return "Nothing changed: \(TransferCheck.lookAlike(found, of: entry)).\n"
            }
            if case .mayMove(let found) = TransferCheck.beforeResending(
                week, feed: week.recent(feed), ledger: others, time: search.time),
                !check.hasArrived
            {
                return "The feed shows a transfer of \(entry.amountText) into \(Self.goalText(found.goalUid, entry)) "
                    + "(\(found.described)) whose status is \(TransferCheck.quoted(found.status)): it may still move "
                    + "the money. Nothing changed; wait until it settles or is cancelled in the app, then `--check` "
                    + "again, or `--abandon REASON` gives it up.\n"
            }
            switch check {
            case .arrived(let found):
                try AccountFailure.ledgerWrite("record the decision") {
                    try ledger.recordDone(
                        accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: entry.firstLeg.index,
                        confirmation: .feed,
                        feedItemUid: found.feedItemUid, resolution: "checked at \(now().iso8601): found in the feed",
                        at: now())
                }
                let gone = await search.goalIsGone(entry, account: account) ? " The goal no longer exists." : ""
                return "The transfer of \(entry.amountText) into \(goal) arrived (\(found.described)); the week "
                    + "ending \(entry.weekEnd) of \(entry.label) is recorded as transferred.\(gone)\n"
            case .absent:
                return "The feed shows no transfer of \(entry.amountText) into \(goal) since \(week.since.iso8601); "
                    + "nothing changed. \(await resendWords(entry, account: account)) `--redirect GOAL` sends it "
                    + "elsewhere, `--abandon REASON` gives it up.\n"
            case .unclear(let reason):
                // A week not yet held is held over it first: the person then sees the reason.
                let retry =
                    entry.status == .held
                    ? await resendWords(entry, account: account)
                    : "`--retry` would first hold the week for a person over this, and a second `--retry` would "
                        + "then send it;"
                return "Still unclear: \(reason). Nothing changed; \(retry) `--abandon REASON` gives it up.\n"
            }
        } catch {
            throw CommandFailure(error.status, error.message)
        }
    }

    /// What `--retry` would do with `entry` now, measured as it would be (nothing is sent):
    /// send it, or end the week held back, and why.
    private func resendWords(_ entry: AccountWeek, account: Account) async -> String {
        if let tooSoon = sender.tooSoonToSendAgain(entry, leg: entry.firstLeg) {
            return "`--retry` would send nothing yet (\(tooSoon));"
        }
        if entry.status != .held, let grew = TransferSender.goalGrewReason(entry, leg: entry.firstLeg) {
            return "`--retry` would hold the week for a person instead (\(grew));"
        }
        if await search.goalIsGone(entry, account: account) {
            return "its goal no longer exists, so `--retry` would be refused: `--redirect GOAL` sends it elsewhere;"
        }
        do throws(AccountFailure) {
            let scopes = Set(
                try await AccountFailure.bankCall { () async throws(BankError) in
                    try await bank.tokenIdentity().scopes
                })
            switch try await sender.measure.resend(entry, account: account, scopes: scopes, dryRun: true) {
            case .fits: return "`--retry` would send it again now;"
            case .heldBack(let outcome, _):
                return "`--retry` would send nothing now and settle the week as held back: \(outcome.note ?? "");"
            }
        } catch {
            return "Whether `--retry` would send it now could not be measured (\(error.message)); `--retry` measures "
                + "it again before sending;"
        }
    }

    /// `--check --accept FEEDITEM`: a person says that the feed item `itemUid` is this
    /// week's transfer. It is recorded so only when the `feed` shows it as money that moved
    /// into one of the week's goals, of the week's amount, and no other week accounts for
    /// it: an item confirms one week, once.
    private func accepted(
        _ itemUid: String, for entry: AccountWeek, week: TransferCheck.Search, feed: [FeedTransfer],
        ledger others: [AccountWeek]
    ) throws(AccountFailure) -> String {
        let uid = Uid.canonical(itemUid)
        guard let item = feed.first(where: { $0.feedItemUid == uid }) else {
            throw AccountFailure(
                .usage,
                "the feed shows no transfer into a goal with the feed item uid \(Uid.shown(itemUid)) since the week "
                    + "began; `roundup resolve` shows the one the week was held over")
        }
        guard entry.goalUids.contains(item.goalUid), item.amount(in: week.amount.currency) == week.amount
        else {
            throw AccountFailure(
                .usage,
                "\(item.described) is a transfer of \(item.amountText) into \(Self.goalText(item.goalUid, entry)), "
                    + "not this week's \(entry.amountText) into \(Self.goalText(entry.firstLeg.goalUid ?? "", entry)): nothing "
                    + "changed")
        }
        guard item.hasMoved else {
            throw AccountFailure(
                .temporaryFailure,
                "\(item.described) is \(TransferCheck.quoted(item.status)): it may still move the money, or not; "
                    + "nothing changed. Accept it once it has settled")
        }
        if let other = TransferCheck.claimant(of: item, for: week, feed: feed, ledger: others, time: search.time) {
            throw AccountFailure(
                .usage,
                "\(item.described) \(other.status == .done ? "is" : "may be") the transfer of the week ending "
                    + "\(other.weekEnd) in this ledger (\(WeekFate(other).word)): one transfer confirms one week; "
                    + "nothing changed" + (other.status == .done ? "" : ". Settle that week first"))
        }
        try AccountFailure.ledgerWrite("record the decision") {
            try ledger.recordDone(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: entry.firstLeg.index, confirmation: .feed,
                feedItemUid: item.feedItemUid,
                resolution: "accepted at \(now().iso8601): \(item.described) named by a person", at: now())
        }
        return "Recorded \(item.described) as this week's transfer: \(entry.amountText) for the week ending "
            + "\(entry.weekEnd) of \(entry.label) is transferred, and nothing was sent.\n"
    }

    /// `--retry` (to `goal` nil) and `--redirect` (to `goal`): the feed is searched first,
    /// for every goal the week was ever sent to, from its first intent until now. A transfer
    /// of its amount that moved is recorded and nothing is sent; one that may still move
    /// (upcoming, retrying, in a status this version does not know) stops the resend until
    /// it settles or is cancelled. Only when the feed shows no sign of it, or the week was
    /// held for a reason the person has now seen, is the decision recorded and the transfer
    /// sent. A redirect to the week's own goal is refused: that is `--retry`.
    package func sendAgain(_ entry: AccountWeek, account: Account, to goal: String?) async throws(CommandFailure)
        -> String
    {
        let at = now().iso8601
        do throws(AccountFailure) {
            let lock = try await AccountLock.hold(account, at: bank.baseURL, waiting: accountLockWait)
            defer { withExtendedLifetime(lock) {} }
            let target = try await redirectTarget(goal, for: entry, account: account)
            let since = resolveSearchStart(entry)
            let bounds = countedWeek(entry)
            let (feed, week) = try await search.transfers(
                for: entry, account: account, since: since, readingFrom: search.time.bank(bounds.start))
            let others = try search.entries(of: account)
            // A week never sent has no transfer of its own that moved: the person has seen
            // the one it was held over, and asks for this week's to be sent. One that may
            // still move is waited for all the same.
            var resend = TransferCheck.beforeResending(week, feed: feed, ledger: others, time: search.time)
            if case .moved = resend, !entry.mayHaveBeenSent { resend = .free }
            switch resend {
            case .moved(let found):
                try AccountFailure.ledgerWrite("record the decision") {
                    try ledger.recordDone(
                        accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: entry.firstLeg.index,
                        confirmation: .feed,
                        feedItemUid: found.feedItemUid, resolution: "checked at \(at): found in the feed", at: now())
                }
                return "The transfer of \(entry.amountText) for the week ending \(entry.weekEnd) of \(entry.label) "
                    + "already arrived (\(found.described)); it is recorded as transferred, and nothing was sent.\n"
            case .mayMove(let found):
                throw AccountFailure(
                    .temporaryFailure,
                    "the feed shows a transfer of \(entry.amountText) into \(Self.goalText(found.goalUid, entry)) "
                        + "(\(found.described)) whose status is \(TransferCheck.quoted(found.status)): it may still move "
                        + "the money, so nothing was sent; wait until it settles or is cancelled in the app, then run "
                        + "`roundup resolve --account \(entry.accountUid) --end-date \(entry.weekEnd) --check`")
            case .free:
                break
            }
            try holdForWhatIsUnseen(entry, feed: feed, search: week, bounds: bounds, others: others)
            let scopes = Set(
                try await AccountFailure.bankCall { () async throws(BankError) in try await bank.tokenIdentity().scopes
                })
            // An unanswered send whose feed shows nothing yet is sent again only once the feed
            // has had time to show it.
            if resend == .free, let tooSoon = sender.tooSoonToSendAgain(entry, leg: entry.firstLeg) {
                throw AccountFailure(
                    .temporaryFailure,
                    "\(tooSoon); nothing was sent: run `roundup resolve --account \(entry.accountUid) --end-date "
                        + "\(entry.weekEnd) --retry` again then")
            }
            if entry.status != .held, let grew = TransferSender.goalGrewReason(entry, leg: entry.firstLeg) {
                try records.hold(entry, reason: grew)
            }
            // The recorded amount is measured again, as a fresh decision would be: it is sent
            // in full, or the week ends held back.
            if case .heldBack(let outcome, let forecast) = try await sender.measure.resend(
                entry, account: account, scopes: scopes, dryRun: false)
            {
                let note = try sender.holdBack(entry, outcome, forecast)
                return "Nothing was sent: \(note). The week ending \(entry.weekEnd) of \(entry.label) is settled as "
                    + "held back, with nothing moved and its payments counted.\n"
            }
            return try await record(entry, redirectedTo: target, account: account, at: at)
        } catch {
            throw CommandFailure(error.status, error.message)
        }
    }

    /// Holds `entry`'s week, as a run would, for what in the `feed` the person has not seen:
    /// another ledger's transfer naming a week that shares its days, a transfer that could
    /// be its own or another's, or one of its amount made after its last send (a week held
    /// for another reason is held again, naming it).
    private func holdForWhatIsUnseen(
        _ entry: AccountWeek, feed: [FeedTransfer], search week: TransferCheck.Search, bounds: Week,
        others: [AccountWeek]
    ) throws(AccountFailure) {
        if entry.otherWeekEnd == nil, let currency = Currency(code: entry.currency),
            let other = OtherLedgerHold.find(
                in: feed, ledger: others, week: bounds, payments: nil,
                amount: Money(minorUnits: entry.minorUnits, currency: currency), multiplier: rules.policy.multiplier)
        {
            try records.hold(entry, reason: other.reason, otherLedger: other)
        }
        if case .unclear(let reason) = search.decide(week, entry: entry, feed: week.recent(feed), ledger: others),
            entry.status != .held
        {
            try records.hold(entry, reason: reason)
        }
        if let late = TransferCheck.lateTransfer(week, feed: week.recent(feed), ledger: others, time: search.time),
            !(entry.reason ?? "").contains(late.feedItemUid)
        {
            try records.hold(entry, reason: TransferCheck.lateReason(late, week))
        }
    }

    /// Records a person's decision to send `entry`'s week again, to `target` when redirected
    /// (a new goal and transfer uid, the intent recorded before the request goes out), and
    /// sends it; what is said of it.
    private func record(
        _ entry: AccountWeek, redirectedTo target: (uid: String, name: String)?, account: Account, at: String
    )
        async throws(AccountFailure) -> String
    {
        var entry = entry
        if let target {
            entry.firstLeg.goalUid = target.uid
            entry.firstLeg.goalName = target.name
            entry.firstLeg.transferUid = TransferUID.transferUid(
                accountUid: account.uid, goalUid: target.uid, weekEnd: entry.weekEnd, leg: entry.firstLeg.index)
        }
        let redirect = target == nil ? nil : entry
        let resolution =
            target == nil ? "retried at \(at)" : "redirected to \"\(entry.firstLeg.goalName ?? "")\" at \(at)"
        // The new goal and transfer uid are the intent, recorded before the request goes out.
        try AccountFailure.ledgerWrite("record the decision") {
            try ledger.recordRetry(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: entry.firstLeg.index,
                goal: redirect.map {
                    ($0.firstLeg.goalUid ?? "", $0.firstLeg.goalName ?? "", $0.firstLeg.transferUid ?? "")
                },
                resolution: resolution, at: now())
        }
        // The leg as the ledger now has it: of a week into several goals, a view of its own.
        guard let week = try? ledger.accountWeek(accountUid: entry.accountUid, weekEnd: entry.weekEnd),
            let leg = week.legs.first(where: { $0.index == entry.firstLeg.index })
        else {
            throw AccountFailure(.temporaryFailure, "could not read the ledger back")
        }
        let updated = week.hasSeveralLegs ? week.view(of: leg) : week
        try await sender.send(
            updated, leg: leg, account: account, goalBefore: await sender.goalTotal(of: updated, leg: leg),
            byRun: false)
        return
            "Moved \(entry.amountText) into \"\(printable(entry.firstLeg.goalName ?? "the goal"))\" for the week ending "
            + "\(entry.weekEnd) of \(entry.label) (transfer \(entry.firstLeg.transferUid ?? ""))."
            + (entry.savedTwiceNote.map { " " + $0 } ?? "") + "\n"
    }

    /// `entry`'s week with the bounds it was counted with.
    func countedWeek(_ entry: AccountWeek) -> Week {
        let zone = entry.timeZone.flatMap(TimeZone.init(identifier:)) ?? rules.timeZone
        let local = Week(endingOn: entry.weekEnd, in: zone)
        guard let start = entry.startsAt, let end = entry.endsAt else { return local }
        return local.bounded(from: start, to: end)
    }

    /// The goal `--redirect` names (nil for `--retry`); the week's own goal is refused.
    private func redirectTarget(_ goal: String?, for entry: AccountWeek, account: Account) async throws(AccountFailure)
        -> (uid: String, name: String)?
    {
        guard let goal else { return nil }
        let target = try await goals.named(goal, for: account)
        guard target.uid != entry.firstLeg.goalUid else {
            throw AccountFailure(
                .usage,
                "\"\(printable(target.name))\" is the goal this week's transfer already goes to; use --retry to send "
                    + "it there again")
        }
        return target
    }

    /// A goal of the week's, by name when the ledger knows it.
    static func goalText(_ goalUid: String, _ entry: AccountWeek) -> String {
        goalUid == entry.firstLeg.goalUid
            ? "\"\(printable(entry.firstLeg.goalName ?? goalUid))\"" : "the goal \(goalUid)"
    }
}

extension AccountWeek {
    /// The first and last local day of the week as it was counted.
    var days: (first: LocalDate, last: LocalDate) {
        let zone = timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
        let first = startsAt.map { Week.localDate(of: $0, in: zone) } ?? weekEnd.adding(days: -6)
        return (min(first, weekEnd.adding(days: -6)), weekEnd)
    }

    /// For a week held over another ledger's transfer, sent anyway: how much may be saved twice.
    var savedTwiceNote: String? {
        guard let other = otherWeekEnd else { return nil }
        let shared = Money.describe(minorUnits: sharedMinorUnits ?? minorUnits, code: currency)
        let overlap = OtherLedgerHold.days(
            OtherLedgerHold.overlap(days, (other.adding(days: -WeekWindow.gapDays), other)))
        return "Up to \(shared) of it may be saved twice: the round-ups of this week's payments of \(overlap), "
            + "which the other ledger's week ending \(other) covers."
    }

    /// For a week held over another ledger's transfer, abandoned: the days whose payments
    /// neither ledger may have saved.
    package var unsavedDaysNote: String? {
        guard let other = otherWeekEnd else { return nil }
        let theirs = (other.adding(days: -6), other)
        let mine = days
        var gaps: [String] = []
        if mine.first < theirs.0 {
            gaps.append(OtherLedgerHold.days((mine.first, min(mine.last, theirs.0.adding(days: -1)))))
        }
        if theirs.1 < mine.last {
            gaps.append(OtherLedgerHold.days((max(mine.first, theirs.1.adding(days: 1)), mine.last)))
        }
        let covered = "The other ledger's week ending \(other) covers \(OtherLedgerHold.days(theirs))"
        guard !gaps.isEmpty else { return covered + ", every day of this week." }
        return covered + "; this week's payments of \(gaps.joined(separator: " and ")) may be saved by neither."
    }
}
