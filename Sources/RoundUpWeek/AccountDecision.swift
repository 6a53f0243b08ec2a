public import RoundUp
import RoundUpHost
import RoundUpReports
public import RoundUpVocabulary

/// What is known of one account's week when its outcome is decided: the week's round-up,
/// what the ledger holds, and the balance when a minimum balance makes it matter.
public struct AccountFacts: Sendable, Equatable {
    /// The week's round-up, after multiplier and cap.
    public var total: Money
    /// The ledger's entry for this account and week, if an earlier run decided it.
    public var recorded: AccountWeek?
    /// The minimum balance configured for the account's currency, if any.
    public var minimum: MinimumBalance?
    /// The account's effective balance, once read; it is read only when the decision asks.
    public var balance: Money?
    /// How the transfer is kept out of the account's overdraft.
    public var overdraft: OverdraftGuard
    /// What the bank answered about moving `fundsAsked`.
    public var funds: FundsAnswer?
    /// The amount the bank was asked about.
    public var fundsAsked: Money?
    /// What the bank has scheduled to leave the account before payday, once read; nil when
    /// it is not counted (`upcomingPayments: ignore`, or no rule measures the balance).
    public var forecast: Forecast?
    /// What this run's earlier weeks moved from the account since the balance was read.
    public var movedEarlier: Money?
    public var dryRun: Bool
    /// The week's transfer was recorded by an earlier decision and is to be sent again: its
    /// amount moves in full or not at all, whatever `belowMinimumBalance` says.
    public var resend: Bool

    public init(
        total: Money, recorded: AccountWeek? = nil, minimum: MinimumBalance? = nil,
        balance: Money? = nil, overdraft: OverdraftGuard = .none, forecast: Forecast? = nil,
        movedEarlier: Money? = nil, dryRun: Bool = false, resend: Bool = false
    ) {
        self.resend = resend
        self.forecast = forecast
        self.movedEarlier = movedEarlier
        self.total = total
        self.recorded = recorded
        self.minimum = minimum
        self.balance = balance
        self.overdraft = overdraft
        self.dryRun = dryRun
    }
}

/// The bank's word on whether moving an amount would overdraw the account.
public enum FundsAnswer: Sendable, Equatable {
    case clear
    case overdraws
    /// The answer did not say, which counts as overdrawing.
    case unsaid

    public init(wouldOverdraw: Bool?) {
        self = wouldOverdraw.map { $0 ? .overdraws : .clear } ?? .unsaid
    }
}

/// How a week's transfer is kept out of the account's overdraft (`overdraft: avoid`).
public enum OverdraftGuard: Sendable, Equatable {
    /// Not at all (`overdraft: allow`).
    case none
    /// The bank is asked whether the amount would overdraw the account (confirmation of funds).
    case askBank
    /// The balance is read: what moves must leave it at zero or above.
    case balance
}

extension OverdraftGuard {
    /// The guard `policy` gives with the token's `scopes`: the bank asked when the token
    /// may, else the balance read.
    init(_ policy: Overdraft, scopes: Set<String>) {
        self = policy == .allow ? .none : scopes.contains(TokenScopes.fundsScope) ? .askBank : .balance
    }

    /// Why moving `amount` would take an account whose balance goes as low as `measure`
    /// says into overdraft, or nil.
    static func overdraws(moving amount: Money, _ measure: BalanceMeasure) -> String? {
        let (left, overflow) = measure.low.minorUnits.subtractingReportingOverflow(amount.minorUnits)
        return overflow || left < 0 ? "\(measure.words) would go below zero" : nil
    }

    /// Why moving `amount` would take the account into overdraft, as the bank answered about
    /// it with `due` (what falls due before payday), or nil.
    static func overdraws(moving amount: Money, due: Money?, funds: FundsAnswer) -> String? {
        let moving = due.map { "\(amount), with \($0) due before payday," } ?? "\(amount)"
        return switch funds {
        case .clear: nil
        case .overdraws: "the bank says moving \(moving) would overdraw the account"
        case .unsaid:
            "the bank's answer did not say whether moving \(moving) would overdraw the account, which counts as yes"
        }
    }
}

/// What the balance did to the week's round-up: a minimum balance, or keeping out of overdraft.
public struct BalanceOutcome: Sendable, Equatable {
    /// The effective balance, when it was read.
    public var balance: Money?
    /// The lowest the balance goes before payday, before this week's transfer: the balance
    /// less what falls due and what the run's earlier weeks moved. Nil when nothing did.
    public var lowPoint: Money?
    /// The minimum balance, when one is configured.
    public var minimum: Money?
    /// What may move: all of the round-up, part of it, or nothing.
    public var move: Money
    public var heldBack: Money
    /// Why less than the round-up moves; nil when all of it does.
    public var note: String?
}

