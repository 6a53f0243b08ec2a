import RoundUp
import RoundUpVocabulary
import RoundUpWeek
import StarlingAPI

/// A week into several goals that an earlier run left with some of its transfers open.
extension TransferSender {
    /// Finishes `entry`'s open legs, and only those: each found in the one reading of the
    /// feed is recorded as arrived; then, unless one could be read more than one way (the
    /// week is held for a person), those the feed shows no sign of are measured together
    /// (`WeekMeasure.resend`) and sent again, each with its own transfer uid and amount. A
    /// leg that arrived is never sent again.
    func finishLegs(
        _ entry: AccountWeek, payments: [CountedTransaction], account: Account, week: Week, dryRun: Bool,
        scopes: Set<String>, found: inout AccountFindings
    ) async throws(AccountFailure) -> AccountOutcome {
        let open = entry.legs.filter { $0.status == .pending }
        let openPart = entry.view(of: open)
        let (looked, other, goalTotals) = try await lookBeforeSending(
            entry, legs: open, firstTime: false, payments: payments,
            amount: Money(minorUnits: openPart.minorUnits, currency: try currency(of: entry)), account: account,
            week: week, dryRun: dryRun)
        var arrived: [(leg: TransferLeg, found: FeedTransfer)] = []
        var absent: [TransferLeg] = []
        var unclear: String?
        for (leg, check) in looked {
            switch check {
            // A leg recorded but never sent has no transfer of its own in the feed.
            case .arrived(let transfer) where !leg.mayHaveBeenSent:
                unclear = unclear ?? TransferCheck.lookAlike(transfer, of: entry.view(of: leg))
            case .arrived(let transfer): arrived.append((leg, transfer))
            case .unclear(let reason): unclear = unclear ?? reason
            case .absent: absent.append(leg)
            }
        }
        let begun = "the transfers of \(entry.amountText) begun by an earlier run (\(entry.legWords))"
        let missing = entry.view(of: absent)
        let arrivedWords = arrived.map { "\(entry.words(of: [$0.leg])) arrived (\($0.found.described))" }
        if dryRun {
            if let unclear { return .wouldDo(TransferCheck.wouldHold(unclear)) }
            for leg in absent {
                let view = entry.view(of: leg)
                if let far = search.time.tooFar { return .wouldDo("a real run would send nothing: \(far)") }
                if let tooSoon = tooSoonToSendAgain(view, leg: leg) {
                    return .wouldDo("\(tooSoon): a real run would wait")
                }
                if let grew = Self.goalGrewReason(view, leg: leg) { return .wouldDo(TransferCheck.wouldHold(grew)) }
            }
            var parts = arrivedWords
            if !absent.isEmpty {
                let resend = try await measure.resend(missing, account: account, scopes: scopes, dryRun: true)
                if case .heldBack(let outcome, let forecast) = resend {
                    (found.balance, found.forecast) = (outcome, forecast)
                    parts.append("a real run would not send \(entry.words(of: absent)) again: \(outcome.note ?? "")")
                } else {
                    found.sentAgain = true
                    found.sentAgainAmount = Money(minorUnits: missing.minorUnits, currency: try currency(of: entry))
                    parts.append(
                        "the feed does not show \(entry.words(of: absent)); a real run would send "
                            + (absent.count == 1 ? "it" : "them") + " again with the same transfer uids")
                }
            }
            return .wouldDo(
                "of \(begun): " + parts.joined(separator: "; ")
                    + (arrived.isEmpty ? "" : "; a real run would record what arrived"))
        }
        // What arrived is recorded first: found once, it is never sent again.
        for (leg, transfer) in arrived { try records.recordFound(transfer, for: entry.view(of: leg), leg: leg) }
        if let unclear { try records.hold(entry, reason: unclear, otherLedger: other) }
        guard !absent.isEmpty else {
            return .alreadyTransferred("\(begun) arrived: \(arrivedWords.joined(separator: "; ")); nothing was sent")
        }
        for leg in absent {
            let view = entry.view(of: leg)
            if let tooSoon = tooSoonToSendAgain(view, leg: leg) {
                try? ledger.recordFailure(
                    accountUid: entry.accountUid, weekEnd: entry.weekEnd, leg: leg.index, error: tooSoon, at: now())
                throw AccountFailure(.temporaryFailure, "\(tooSoon): the next run looks again")
            }
            if let grew = Self.goalGrewReason(view, leg: leg) { try records.hold(entry, reason: grew) }
        }
        switch try await measure.resend(missing, account: account, scopes: scopes, dryRun: false) {
        case .heldBack(let outcome, let forecast):
            (found.balance, found.forecast) = (outcome, forecast)
            let note = try holdBack(missing, outcome, forecast)
            let kept = entry.doneLegs.isEmpty && arrived.isEmpty ? "" : "; what arrived stays in its goal"
            return .heldBack("\(entry.words(of: absent)), begun by an earlier run, was not sent again: \(note)\(kept)")
        case .fits(let forecast):
            found.forecast = forecast
        }
        for leg in absent {
            try await send(entry.view(of: leg), leg: leg, account: account, goalBefore: goalTotals[leg.index] ?? nil)
        }
        found.sentAgain = true
        found.sentAgainAmount = Money(minorUnits: missing.minorUnits, currency: try currency(of: entry))
        return .transferred("completed \(begun)")
    }

    /// The currency of `entry`'s week.
    private func currency(of entry: AccountWeek) throws(AccountFailure) -> Currency {
        guard let currency = Currency(code: entry.currency) else {
            throw AccountFailure(
                .dataError, "the ledger entry for this week has the unknown currency \(entry.currency)")
        }
        return currency
    }
}
