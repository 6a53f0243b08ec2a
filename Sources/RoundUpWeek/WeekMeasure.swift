package import Logging
package import RoundUp
package import RoundUpHost
import RoundUpLedger
package import RoundUpVocabulary
package import StarlingAPI

/// How much of a week's money the account can spare: what it is measured against (the
/// balance and what falls due before payday, read once per account per run) and the
/// decision on it, asking the bank for the balance or its word on the amount when the
/// decision needs them. A week decided for the first time and a recorded transfer about
/// to be sent again are measured the same way.
package struct WeekMeasure: Sendable {
    package let bank: BankClient
    let rules: RuleSettings
    /// What the run has learnt of each account: the balance and forecast read once, and what
    /// its earlier weeks moved.
    let memory: AccountMemory
    let logger: Logger
    let now: @Sendable () -> Instant

    package init(
        bank: BankClient, rules: RuleSettings, memory: AccountMemory, logger: Logger,
        now: @escaping @Sendable () -> Instant
    ) {
        self.bank = bank
        self.rules = rules
        self.memory = memory
        self.logger = logger
        self.now = now
    }

    /// The balance and the forecast `account`'s week is measured against, when a rule
    /// measures it (a minimum balance in its currency, or keeping out of overdraft); nothing
    /// otherwise.
    package func read(_ account: Account, scopes: Set<String>) async throws(AccountFailure) -> ForecastReader.Reading {
        guard let currency = Currency(code: account.currencyCode) else { return ForecastReader.Reading() }
        let minimum = rules.minimumBalances[currency.code] != nil
        let guarded = OverdraftGuard(rules.overdraft, scopes: scopes)
        let needsForecast = rules.upcomingPayments == .count && (minimum || guarded != .none)
        let needsBalance = minimum || guarded == .balance
        guard needsForecast || needsBalance else { return ForecastReader.Reading() }
        let today = Week.localDate(of: now(), in: rules.timeZone)
        return try await ForecastReader(bank: bank, memory: memory, logger: logger).read(
            account, currency: currency, horizon: Horizon(today: today, payday: rules.payday), scopes: scopes,
            needsBalance: needsBalance, needsForecast: needsForecast)
    }

    /// The facts of `account`'s week of `total`, as far as `reading` has them.
    package func facts(
        total: Money, account: Account, scopes: Set<String>, reading: ForecastReader.Reading, recorded: AccountWeek?,
        dryRun: Bool, resend: Bool = false
    ) -> AccountFacts {
        AccountFacts(
            total: total, recorded: recorded, minimum: rules.minimumBalances[total.currency.code],
            balance: reading.balance, overdraft: OverdraftGuard(rules.overdraft, scopes: scopes),
            forecast: reading.forecast, movedEarlier: memory.moved(from: account.uid, in: total.currency),
            dryRun: dryRun, resend: resend)
    }

    /// What to do with the week, as `AccountDecision.decide` says once it has the facts it
    /// asks for: the balance, then the bank's word on the amount, each at most once.
    package func decide(_ facts: AccountFacts, account: Account) async throws(AccountFailure) -> AccountDecision {
        var facts = facts
        var decision = AccountDecision.decide(facts)
        for _ in 1...2 {
            if decision == .readBalance, facts.balance == nil {
                let read = try await bank.balance(of: account, in: facts.total.currency)
                facts.balance = memory.remember(balance: read, of: account.uid)
            } else if case .confirmFunds(let amount) = decision, facts.fundsAsked != amount {
                facts.funds = FundsAnswer(wouldOverdraw: try await bank.wouldOverdraw(account, amount))
                facts.fundsAsked = amount
            } else {
                break
            }
            decision = AccountDecision.decide(facts)
        }
        return decision
    }

    /// Whether `entry`'s recorded transfer still fits, measured now as a fresh decision
    /// would be: what falls due before payday, what this run already moved, the minimum
    /// balance and the overdraft, and the bank's word on the amount with what falls due. The
    /// recorded amount is never changed: it fits in full, or the week is held back.
    package func resend(_ entry: AccountWeek, account: Account, scopes: Set<String>, dryRun: Bool)
        async throws(AccountFailure) -> Resend
    {
        guard let currency = Currency(code: entry.currency) else {
            throw AccountFailure(
                .dataError, "the ledger entry for this week has the unknown currency \(entry.currency)")
        }
        let amount = Money(minorUnits: entry.minorUnits, currency: currency)
        let reading = try await read(account, scopes: scopes)
        let decision = try await decide(
            facts(
                total: amount, account: account, scopes: scopes, reading: reading, recorded: nil, dryRun: dryRun,
                resend: true),
            account: account)
        switch decision {
        case .transfer(let moving, _) where moving == amount:
            return .fits(reading.forecast)
        case .nothingToMove(let outcome?) where outcome.note != nil:
            return .heldBack(outcome, reading.forecast)
        case .readBalance, .confirmFunds:
            throw AccountFailure(
                .temporaryFailure, "the balance could not be taken into account; nothing was sent again")
        default:
            // A decision that moves part of it, or nothing without saying why, never happens
            // for a recorded amount sent again; nothing is sent on it.
            throw AccountFailure(
                .dataError, "measuring the transfer of \(amount) again gave no clear answer; nothing was sent again")
        }
    }

    /// Whether a recorded transfer may be sent again.
    package enum Resend {
        /// It fits in full: send it. The forecast it was measured against, when one was read.
        case fits(Forecast?)
        /// It no longer fits: the week ends held back, for the outcome's reason.
        case heldBack(BalanceOutcome, Forecast?)
    }
}