/// The one thing to do for an account's week, decided from `AccountFacts` alone. The job
/// carries it out: reads, ledger writes and the transfer are its effects, never its inputs.
public enum AccountDecision: Sendable, Equatable {
    /// The balance must be read before the week can be decided.
    case readBalance
    /// The bank must be asked whether moving this amount would overdraw the account.
    case confirmFunds(Money)
    /// An earlier run moved this week's money.
    case alreadyTransferred(AccountWeek)
    /// An earlier run found nothing to move.
    case alreadyNothing(AccountWeek)
    /// A person decided that this week's money is not to be moved.
    case abandoned(AccountWeek)
    /// The week waits for a person (`roundup resolve`); runs leave it be.
    case held(AccountWeek)
    /// An earlier run recorded a transfer whose outcome is not known: look for it in the
    /// feed, and send it again with the same transfer uid and amount only if it is not
    /// there (a dry run only says what it would do).
    case finishUnconfirmed(AccountWeek)
    /// Nothing moves this week: no round-up, or the balance held all of it back.
    case nothingToMove(BalanceOutcome?)
    /// Move `amount` into the account's goal.
    case transfer(amount: Money, BalanceOutcome?)

    /// Decides the week from `facts`.
    public static func decide(_ facts: AccountFacts) -> AccountDecision {
        if let recorded = facts.recorded {
            switch recorded.status {
            case .done: return .alreadyTransferred(recorded)
            case .nothing: return .alreadyNothing(recorded)
            case .pending: return .finishUnconfirmed(recorded)
            case .held: return .held(recorded)
            case .abandoned: return .abandoned(recorded)
            }
        }
        guard facts.total.minorUnits > 0 else { return .nothingToMove(nil) }
        if let forecast = facts.forecast, !forecast.isComplete {
            return .nothingToMove(incomplete(facts, forecast))
        }
        var outcome: BalanceOutcome?
        if let minimum = facts.minimum {
            guard let measure = BalanceMeasure(facts) else { return .readBalance }
            outcome =
                facts.resend
                ? MinimumBalance(minimum: minimum.minimum, whenBelow: .skip).outcome(
                    total: facts.total, measure, skipped: AccountDecision.inFull)
                : minimum.outcome(total: facts.total, measure)
        }
        let move = outcome?.move ?? facts.total
        guard move.minorUnits > 0 else { return .nothingToMove(outcome) }
        let overdraws: String?
        switch facts.overdraft {
        case .none:
            overdraws = nil
        case .balance:
            guard let measure = BalanceMeasure(facts) else { return .readBalance }
            overdraws = OverdraftGuard.overdraws(moving: move, measure)
        case .askBank:
            // The bank's answer already counts what this run moved; what falls due it does
            // not, nor what a dry run's earlier weeks would have moved.
            let due = facts.forecast.map { Money(minorUnits: $0.dueMinorUnits, currency: move.currency) }
            let wouldHaveMoved = facts.dryRun ? facts.movedEarlier?.minorUnits ?? 0 : 0
            let asked = Money(
                minorUnits: Savings.add(Savings.add(move.minorUnits, due?.minorUnits ?? 0), wouldHaveMoved),
                currency: move.currency)
            guard let funds = facts.funds, facts.fundsAsked == asked else { return .confirmFunds(asked) }
            overdraws = OverdraftGuard.overdraws(
                moving: move, due: due.flatMap { $0.minorUnits > 0 ? $0 : nil }, funds: funds)
        }
        if let why = overdraws { return .nothingToMove(overdrawn(facts, outcome, why)) }
        return .transfer(amount: move, outcome)
    }

    /// Why a week sent again moves nothing rather than part of its amount.
    static let inFull = "a transfer sent again moves its recorded amount in full or not at all"

    /// All of the week's round-up held back, because what the bank has scheduled before
    /// payday could not all be seen.
    private static func incomplete(_ facts: AccountFacts, _ forecast: Forecast) -> BalanceOutcome {
        BalanceOutcome(
            balance: facts.balance, minimum: facts.minimum?.minimum,
            move: Money(minorUnits: 0, currency: facts.total.currency), heldBack: facts.total,
            note: "held back \(facts.total): forecast incomplete (\(incompleteWords(forecast.unplaced)))")
    }

