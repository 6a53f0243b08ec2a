import RoundUp
import StarlingAPI

/// The job's side of `roundup resolve`: a person's decision on one held or failed week,
/// carried out with the same feed search and transfer as a run.
extension WeeklyJob {
    /// The account `uid`, as the bank lists it.
    func account(_ uid: String) async throws(CommandFailure) -> Account {
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

    /// `--check`: the feed is read again; the week is recorded as arrived when it shows the transfer.
    func checkAgain(_ entry: LedgerEntry, account: Account) async throws(CommandFailure) -> String {
        let since = entry.recordedAt ?? weekEnd(of: entry)
        let goal = "\"\(entry.goalName ?? entry.goalUid ?? "the goal")\""
        do throws(AccountFailure) {
            switch try await lookInFeed(for: entry, account: account, since: since) {
            case .arrived(let found):
                try AccountFailure.ledgerWrite("record the decision") {
                    try ledger.recordDone(
                        accountUid: entry.accountUid, weekEnd: entry.weekEnd, confirmation: .feed,
                        feedItemUid: found.feedItemUid, resolution: "checked at \(now().iso8601): found in the feed",
                        at: now())
                }
                let gone = await goalIsGone(entry, account: account) ? " The goal no longer exists." : ""
                return "The transfer of \(entry.amountText) into \(goal) arrived (\(found.described)); the week "
                    + "ending \(entry.weekEnd) of \(entry.label) is recorded as transferred.\(gone)\n"
            case .absent:
                return "The feed shows no transfer of \(entry.amountText) into \(goal) since \(since.iso8601); "
                    + "nothing changed. `--retry` sends it again, `--redirect GOAL` sends it elsewhere, "
                    + "`--abandon REASON` gives it up.\n"
            case .unclear(let reason):
                return "Still unclear: \(reason). Nothing changed; `--retry` sends it again, `--abandon REASON` "
                    + "gives it up.\n"
            }
        } catch {
            throw CommandFailure(error.status, error.message)
        }
    }

    /// `--retry` (to `goal` nil) and `--redirect` (to `goal`): the feed is searched first,
    /// for the goals the week was sent to so far; only when it shows no sign of the
    /// transfer, or the week was held for a reason the person has now seen, is the
    /// decision recorded and the transfer sent.
    func sendAgain(_ entry: LedgerEntry, account: Account, to goal: String?) async throws(CommandFailure)
        -> String
    {
        var entry = entry
        let at = now().iso8601
        do throws(AccountFailure) {
            let lock = try await lock(account)
            defer { withExtendedLifetime(lock) {} }
            let since = entry.recordedAt ?? weekEnd(of: entry)
            switch try await lookInFeed(for: entry, account: account, since: since) {
            case .arrived(let found):
                try AccountFailure.ledgerWrite("record the decision") {
                    try ledger.recordDone(
                        accountUid: entry.accountUid, weekEnd: entry.weekEnd, confirmation: .feed,
                        feedItemUid: found.feedItemUid, resolution: "checked at \(at): found in the feed", at: now())
                }
                return "The transfer of \(entry.amountText) for the week ending \(entry.weekEnd) of \(entry.label) "
                    + "already arrived (\(found.described)); it is recorded as transferred, and nothing was sent.\n"
            case .unclear(let reason) where entry.status != .held:
                try hold(entry, reason: reason)
            case .unclear, .absent:
                break
            }
            let scopes = Set(
                try await AccountFailure.bankCall { () async throws(BankError) in try await bank.tokenIdentity().scopes
                })
            try await refuseOverdraft(entry, account: account, scopes: scopes)
            if let goal {
                let target = try await goals.named(goal, for: account)
                entry.goalUid = target.uid
                entry.goalName = target.name
                entry.transferUid = TransferUID.transferUid(
                    accountUid: account.uid, goalUid: target.uid, weekEnd: entry.weekEnd)
            }
            let redirect = goal == nil ? nil : entry
            let resolution = goal == nil ? "retried at \(at)" : "redirected to \"\(entry.goalName ?? "")\" at \(at)"
            try AccountFailure.ledgerWrite("record the decision") {
                try ledger.recordRetry(
                    accountUid: entry.accountUid, weekEnd: entry.weekEnd,
                    goal: redirect.map { ($0.goalUid ?? "", $0.goalName ?? "", $0.transferUid ?? "") },
                    resolution: resolution, at: now())
            }
            guard let updated = try? ledger.entry(accountUid: entry.accountUid, weekEnd: entry.weekEnd) else {
                throw AccountFailure(.temporaryFailure, "could not read the ledger back")
            }
            try await send(updated, account: account)
            return "Moved \(entry.amountText) into \"\(printable(entry.goalName ?? "the goal"))\" for the week ending "
                + "\(entry.weekEnd) of \(entry.label) (transfer \(entry.transferUid ?? "")).\n"
        } catch {
            throw CommandFailure(error.status, error.message)
        }
    }
}
