/// Why a feed item is not rounded up. Reports count left-out items by these reasons.
public enum Exclusion: String, CaseIterable, Codable, Sendable, CustomStringConvertible {
    case incoming = "incoming"
    case notSettled = "not-settled"
    case outsideWeek = "outside-week"
    case otherCategory = "other-category"
    case ownTransfer = "own-transfer"
    case roundedUpByBank = "rounded-up-by-bank"
    case notACardPayment = "not-a-card-payment"
    case excludedSource = "excluded-source"
    case excludedSpendingCategory = "excluded-spending-category"
    case countedEarlier = "counted-earlier"
    case repeated = "repeated"
    case noIdentity = "no-identity"

    public var description: String {
        switch self {
        case .incoming: "incoming"
        case .notSettled: "not settled"
        case .outsideWeek: "settled outside the week"
        case .otherCategory: "in a goal or space, not the main balance"
        case .ownTransfer: "a move between your own categories"
        case .roundedUpByBank: "already rounded up by Starling"
        case .notACardPayment: "not a card payment (spending: cards)"
        case .excludedSource: "source left out by config"
        case .excludedSpendingCategory: "spending category left out by config"
        case .countedEarlier: "already counted in another week"
        case .repeated: "the same payment again in the bank's answer"
        case .noIdentity: "no feed item uid to know it by, so it could not be kept from counting twice"
        }
    }
}

/// Which outgoing payments count: every one, or card payments only.
public enum Spending: String, CaseIterable, Hashable, Sendable {
    /// Every outgoing payment from the main balance.
    case all
    /// Card payments only: not cash withdrawals, direct debits, standing orders, payments
    /// or transfers to people, fees or loan repayments.
    case cards
}

extension Transaction {
    /// A payment made with a card at a merchant: a card source (`MASTER_CARD`, or another
    /// card network's `…_CARD` the bank may add), except a cash withdrawal at an ATM.
    public var isCardPayment: Bool {
        guard let source, source.hasSuffix("_CARD") else { return false }
        return sourceSubType != "ATM"
    }
}

/// Which settled-feed items count for the round-up: outgoing, settled within the week, on
/// the account's main balance, not a move between the holder's own categories, not
/// already rounded up by the bank, and not left out by configuration. (An item whose
/// amount is not in the account's currency is not left out but refused: the bank states
/// every amount in the account's currency, so such a feed cannot be trusted.)
public struct SelectionRule: Hashable, Sendable {
    /// Feed `source` values left out, e.g. `DIRECT_DEBIT`.
    public var excludedSources: Set<String>
    /// Feed `spendingCategory` values left out, e.g. `BILLS_AND_SERVICES`.
    public var excludedSpendingCategories: Set<String>
    /// Every outgoing payment, or card payments only.
    public var spending: Spending

    public init(
        excludedSources: Set<String> = [], excludedSpendingCategories: Set<String> = [], spending: Spending = .all
    ) {
        self.excludedSources = excludedSources
        self.excludedSpendingCategories = excludedSpendingCategories
        self.spending = spending
    }

    /// Nil when `transaction` counts; otherwise the first reason it does not.
    public func exclusion(of transaction: Transaction, in account: Account, week: Week) -> Exclusion? {
        guard transaction.direction == "OUT" else { return .incoming }
        guard transaction.status == "SETTLED", let settled = transaction.settlementTime else {
            return .notSettled
        }
        guard week.contains(settled) else { return .outsideWeek }
        guard transaction.categoryUid == account.defaultCategory else { return .otherCategory }
        guard transaction.source != "INTERNAL_TRANSFER", transaction.counterPartyType != "CATEGORY" else {
            return .ownTransfer
        }
        guard !transaction.isRoundedUpByBank else { return .roundedUpByBank }
        guard spending == .all || transaction.isCardPayment else { return .notACardPayment }
        if let source = transaction.source, excludedSources.contains(source) { return .excludedSource }
        if let category = transaction.spendingCategory, excludedSpendingCategories.contains(category) {
            return .excludedSpendingCategory
        }
        return nil
    }
}
