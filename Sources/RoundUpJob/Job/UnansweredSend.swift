import RoundUp
import RoundUpVocabulary
import StarlingAPI

/// A send the bank did not answer with success: what the account's feed says of it decides
/// whether it is recorded as arrived, held for a person, or free to send again.
extension TransferSender {
    /// After a send that failed: true when the feed shows that the money arrived (and it
    /// is recorded), false when the feed shows no sign of it, twice, and it may be sent
    /// again; otherwise records why and throws (held, or left for the next run).
    func settleUnanswered(_ entry: LedgerEntry, error: BankError, account: Account, last: Bool)
        async throws(AccountFailure) -> Bool
    {
        guard error.mayHaveActed else {
            if let reason = Self.needsAPerson(error, goalName: entry.goalName) {
                try records.hold(entry, reason: reason)
            }
            try? ledger.recordFailure(
                accountUid: entry.accountUid, weekEnd: entry.weekEnd, error: error.description, at: now())
            throw AccountFailure(
                ExitStatus(error),
                "\(error.description); the transfer is recorded as unconfirmed, and the next run looks for it in "
                    + "the feed and sends it only if it is not there")
        }
        let cause = error.description
        logger.warning(
            "\(entry.label): the bank may have carried out the transfer (\(cause)); looking in the feed first")
        let since = search.ownSearchStart(entry)
        var unread: String?
        for look in 1...2 {
            // Right after the request, an empty feed proves little: look again after a wait.
            if look == 2 { try? await Task.sleep(for: search.waits.feedRecheck) }
            let check: TransferCheck
            do {
                check = try await search.lookInFeed(for: entry, account: account, since: since)
            } catch {
                unread = error.message
                break
            }
            switch check {
            case .arrived(let found):
                try records.recordFound(found, for: entry)
                logger.notice("\(entry.label): the feed shows \(entry.amountText) arrived (\(found.described))")
                return true
            case .unclear(let reason):
                try records.hold(entry, reason: reason)
            case .absent:
                continue
            }
        }
        guard unread != nil || last else { return false }
        let why = unread.map { "the feed could not be read (\($0))" } ?? "its feed does not show it"
        try? ledger.recordFailure(
            accountUid: entry.accountUid, weekEnd: entry.weekEnd, error: "\(cause); \(why)", at: now())
        throw AccountFailure(
            ExitStatus(error),
            "\(cause); the bank may have carried it out and \(why), so it was not sent again: the next run looks "
                + "in the feed again and sends it only if it is not there")
    }

    /// Why the bank's refusal needs a person, or nil when it may pass (insufficient funds, a
    /// rate limit, no connection, a rejected token: each has its own exit code).
    static func needsAPerson(_ error: BankError, goalName: String?) -> String? {
        guard case .refused(_, let status, let messages) = error.underlying,
            !messages.contains("INSUFFICIENT_FUNDS")
        else { return nil }
        if messages.contains("UNKNOWN_SAVINGS_GOAL") {
            return "the goal \"\(goalName ?? "of this transfer")\" no longer exists (the bank answered "
                + "UNKNOWN_SAVINGS_GOAL); send the week to another goal with --redirect, or abandon it"
        }
        let said = messages.isEmpty ? "" : ": " + messages.joined(separator: "; ")
        return "the bank refused the transfer with HTTP \(status)\(said)"
    }
}
