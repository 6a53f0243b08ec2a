import Foundation
import RoundUp

/// The bank's endpoints as the emulator answers them, and the bodies it answers with.
extension EmulatedBank {
    func accounts() -> EmulatorResponse {
        let list = state.accounts.map {
            AccountBody(
                accountUid: $0.uid, accountType: $0.accountType, defaultCategory: $0.defaultCategory,
                currency: $0.currency, createdAt: "2020-01-06T09:30:00.000Z", name: $0.name)
        }
        return json(200, ["accounts": list])
    }

    func balance(accountUid: String) -> EmulatorResponse {
        guard let account = state.accounts.first(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        let amount = EmulatedAmount(account.currency, account.balance)
        return json(
            200,
            BalanceBody(
                clearedBalance: amount, effectiveBalance: amount,
                pendingTransactions: EmulatedAmount(account.currency, 0),
                acceptedOverdraft: EmulatedAmount(account.currency, account.arrangedOverdraft), amount: amount,
                totalClearedBalance: amount, totalEffectiveBalance: amount))
    }

    /// Whether the account can pay `targetAmountInMinorUnits`: available to spend counts
    /// the arranged overdraft; whether it would then be overdrawn does not.
    func confirmationOfFunds(accountUid: String, query: [String: String]) -> EmulatorResponse {
        guard let account = state.accounts.first(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        guard let text = query["targetAmountInMinorUnits"], let target = Int64(text), target >= 0 else {
            return errors(400, "INVALID_TARGET_AMOUNT")
        }
        let (left, overflow) = account.balance.subtractingReportingOverflow(target)
        let overdrawn = overflow || left < 0
        return json(
            200,
            FundsBody(
                requestedAmountAvailableToSpend: !overflow && left >= -account.arrangedOverdraft,
                accountWouldBeInOverdraftIfRequestedAmountSpent: overdrawn))
    }

    /// Every standing order of the account, whichever category pays it, as the bank lists
    /// them; a token with only `standing-order-own:read` sees none that the app made, and
    /// the emulator's are all the app's.
    func standingOrders(accountUid: String, categoryUid: String) -> EmulatorResponse {
        guard let account = state.accounts.first(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        guard account.defaultCategory == categoryUid || state.feeds[accountUid] != nil else {
            return errors(404, "UNKNOWN_CATEGORY")
        }
        let seesAll = state.scopes.contains("standing-order:read")
        return json(200, ["standingOrders": seesAll ? state.schedule.standingOrders[accountUid] ?? [] : []])
    }

    /// The next `count` (1 to 100, default 10) dates of one standing order.
    func upcomingPayments(accountUid: String, paymentOrderUid: String, query: [String: String]) -> EmulatorResponse {
        guard
            let order = state.schedule.standingOrders[accountUid]?.first(where: {
                $0.paymentOrderUid == paymentOrderUid
            })
        else { return errors(404, "UNKNOWN_PAYMENT_ORDER") }
        let count = query["count"].map { Int($0) } ?? 10
        guard let count, (1...100).contains(count) else { return errors(400, "INVALID_COUNT") }
        return json(
            200, ["nextPaymentDates": order.nextDates(count: min(count, behaviour.upcomingPaymentsListed ?? count))])
    }

    func mandates(accountUid: String) -> EmulatorResponse {
        guard state.accounts.contains(where: { $0.uid == accountUid }) else { return errors(404, "UNKNOWN_ACCOUNT") }
        return json(200, ["mandates": state.schedule.mandates[accountUid] ?? []])
    }

    /// The goal's recurring transfer; a goal without one is a 404, as the bank answers.
    func recurringTransfer(accountUid: String, goalUid: String) -> EmulatorResponse {
        guard state.goals[accountUid]?.contains(where: { $0.uid == goalUid }) == true else {
            return errors(404, "UNKNOWN_SAVINGS_GOAL")
        }
        guard let transfer = state.schedule.recurringTransfers[goalUid] else {
            return errors(404, "NO_RECURRING_TRANSFER")
        }
        return json(200, transfer)
    }

    func settledFeed(accountUid: String, query: [String: String]) -> EmulatorResponse {
        feed(accountUid: accountUid, query: query) { item in
            item.settlementTime.flatMap { Instant(iso8601: $0) }
        }
    }

    /// The feed items of one category of the account created (by transaction time) between
    /// the bounds, whatever their status: pending, declined and reversed items too.
    func categoryFeed(accountUid: String, categoryUid: String, query: [String: String]) -> EmulatorResponse {
        feed(accountUid: accountUid, query: query) { item in
            item.categoryUid == categoryUid ? item.transactionTime.flatMap { Instant(iso8601: $0) } : nil
        }
    }

    /// The account's feed items whose instant, by `instant` (nil leaves an item out), lies
    /// between the query's bounds.
    func feed(
        accountUid: String, query: [String: String], instant: (EmulatedFeedItem) -> Instant?
    ) -> EmulatorResponse {
        guard state.accounts.contains(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        guard let minText = query["minTransactionTimestamp"], let maxText = query["maxTransactionTimestamp"],
            let min = Instant(iso8601: minText), let max = Instant(iso8601: maxText)
        else {
            return errors(400, "minTransactionTimestamp and maxTransactionTimestamp must be ISO 8601 timestamps")
        }
        // Both bounds inclusive: the bank does not say, and the job must not depend on it.
        let now = bankNow()
        let items = (state.feeds[accountUid] ?? []).filter { item in
            guard let moment = instant(item), shownFrom[item.feedItemUid].map({ $0 <= now }) ?? true else {
                return false
            }
            return min <= moment && moment <= max
        }
        return json(200, ["feedItems": items])
    }

    /// The bank's own round-up for the account, as the spec's `RoundUpGoalResponse`: whether
    /// it is on (off when it was never set up), and, when on, the goal it saves into.
    func roundUp(accountUid: String) -> EmulatorResponse {
        guard let account = state.accounts.first(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        let active = account.nativeRoundUp ?? false
        let goal = RoundUpGoalBody(
            roundUpGoalUid: "5a1e0000-0000-4000-8000-" + String(account.uid.suffix(12)), roundUpMultiplier: 1,
            primaryCategoryUid: account.defaultCategory, activatedAt: "2026-01-05T09:00:00.000Z",
            activatedBy: "a0000000-0000-4000-8000-000000000001")
        let shown = active ? goal : nil
        let body =
            switch behaviour.roundUpAnswer {
            case .full: RoundUpBody(active: active, roundUpGoalDetails: shown)
            case .activeOnly: RoundUpBody(active: active)
            case .detailsOnly: RoundUpBody(roundUpGoalDetails: shown)
            case .goalOnly: RoundUpBody(roundUpGoal: shown)
            case .empty: RoundUpBody()
            }
        return json(200, body)
    }

    func goals(accountUid: String) -> EmulatorResponse {
        guard state.accounts.contains(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        var list = (state.goals[accountUid] ?? []).map { goal in goalBody(goal) }
        if scatter != nil { list.shuffle(using: &scatter!) }
        return json(200, ["savingsGoalList": list])
    }

    /// The account's spaces, as `GET /api/v2/account/{accountUid}/spaces` serves them: its
    /// goals that are not archived, each with where the app shows it (`sortOrder`), and no
    /// spending spaces.
    func spaces(accountUid: String) -> EmulatorResponse {
        guard state.accounts.contains(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        let goals = (state.goals[accountUid] ?? []).enumerated().filter { $0.element.state != "ARCHIVED" }.map {
            place, goal in
            OrderedGoalBody(goal: goalBody(goal), sortOrder: goal.sortOrder ?? place)
        }
        return json(200, SpacesBody(savingsGoals: goals, spendingSpaces: []))
    }

    /// One goal, as `GET …/savings-goals/{savingsGoalUid}` serves it.
    func goal(accountUid: String, goalUid: String) -> EmulatorResponse {
        guard state.accounts.contains(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        guard let goal = state.goals[accountUid]?.first(where: { $0.uid == goalUid }) else {
            return errors(404, "UNKNOWN_SAVINGS_GOAL")
        }
        return json(200, goalBody(goal))
    }

    /// A goal as the bank shows it; with a feed lag that goals' totals share, its total
    /// leaves out transfers the feed does not show yet.
    private func goalBody(_ goal: EmulatedGoal) -> GoalBody {
        let now = bankNow()
        var goal = goal
        goal.totalSaved -= unshownSaved.filter { $0.goalUid == goal.uid && now < $0.from }.reduce(0) {
            $0 + $1.minorUnits
        }
        return GoalBody(
            savingsGoalUid: goal.uid, name: goal.name,
            target: goal.target.map { EmulatedAmount(goal.currency, $0) },
            totalSaved: EmulatedAmount(goal.currency, goal.totalSaved),
            savedPercentage: goal.target.map { target in
                let (hundredfold, overflow) = goal.totalSaved.multipliedReportingOverflow(by: 100)
                return target > 0
                    ? Int(overflow ? Int64(Int32.max) : min(hundredfold / target, Int64(Int32.max))) : 0
            },
            state: servedState(goal))
    }

    func createGoal(accountUid: String, body: [UInt8]) -> EmulatorResponse {
        guard let account = state.accounts.first(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        guard let request = try? JSONDecoder().decode(CreateGoalBody.self, from: Data(body)) else {
            return errors(400, "INVALID_REQUEST_BODY")
        }
        guard !request.name.isEmpty, request.name.count <= 255 else { return errors(400, "INVALID_NAME") }
        guard request.currency == account.currency else { return errors(400, "CURRENCY_MISMATCH") }
        // Derived from the account and the goal's ordinal, so it does not depend on the order
        // in which concurrent requests arrive; never the uid of a goal the account has or had.
        let goals = state.goals[accountUid] ?? []
        var ordinal = goals.count
        var uid: String
        repeat {
            uid = TransferUID.uuidV5(
                namespace: Array(repeating: 0x42, count: 16), name: "goal \(accountUid) \(ordinal)")
            ordinal += 1
        } while deletedGoalUids.contains(uid) || goals.contains(where: { $0.uid == uid })
        state.goals[accountUid, default: []].append(
            EmulatedGoal(
                uid: uid, name: request.name, currency: request.currency, target: request.target?.minorUnits,
                state: behaviour.goalActivationDelay == nil ? "ACTIVE" : "CREATING", createdAt: bankNow()))
        return json(200, CreatedGoalBody(savingsGoalUid: uid, success: true))
    }

    func addMoney(accountUid: String, goalUid: String, transferUid: String, body: [UInt8]) -> EmulatorResponse {
        guard let accountIndex = state.accounts.firstIndex(where: { $0.uid == accountUid }) else {
            return errors(404, "UNKNOWN_ACCOUNT")
        }
        guard let goalIndex = state.goals[accountUid]?.firstIndex(where: { $0.uid == goalUid }) else {
            return errors(404, "UNKNOWN_SAVINGS_GOAL")
        }
        guard UUID(uuidString: transferUid) != nil else { return errors(400, "INVALID_TRANSFER_UID") }
        guard let request = try? JSONDecoder().decode(TopUpBody.self, from: Data(body)) else {
            return errors(400, "INVALID_REQUEST_BODY")
        }
        let amount = request.amount
        if let reference = request.reference, reference.count > 100 {
            return errors(400, "INVALID_REFERENCE")
        }
        if behaviour.deduplicatesTransfers, let done = state.transfers.first(where: { $0.transferUid == transferUid }) {
            // The same transfer again: answer as before, move nothing.
            guard done.accountUid == accountUid, done.goalUid == goalUid, done.amount == amount else {
                return errors(409, "TRANSFER_UID_ALREADY_USED")
            }
            return json(200, TransferBody(transferUid: transferUid, success: true))
        }
        // Without deduplication a used transfer uid is just another transfer.
        let goal = state.goals[accountUid]![goalIndex]
        let goalState = servedState(goal)
        guard goalState == "ACTIVE" else { return errors(400, "SAVINGS_GOAL_NOT_ACTIVE") }
        guard amount.minorUnits > 0 else { return errors(400, "AMOUNT_MUST_BE_POSITIVE") }
        guard amount.currency == goal.currency else { return errors(400, "CURRENCY_MISMATCH") }
        let payer = state.accounts[accountIndex]
        let (left, overflow) = payer.balance.subtractingReportingOverflow(amount.minorUnits)
        guard !overflow, left >= -payer.arrangedOverdraft else {
            return errors(400, "INSUFFICIENT_FUNDS")
        }
        state.accounts[accountIndex].balance -= amount.minorUnits
        state.goals[accountUid]![goalIndex].totalSaved += amount.minorUnits
        state.transfers.append(
            EmulatedTransfer(
                transferUid: transferUid, accountUid: accountUid, goalUid: goalUid, amount: amount,
                reference: request.reference))
        let moment = bankNow()
        let account = state.accounts[accountIndex]
        // Both sides, as the bank shows a move between categories: out of the account's main
        // category, and into the goal's own (a goal's uid is its category's).
        let status = behaviour.transfersUpcoming ? "UPCOMING" : "SETTLED"
        let settled = behaviour.transfersUpcoming ? nil : moment
        let madeOn = Week.localDate(of: moment, in: TimeZone(identifier: "UTC")!)
        let reference =
            behaviour.feedReference
            ? request.reference.map { behaviour.referenceRewording.apply(to: $0, madeOn: madeOn) } : nil
        let (out, into) = feedUids(account: accountIndex, accountUid: accountUid)
        if let lag = behaviour.feedLag {
            let shown = moment.adding(lag)
            shownFrom[out] = shown
            shownFrom[into] = shown
            if behaviour.goalTotalLags { unshownSaved.append((goalUid, amount.minorUnits, shown)) }
        }
        state.feeds[accountUid, default: []] += [
            EmulatedFeedItem(
                uid: out, categoryUid: account.defaultCategory, amount: amount, status: status,
                transactionTime: moment, settlementTime: settled, source: "INTERNAL_TRANSFER",
                counterPartyType: "CATEGORY",
                counterPartyUid: goalUid, counterPartyName: goal.name, reference: reference, spendingCategory: "SAVING"),
            EmulatedFeedItem(
                uid: into, categoryUid: goalUid, amount: amount, direction: "IN", status: status,
                transactionTime: moment, settlementTime: settled, source: "INTERNAL_TRANSFER",
                counterPartyType: "CATEGORY",
                counterPartyUid: account.defaultCategory, counterPartyName: account.name, reference: reference,
                spendingCategory: "SAVING"),
        ]
        return json(200, TransferBody(transferUid: transferUid, success: true))
    }

    // MARK: - Bodies

    /// The uids of a transfer's two feed items: numbered within the account, so that the
    /// same transfers give the same uids however the accounts' requests interleave.
    func feedUids(account index: Int, accountUid: String) -> (String, String) {
        let made = state.feeds[accountUid]?.count ?? 0
        let uid = { (number: Int) in String(format: "e%07x-0000-4000-8000-%012x", index + 1, number) }
        return (uid(made), uid(made + 1))
    }

    func json(_ status: Int, _ value: some Encodable) -> EmulatorResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(value)) ?? Data("{}".utf8)
        guard behaviour.upperCaseUids else { return EmulatorResponse(status: status, body: Array(body)) }
        let upper = String(decoding: body, as: UTF8.self).replacing(
            /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/
        ) { $0.output.uppercased() }
        return EmulatorResponse(status: status, body: Array(upper.utf8))
    }

    func errors(_ status: Int, _ message: String) -> EmulatorResponse {
        json(status, ErrorsBody(errors: [.init(message: message)], success: false))
    }

    func oauthError(_ status: Int, _ error: String, _ description: String) -> EmulatorResponse {
        json(status, ["error": error, "error_description": description])
    }

    func notFound(_ path: String) -> EmulatorResponse {
        errors(404, "No such endpoint: \(path)")
    }
}

struct IdentityBody: Encodable {
    var accountHolderUid = "a0be8f4a-faa9-40f8-a0b8-58205e722cd7"
    var expiresAt = "2099-01-01T00:00:00.000Z"
    var expiresInSeconds = 86_400
    var scopes: [String]
    var authenticated = true
}

private struct AccountBody: Encodable {
    var accountUid: String
    var accountType: String
    var defaultCategory: String
    var currency: String
    var createdAt: String
    var name: String
}

private struct FundsBody: Encodable {
    var requestedAmountAvailableToSpend: Bool
    var accountWouldBeInOverdraftIfRequestedAmountSpent: Bool
}

private struct BalanceBody: Encodable {
    var clearedBalance: EmulatedAmount
    var effectiveBalance: EmulatedAmount
    var pendingTransactions: EmulatedAmount
    var acceptedOverdraft: EmulatedAmount
    var amount: EmulatedAmount
    var totalClearedBalance: EmulatedAmount
    var totalEffectiveBalance: EmulatedAmount
}

/// Fields that are nil are left out.
private struct RoundUpBody: Encodable {
    var active: Bool?
    var roundUpGoal: RoundUpGoalBody?
    var roundUpGoalDetails: RoundUpGoalBody?
}

private struct RoundUpGoalBody: Encodable {
    var roundUpGoalUid: String
    var roundUpMultiplier: Int
    var primaryCategoryUid: String
    var activatedAt: String
    var activatedBy: String
}

private struct GoalBody: Encodable {
    var savingsGoalUid: String
    var name: String
    var target: EmulatedAmount?
    var totalSaved: EmulatedAmount
    var savedPercentage: Int?
    var state: String
}

/// A goal among an account's spaces: as the goals list shows it, with its place in the app.
private struct OrderedGoalBody: Encodable {
    var goal: GoalBody
    var sortOrder: Int

    func encode(to encoder: any Encoder) throws {
        try goal.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(sortOrder, forKey: .sortOrder)
    }

    private enum Keys: String, CodingKey { case sortOrder }
}

private struct SpacesBody: Encodable {
    var savingsGoals: [OrderedGoalBody]
    var spendingSpaces: [String]
}

private struct CreateGoalBody: Decodable {
    var name: String
    var currency: String
    var target: EmulatedAmount?
}

private struct CreatedGoalBody: Encodable {
    var savingsGoalUid: String
    var success: Bool
}

private struct TopUpBody: Decodable {
    var amount: EmulatedAmount
    var reference: String?
}

private struct TransferBody: Encodable {
    var transferUid: String
    var success: Bool
}

private struct ErrorsBody: Encodable {
    struct Detail: Encodable { var message: String }
    var errors: [Detail]
    var success: Bool
}
