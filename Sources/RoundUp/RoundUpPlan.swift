public import Foundation

/// How much a week's round-ups turn into a transfer.
public struct RoundUpPolicy: Hashable, Sendable {
    /// Multiplies the week's round-ups: 1 saves the spare change, 10 saves ten times it.
    public let multiplier: Int
    /// The most to move in one week, in major units, per currency code.
    public let weeklyCaps: [String: Decimal]

    /// A payment of a whole amount (12.00) saves a full unit instead of nothing. Off by
    /// default; a payment of zero saves nothing either way.
    public let wholeAmountsSaveAUnit: Bool

    /// Each payment is rounded up to the next multiple of this many major units: 1 saves
    /// the spare change to the next pound, 5 to the next five pounds (£3.20 saves £1.80).
    public let roundTo: Int

    /// The multipliers the policy accepts.
    public static let multipliers = 1...10
    /// The steps `roundTo` accepts.
    public static let steps = [1, 2, 5, 10]

    public init(
        multiplier: Int = 1, weeklyCaps: [String: Decimal] = [:], wholeAmountsSaveAUnit: Bool = false, roundTo: Int = 1
    ) throws(PolicyError) {
        guard RoundUpPolicy.multipliers.contains(multiplier) else { throw .multiplierOutOfRange(multiplier) }
        guard RoundUpPolicy.steps.contains(roundTo) else { throw .roundToNotAStep(roundTo) }
        for (code, cap) in weeklyCaps where cap < 0 { throw .negativeCap(currency: code) }
        self.multiplier = multiplier
        self.weeklyCaps = weeklyCaps
        self.wholeAmountsSaveAUnit = wholeAmountsSaveAUnit
        self.roundTo = roundTo
    }
}

/// A policy that cannot be applied.
public enum PolicyError: Error, Equatable, Sendable, CustomStringConvertible {
    case multiplierOutOfRange(Int)
    case negativeCap(currency: String)
    case roundToNotAStep(Int)

    public var description: String {
        switch self {
        case .multiplierOutOfRange(let value): "multiplier must be from 1 to 10, not \(value)"
        case .negativeCap(let code): "the weekly cap for \(code) must not be negative"
        case .roundToNotAStep(let value): "roundTo must be 1, 2, 5 or 10, not \(value)"
        }
    }
}

/// A counted payment and what it rounds up by: what a report shows of it, and no more,
/// since a busy week counts a hundred thousand of them. The one value of a counted payment
/// from the plan to the report, through the ledger (which gives it back for a report
/// written later).
public struct CountedTransaction: Hashable, Sendable {
    /// The bank's feed item uid.
    public var uid: String
    /// When it settled; a counted payment always has a time, and the report writes "" for
    /// one without.
    public var settlementTime: Instant?
    public var counterPartyName: String?
    public var amount: Money
    public var roundUp: Money
    /// Where it came from; nil when not known (a week written later from the ledger).
    public var source: PaymentSource?

    public init(
        uid: String, settlementTime: Instant?, counterPartyName: String?, amount: Money, roundUp: Money,
        source: PaymentSource? = nil
    ) {
        self.source = source
        self.uid = uid
        self.settlementTime = settlementTime
        self.counterPartyName = counterPartyName
        self.amount = amount
        self.roundUp = roundUp
    }
}

/// A feed item the week did not count, and why.
public struct LeftOutTransaction: Hashable, Sendable {
    public let uid: String
    /// For a payment left out for want of an identity, what the bank sent as its uid when
    /// that is not a UUID (`Transaction.unreadableUid`).
    public let unreadableUid: String?
    public let settlementTime: Instant?
    public let counterPartyName: String?
    public let amount: Money
    public let reason: Exclusion
    /// Where it came from.
    public let source: PaymentSource?

    public init(
        uid: String, settlementTime: Instant?, counterPartyName: String?, amount: Money, reason: Exclusion,
        source: PaymentSource? = nil, unreadableUid: String? = nil
    ) {
        self.source = source
        self.uid = uid
        self.unreadableUid = unreadableUid
        self.settlementTime = settlementTime
        self.counterPartyName = counterPartyName
        self.amount = amount
        self.reason = reason
    }
}

/// One account's round-up for one week: what counted, what was left out and why, and the
/// amount to move. Pure: the same inputs always give the same plan.
public struct RoundUpPlan: Sendable {
    public let account: Account
    public let currency: Currency
    public let week: Week
    /// Counted transactions in the order the feed gave them.
    public let counted: [CountedTransaction]
    /// How many feed items were left out, by reason.
    public let leftOut: [Exclusion: Int]
    /// The sum of the counted round-ups, before multiplier and cap.
    public let roundUpSum: Money
    public let multiplier: Int
    /// The step each payment was rounded up to, in major units.
    public let roundTo: Int
    /// The weekly cap that applied, if the total was larger than it.
    public let capApplied: Money?
    /// What to move into the savings goal.
    public let total: Money

