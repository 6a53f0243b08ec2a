import Logging
package import RoundUp
import RoundUpVocabulary
package import StarlingAPI

/// What one account's week is measured against before money moves, read once per account
/// per run: the effective balance, and what the bank has scheduled to leave the account
/// before payday (`Forecast`). The reads do not depend on each other and go side by side,
/// beside the week's feed.
package struct ForecastReader: Sendable {
    /// The scopes that let a token read the schedule, and what each shows.
    static let scheduleScopes: [(scope: String, shows: String)] = [
        ("standing-order:read", "standing orders"),
        ("mandate:read", "direct debits"),
        ("savings-goal-transfer:read", "goals' recurring transfers"),
    ]

    /// The most next dates asked for one standing order whose frequency is not known: the
    /// most the bank gives.
    static let nextDatesAsked = 100

    /// What a token with `scopes` cannot see of the schedule, in words ("direct debits
    /// (mandate:read)"); empty when it sees all of it.
    package static func unseen(scopes: Set<String>) -> [String] {
        scheduleScopes.filter { !scopes.contains($0.scope) }.map { "\($0.shows) (\($0.scope))" }
    }

    /// What is read for the week.
    package struct Reading: Sendable {
        package var balance: Money?
        package var forecast: Forecast?
        /// The account's goals, when the schedule's reads listed them: the goal resolver
        /// takes them rather than asking again.
        package var goals: [SavingsGoal]?

        package init(
            balance: Money? = nil, forecast: Forecast? = nil, goals: [SavingsGoal]? = nil
        ) {
            self.balance = balance
            self.forecast = forecast
            self.goals = goals
        }
    }

    package let bank: BankClient
    let memory: AccountMemory
    let logger: Logger

    /// The balance (when `needsBalance`) and the forecast (when `needsForecast`) for
    /// `account`, each read at most once per run; a failure to read either is the week's.
    package func read(
        _ account: Account, currency: Currency, horizon: Horizon, scopes: Set<String>, needsBalance: Bool,
        needsForecast: Bool
    ) async throws(AccountFailure) -> Reading {
        async let balance = AccountFailure.result { () async throws(AccountFailure) -> Money? in
            guard needsBalance else { return nil }
            if let known = memory.balance(of: account.uid) { return known }
            let read = try await bank.balance(of: account, in: currency)
            return memory.remember(balance: read, of: account.uid)
        }
        var reading = Reading()
        if needsForecast {
            if let known = memory.forecast(of: account.uid) {
                reading.forecast = known
            } else {
                let (forecast, goals) = try await schedule(
                    account, currency: currency, horizon: horizon, scopes: scopes)
                reading.forecast = memory.remember(forecast: forecast, of: account.uid)
                reading.goals = goals
            }
        }
        reading.balance = try await balance.get()
        return reading
    }

    /// What falls due from `account`'s main balance in `horizon`, and the account's goals
    /// as the bank listed them. Each list the token may read is asked for side by side.
    private func schedule(_ account: Account, currency: Currency, horizon: Horizon, scopes: Set<String>)
        async throws(AccountFailure) -> (Forecast, [SavingsGoal]?)
    {
        // Whether the token sees each part of the schedule, in `scheduleScopes`' order.
        let sees = ForecastReader.scheduleScopes.map { scopes.contains($0.scope) }
        async let orders = AccountFailure.result { () async throws(AccountFailure) -> [SchedulePlacement] in
            guard sees[0] else { return [] }
            return try await standingOrders(of: account, in: horizon)
        }
        async let mandates = AccountFailure.result { () async throws(AccountFailure) -> [SchedulePlacement] in
            guard sees[1] else { return [] }
            do throws(BankError) {
                return try await bank.mandates(accountUid: account.uid).map {
                    $0.placement(in: account, horizon: horizon)
                }
            } catch {
                return [try ForecastReader.refused("direct debits", error)]
            }
        }
        async let goalTransfers = AccountFailure.result {
            () async throws(AccountFailure) -> ([SchedulePlacement], [SavingsGoal]?) in
            guard sees[2] else { return ([], nil) }
            return try await recurringTransfers(of: account, in: horizon)
        }
        let (transfers, goals) = try await goalTransfers.get()
        var payments: [ScheduledPayment] = []
        var unplaced: [String] = []
        for placement in try await orders.get() + mandates.get() + transfers {
            switch placement {
            case .payments(let some): payments += some
            case .notCounted: continue
            case .unplaced(let why): unplaced.append(why)
            }
        }
        let forecast = Forecast(
            payments, in: horizon, currency: currency, unplaced: unplaced, unseen: ForecastReader.unseen(scopes: scopes)
        )
        return (forecast, goals)
    }

    /// The account's standing orders from its default category; the bank's next dates are
    /// asked only for an order that can fall due before the horizon ends and has no next
    /// date or a frequency not known.
    private func standingOrders(of account: Account, in horizon: Horizon) async throws(AccountFailure)
        -> [SchedulePlacement]
    {
        let list: [StandingOrder]
        do throws(BankError) {
            list = try await bank.standingOrders(accountUid: account.uid, categoryUid: account.defaultCategory)
        } catch {
            return [try ForecastReader.refused("standing orders", error)]
        }
        var part: [SchedulePlacement] = []
        for order in list {
            guard order.needsNextDates(in: account, horizon: horizon), let uid = order.paymentOrderUid else {
                part.append(order.placement(in: account, horizon: horizon))
                continue
            }
            let dates: [String]
            do throws(BankError) {
                dates = try await bank.upcomingPayments(
                    accountUid: account.uid, categoryUid: order.categoryUid ?? account.defaultCategory,
                    paymentOrderUid: uid, count: ForecastReader.nextDatesAsked)
            } catch {
                part.append(try ForecastReader.refused("the next dates of \(order.label)", error))
                continue
            }
            // Each date once, whatever the bank repeats.
            let parsed = Array(Set(dates.compactMap { LocalDate(iso: $0) })).sorted()
            guard dates.allSatisfy({ LocalDate(iso: $0) != nil }) else {
                part.append(.unplaced("\(order.label) (standing order): next dates the job cannot read"))
                continue
            }
            // The list is all there is before payday only when it reaches past the horizon
            // or the order ends first: the bank may list fewer dates than asked.
            part.append(order.placement(in: account, horizon: horizon, nextDates: parsed))
        }
        return part
    }

    /// Each of the account's goals' recurring transfer, one request per goal, side by side.
    /// Each answer travels with the goal it was asked for, whatever order they arrive in.
    private func recurringTransfers(of account: Account, in horizon: Horizon) async throws(AccountFailure)
        -> ([SchedulePlacement], [SavingsGoal]?)
    {
        let goals: [SavingsGoal]
        do {
            goals = try await bank.savingsGoals(accountUid: account.uid)
        } catch {
            throw ForecastReader.failure(error)
        }
        let live = goals.filter { !$0.isArchived }
        typealias Answer = (goal: SavingsGoal, result: Result<ScheduledSavingsPayment?, BankError>)
        let answers = await withTaskGroup(of: Answer.self) { group in
            for goal in live {
                group.addTask {
                    do throws(BankError) {
                        let transfer = try await bank.recurringTransfer(
                            accountUid: account.uid, goalUid: goal.savingsGoalUid)
                        return (goal, .success(transfer))
                    } catch {
                        return (goal, .failure(error))
                    }
                }
            }
            var answers: [Answer] = []
            for await answer in group { answers.append(answer) }
            // In the order the bank listed the goals, so that what is said comes out the same.
            let order = Dictionary(live.enumerated().map { ($1.savingsGoalUid, $0) }) { first, _ in first }
            return answers.sorted {
                order[$0.goal.savingsGoalUid, default: 0] < order[$1.goal.savingsGoalUid, default: 0]
            }
        }
        var part: [SchedulePlacement] = []
        for (goal, answer) in answers {
            switch answer {
            case .success(let transfer?): part.append(transfer.placement(goalName: goal.name, horizon: horizon))
            case .success(nil): continue
            case .failure(let error):
                part.append(try ForecastReader.refused("the recurring transfer into \(goal.name)", error))
            }
        }
        return (part, goals)
    }

    /// A list the token has the scope for and the bank refused (403, 404): the forecast
    /// cannot place what it holds. Any other failure is the week's (`failure`).
    static func refused(_ what: String, _ error: BankError) throws(AccountFailure) -> SchedulePlacement {
        switch error.underlying {
        case .tokenRejected(_, 403, _), .refused(_, 403, _): .unplaced("\(what): the bank refused it (HTTP 403)")
        case .refused(_, 404, _): .unplaced("\(what): the bank refused it (HTTP 404)")
        default: throw failure(error)
        }
    }

    /// The week's failure for a read that failed: a garbled answer is the account's bad
    /// data (65); anything that may pass leaves the week to the next run (69, 75).
    static func failure(_ error: BankError) -> AccountFailure {
        if case .malformedResponse = error.underlying {
            return AccountFailure(.dataError, "\(error.description); nothing was moved for this account")
        }
        return AccountFailure(
            ExitStatus(error), "the schedule could not be read: \(error.description); nothing was moved")
    }
}