    /// What could not be placed, in words: the first few, then how many more.
    private static func incompleteWords(_ unplaced: [String]) -> String {
        let shown = unplaced.prefix(5).joined(separator: "; ")
        return unplaced.count > 5 ? "\(shown); and \(unplaced.count - 5) more" : shown
    }

    /// All of the week's round-up held back, because moving what the minimum balance left
    /// would take the account into its overdraft (`why`, in words).
    private static func overdrawn(_ facts: AccountFacts, _ outcome: BalanceOutcome?, _ why: String) -> BalanceOutcome {
        BalanceOutcome(
            balance: facts.balance, lowPoint: BalanceMeasure(facts)?.lowPointIfLower, minimum: outcome?.minimum,
            move: Money(minorUnits: 0, currency: facts.total.currency),
            heldBack: facts.total, note: "held back \(facts.total): \(why) (overdraft: avoid)")
    }
}

/// The balance a week's transfer is measured against: the effective balance read once per
/// run, less what falls due before payday and what the run's earlier weeks moved.
struct BalanceMeasure {
    package let balance: Money
    let low: Money
    let due: Money
    let moved: Money
    let horizon: Horizon?

    /// The measure of `facts`, or nil until the balance is read.
    init?(_ facts: AccountFacts) {
        guard let balance = facts.balance else { return nil }
        let zero = Money(minorUnits: 0, currency: balance.currency)
        self.balance = balance
        moved = facts.movedEarlier ?? zero
        horizon = facts.forecast?.horizon
        due = Money(minorUnits: facts.forecast?.dueMinorUnits ?? 0, currency: balance.currency)
        low = Forecast.lowPoint(balance: balance, due: due, movedEarlier: moved)
    }

    /// Today's balance alone.
    init(balance: Money) {
        let zero = Money(minorUnits: 0, currency: balance.currency)
        (self.balance, low, due, moved, horizon) = (balance, balance, zero, zero, nil)
    }

    /// The low point, when anything takes it below the balance.
    var lowPointIfLower: Money? { low == balance ? nil : low }

    /// "the balance of 12.00 GBP", or, when anything falls due or was moved, "the low point
    /// of 2.00 GBP before payday on Fri 4 Dec (the balance of 12.00 GBP, less 10.00 GBP due)".
    var words: String {
        guard low != balance else { return "the balance of \(balance)" }
        var less: [String] = []
        if due.minorUnits > 0 { less.append("\(due) due") }
        if moved.minorUnits > 0 { less.append("\(moved) moved by this run's earlier weeks") }
        let before =
            horizon.map { horizon in
                horizon.payday.map {
                    " before payday on \($0.weekdayDayAndMonth)"
                        + ($0 == horizon.end ? "" : " (through \(horizon.end.weekdayDayAndMonth))")
                } ?? " through \(horizon.end.weekdayDayAndMonth)"
            } ?? ""
        return "the low point of \(low)\(before) (the balance of \(balance), less \(less.joined(separator: ", less ")))"
    }
}

extension MinimumBalance {
    /// What this minimum does to `total` when the account's balance goes as low as `measure`
    /// says, with the reason in words when it holds anything back.
    func outcome(total: Money, _ measure: BalanceMeasure, skipped: String = "belowMinimumBalance: skip")
        -> BalanceOutcome
    {
        let (move, heldBack) = apply(total: total, balance: measure.low)
        var outcome = BalanceOutcome(
            balance: measure.balance, lowPoint: measure.lowPointIfLower, minimum: minimum, move: move,
            heldBack: heldBack)
        guard heldBack.minorUnits > 0 else { return outcome }
        outcome.note =
            if move.minorUnits > 0 {
                "reduced from \(total) to keep \(measure.words) at or above the minimum of \(minimum)"
            } else if measure.low.minorUnits <= minimum.minorUnits {
                "held back \(total): \(measure.words) is not above the minimum of \(minimum)"
            } else {
                "held back \(total): moving it would take \(measure.words) below the minimum of "
                    + "\(minimum) (\(skipped))"
            }
        return outcome
    }
}

extension ForecastSummary {
    /// The ledger's summary of `forecast`, with the low point `outcome` measured; nil
    /// without a forecast.
    package init?(_ forecast: Forecast?, _ outcome: BalanceOutcome?) {
        guard let forecast else { return nil }
        self.init(
            through: forecast.horizon.end, payday: forecast.horizon.payday, payments: forecast.due.count,
            dueMinorUnits: forecast.dueMinorUnits,
            lowPointMinorUnits: (outcome?.lowPoint ?? outcome?.balance)?.minorUnits)
    }
}