    /// Payments that would have counted but were counted in another week already.
    public let countedEarlier: [CountedTransaction]

    /// Every other feed item left out, with its reason, in the order the feed gave them.
    public let leftOutItems: [LeftOutTransaction]

    /// Plans `account`'s round-up for `week` from its settled feed. A payment in
    /// `alreadyCounted` (the feed item uids the account's other weeks counted) is left out,
    /// and so is a payment the feed gives twice: each payment is rounded up once.
    public init(
        account: Account, feed: [Transaction], week: Week, rule: SelectionRule, policy: RoundUpPolicy,
        alreadyCounted: Set<String> = []
    ) throws(PlanError) {
        guard let currency = Currency(code: account.currencyCode) else {
            throw .unknownCurrency(account.currencyCode)
        }
        var counted: [CountedTransaction] = []
        counted.reserveCapacity(feed.count)
        var leftOut: [Exclusion: Int] = [:]
        var countedEarlier: [CountedTransaction] = []
        var leftOutItems: [LeftOutTransaction] = []
        let leave = { (transaction: Transaction, reason: Exclusion) in
            leftOut[reason, default: 0] += 1
            leftOutItems.append(
                LeftOutTransaction(
                    uid: transaction.uid, settlementTime: transaction.settlementTime,
                    counterPartyName: transaction.counterPartyName,
                    amount: Money(minorUnits: transaction.minorUnits, currency: currency), reason: reason,
                    source: transaction.paymentSource, unreadableUid: transaction.unreadableUid))
        }
        var seen = Set<String>(minimumCapacity: feed.count)
        var sum = Decimal(0)
        for transaction in feed {
            guard transaction.minorUnits >= 0 else {
                throw .negativeAmount(transactionUid: transaction.uid, minorUnits: transaction.minorUnits)
            }
            guard transaction.currencyCode == account.currencyCode else {
                throw .currencyMismatch(
                    transactionUid: transaction.uid, currency: transaction.currencyCode, account: account.currencyCode)
            }
            if let reason = rule.exclusion(of: transaction, in: account, week: week) {
                leave(transaction, reason)
                continue
            }
            // A payment is its feed item uid: without one it could not be kept from counting twice.
            guard !transaction.uid.isEmpty else {
                leave(transaction, .noIdentity)
                continue
            }
            guard seen.insert(transaction.uid).inserted else {
                leave(transaction, .repeated)
                continue
            }
            let amount = Money(minorUnits: transaction.minorUnits, currency: currency)
            let roundUp = RoundUpArithmetic.roundUp(
                of: amount.amount, step: policy.roundTo, wholeSavesAUnit: policy.wholeAmountsSaveAUnit)
            let payment = CountedTransaction(
                uid: transaction.uid, settlementTime: transaction.settlementTime,
                counterPartyName: transaction.counterPartyName, amount: amount,
                roundUp: try RoundUpPlan.money(roundUp, currency), source: transaction.paymentSource)
            guard !alreadyCounted.contains(transaction.uid) else {
                leftOut[.countedEarlier, default: 0] += 1
                countedEarlier.append(payment)
                continue
            }
            sum += roundUp
            counted.append(payment)
        }
        var total = sum * Decimal(policy.multiplier)
        var capApplied: Money?
        if let cap = policy.weeklyCaps[currency.code], total > cap {
            let capMoney = try RoundUpPlan.money(cap, currency)
            total = capMoney.amount
            capApplied = capMoney
        }
        self.account = account
        self.currency = currency
        self.week = week
        self.counted = counted
        self.countedEarlier = countedEarlier
        self.leftOutItems = leftOutItems
        self.leftOut = leftOut
        self.roundUpSum = try RoundUpPlan.money(sum, currency)
        self.multiplier = policy.multiplier
        self.roundTo = policy.roundTo
        self.capApplied = capApplied
        self.total = try RoundUpPlan.money(total, currency)
    }

    private static func money(_ amount: Decimal, _ currency: Currency) throws(PlanError) -> Money {
        do {
            return try Money(amount: amount, currency: currency)
        } catch {
            throw .arithmetic(error)
        }
    }
}

/// Why an account's week cannot be planned.
public enum PlanError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownCurrency(String)
    case negativeAmount(transactionUid: String, minorUnits: Int64)
    case currencyMismatch(transactionUid: String, currency: String, account: String)
    case arithmetic(MoneyError)

    public var description: String {
        switch self {
        case .unknownCurrency(let code):
            "the account's currency '\(code)' is not an ISO 4217 currency with minor units"
        case .negativeAmount(let uid, let minor):
            "feed item \(uid) has a negative amount (\(minor) minor units); the bank sends amounts unsigned"
        case .currencyMismatch(let uid, let currency, let accountCurrency):
            "feed item \(uid) is in '\(currency.prefix(12))', but the account is in \(accountCurrency); "
                + "the bank states feed amounts in the account's currency"
        case .arithmetic(let error):
            error.description
        }
    }
}
