public import RoundUp
public import RoundUpVocabulary

/// What is known of one account's week when its outcome is decided: the week's round-up,
/// what the ledger holds, and the balance when a minimum balance makes it matter.
public struct AccountFacts: Sendable, Equatable {
    /// The week's round-up, after multiplier and cap.
    public var total: Money
    /// The ledger's entry for this account and week, if an earlier run decided it.
    public var recorded: LedgerEntry?
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
    public var dryRun: Bool

    public init(
        total: Money, recorded: LedgerEntry? = nil, minimum: MinimumBalance? = nil,
        balance: Money? = nil, overdraft: OverdraftGuard = .none, dryRun: Bool = false
    ) {
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
        self = policy == .allow ? .none : scopes.contains(WeeklyJob.fundsScope) ? .askBank : .balance
    }

    /// Why moving `amount` would take an account holding `balance` into overdraft, or nil.
    static func overdraws(moving amount: Money, balance: Money) -> String? {
        let (left, overflow) = balance.minorUnits.subtractingReportingOverflow(amount.minorUnits)
        return overflow || left < 0 ? "the balance of \(balance) would go below zero" : nil
    }

    /// Why moving `amount` would take the account into overdraft, as the bank answered, or nil.
    static func overdraws(moving amount: Money, funds: FundsAnswer) -> String? {
        switch funds {
        case .clear: nil
        case .overdraws: "the bank says moving \(amount) would overdraw the account"
        case .unsaid:
            "the bank's answer did not say whether moving \(amount) would overdraw the account, which counts as yes"
        }
    }
}

/// What the balance did to the week's round-up: a minimum balance, or keeping out of overdraft.
public struct BalanceOutcome: Sendable, Equatable {
    /// The effective balance, when it was read.
    public var balance: Money?
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
    case alreadyTransferred(LedgerEntry)
    /// An earlier run found nothing to move.
    case alreadyNothing(LedgerEntry)
    /// A person decided that this week's money is not to be moved.
    case abandoned(LedgerEntry)
    /// The week waits for a person (`roundup resolve`); runs leave it be.
    case held(LedgerEntry)
    /// An earlier run recorded a transfer whose outcome is not known: look for it in the
    /// feed, and send it again with the same transfer uid and amount only if it is not
    /// there (a dry run only says what it would do).
    case finishUnconfirmed(LedgerEntry)
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
        var outcome: BalanceOutcome?
        if let minimum = facts.minimum {
            guard let balance = facts.balance else { return .readBalance }
            outcome = minimum.outcome(total: facts.total, balance: balance)
        }
        let move = outcome?.move ?? facts.total
        guard move.minorUnits > 0 else { return .nothingToMove(outcome) }
        let overdraws: String?
        switch facts.overdraft {
        case .none:
            overdraws = nil
        case .balance:
            guard let balance = facts.balance else { return .readBalance }
            overdraws = OverdraftGuard.overdraws(moving: move, balance: balance)
        case .askBank:
            guard let funds = facts.funds, facts.fundsAsked == move else { return .confirmFunds(move) }
            overdraws = OverdraftGuard.overdraws(moving: move, funds: funds)
        }
        if let why = overdraws { return .nothingToMove(overdrawn(facts, outcome, why)) }
        return .transfer(amount: move, outcome)
    }

    /// All of the week's round-up held back, because moving what the minimum balance left
    /// would take the account into its overdraft (`why`, in words).
    private static func overdrawn(_ facts: AccountFacts, _ outcome: BalanceOutcome?, _ why: String) -> BalanceOutcome {
        BalanceOutcome(
            balance: facts.balance, minimum: outcome?.minimum,
            move: Money(minorUnits: 0, currency: facts.total.currency),
            heldBack: facts.total, note: "held back \(facts.total): \(why) (overdraft: avoid)")
    }
}

extension MinimumBalance {
    /// What this minimum does to `total` when the account holds `balance`, with the reason
    /// in words when it holds anything back.
    func outcome(total: Money, balance: Money) -> BalanceOutcome {
        let (move, heldBack) = apply(total: total, balance: balance)
        var outcome = BalanceOutcome(balance: balance, minimum: minimum, move: move, heldBack: heldBack)
        guard heldBack.minorUnits > 0 else { return outcome }
        outcome.note =
            if move.minorUnits > 0 {
                "reduced from \(total) to keep the balance of \(balance) at or above the minimum of \(minimum)"
            } else if balance.minorUnits <= minimum.minorUnits {
                "held back \(total): the balance of \(balance) is not above the minimum of \(minimum)"
            } else {
                "held back \(total): moving it would take the balance of \(balance) below the minimum of "
                    + "\(minimum) (belowMinimumBalance: skip)"
            }
        return outcome
    }
}
