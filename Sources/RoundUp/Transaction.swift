/// One of the account holder's accounts, as the job needs it.
public struct Account: Hashable, Sendable {
    /// The bank's identifier for the account.
    public let uid: String
    /// The category that holds the account's main balance and its everyday spending.
    public let defaultCategory: String
    /// The account's ISO 4217 currency code, as the bank sent it.
    public let currencyCode: String
    /// The account's name, where the bank gives one.
    public let name: String?

    public init(uid: String, defaultCategory: String, currencyCode: String, name: String? = nil) {
        self.uid = uid
        self.defaultCategory = defaultCategory
        self.currencyCode = currencyCode
        self.name = name
    }
}

extension Account {
    /// How text output names an account: its name (else its uid) and currency, `Personal (GBP)`.
    public static func label(name: String?, uid: String, currencyCode: String) -> String {
        "\(printable(name ?? uid)) (\(printable(currencyCode)))"
    }

    /// This account as text output names it.
    public var label: String { Account.label(name: name, uid: uid, currencyCode: currencyCode) }
}

/// A settled-feed item, as the selection rule and the plan see it. Enumerated fields keep
/// the bank's raw strings, so that values the bank adds later pass through unharmed.
public struct Transaction: Hashable, Sendable {
    /// The payment's identity (`Uid.identity`): its feed item uid, empty when it has none.
    public let uid: String
    /// What the bank sent as the uid when it is not a UUID (`Uid.unreadable`): named in the
    /// warning that leaves the payment out, never used as an identity.
    public let unreadableUid: String?
    public let categoryUid: String
    public let minorUnits: Int64
    public let currencyCode: String
    public let direction: String
    public let status: String
    public let source: String?
    /// How a card was used; `ATM` for a cash withdrawal.
    public let sourceSubType: String?
    public let counterPartyType: String?
    public let counterPartyName: String?
    public let spendingCategory: String?
    public let settlementTime: Instant?
    /// The bank's own round-up feature already acted on this item (`roundUp` present).
    public let isRoundedUpByBank: Bool

    public init(
        uid: String, categoryUid: String, minorUnits: Int64, currencyCode: String,
        direction: String, status: String, source: String? = nil, sourceSubType: String? = nil,
        counterPartyType: String? = nil,
        counterPartyName: String? = nil, spendingCategory: String? = nil,
        settlementTime: Instant?, isRoundedUpByBank: Bool = false, unreadableUid: String? = nil
    ) {
        self.uid = uid
        self.unreadableUid = unreadableUid
        self.categoryUid = categoryUid
        self.minorUnits = minorUnits
        self.currencyCode = currencyCode
        self.direction = direction
        self.status = status
        self.source = source
        self.sourceSubType = sourceSubType
        self.counterPartyType = counterPartyType
        self.counterPartyName = counterPartyName
        self.spendingCategory = spendingCategory
        self.settlementTime = settlementTime
        self.isRoundedUpByBank = isRoundedUpByBank
    }
}
