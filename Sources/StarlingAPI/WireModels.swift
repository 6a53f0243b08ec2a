// The bank's JSON bodies, decoded tolerantly: unknown fields are ignored, and enumerated
// values (status, source, spending category…) stay strings, because the bank keeps adding
// new ones. Only what the job relies on is required. Every uid is read as a UUID, in its one
// spelling (`Uid.uuid`), whatever case the bank wrote it in; one that is not a UUID is bad
// data (`decodeUid`), save a feed item's own uid, whose payment is then left out.

import RoundUp

/// `{"currency": "GBP", "minorUnits": 2375}`.
public struct CurrencyAndAmount: Codable, Hashable, Sendable {
    public let currency: String
    public let minorUnits: Int64

    public init(currency: String, minorUnits: Int64) {
        self.currency = currency
        self.minorUnits = minorUnits
    }
}

/// `GET /api/v2/identity/token`.
public struct TokenIdentity: Decodable, Sendable {
    public let accountHolderUid: String?
    public let scopes: [String]
    public let expiresAt: String?
    public let authenticated: Bool?

    enum CodingKeys: String, CodingKey {
        case accountHolderUid, scopes, expiresAt, authenticated
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accountHolderUid = try container.decodeUidIfPresent(forKey: .accountHolderUid)
        scopes = try container.decode([String].self, forKey: .scopes)
        expiresAt = try container.decodeIfPresent(String.self, forKey: .expiresAt)
        authenticated = try container.decodeIfPresent(Bool.self, forKey: .authenticated)
    }
}

/// One entry of `GET /api/v2/accounts`.
public struct BankAccount: Decodable, Sendable, Equatable {
    public let accountUid: String
    public let defaultCategory: String
    public let currency: String
    public let name: String?
    public let accountType: String?

    enum CodingKeys: String, CodingKey {
        case accountUid, defaultCategory, currency, name, accountType
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accountUid = try container.decodeUid(forKey: .accountUid)
        defaultCategory = try container.decodeUid(forKey: .defaultCategory)
        currency = try container.decode(String.self, forKey: .currency)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        accountType = try container.decodeIfPresent(String.self, forKey: .accountType)
    }
}

struct AccountList: Decodable {
    let accounts: [BankAccount]
}

/// One item of the settled-transactions feed.
///
/// `Equatable` so that the stream's own parser and `JSONDecoder` can be checked to read an
/// item alike.
public struct FeedItem: Decodable, Equatable, Sendable {
    /// The item's identity as `Uid.identity` gives it: a UUID, lower-cased, empty when the
    /// bank sent none or one that is not a UUID.
    public let feedItemUid: String
    /// What the bank sent as the item's uid when that is not a UUID (`Uid.unreadable`).
    public let unreadableUid: String?
    public let categoryUid: String
    public let amount: CurrencyAndAmount
    public let direction: String
    public let status: String
    /// When the payment was made (every item has one; the category feed is queried by it).
    public let transactionTime: String?
    public let settlementTime: String?
    public let source: String?
    /// How a card was used (`CONTACTLESS`, `ONLINE`, `ATM` for a cash withdrawal…).
    public let sourceSubType: String?
    public let counterPartyType: String?
    /// For a transfer into a savings goal, the goal's uid.
    public let counterPartyUid: String?
    public let counterPartyName: String?
    public let spendingCategory: String?
    /// Whether the bank's own round-up feature acted on this item.
    public let hasBankRoundUp: Bool
    /// The item's reference: for a transfer this job made, the week it names, when the
    /// bank shows it (it does not document whether it does).
    public let reference: String?

    enum CodingKeys: String, CodingKey {
        case feedItemUid, categoryUid, amount, direction, status, transactionTime, settlementTime, source, sourceSubType
        case counterPartyType, counterPartyUid, counterPartyName, spendingCategory, roundUp, reference
    }

    /// Every property, with no defaults: a property added here then has to be given by
    /// every reader, `FeedDecoder`'s own parser included.
    init(
        feedItemUid: String, categoryUid: String, amount: CurrencyAndAmount, direction: String, status: String,
        transactionTime: String?, settlementTime: String?, source: String?, sourceSubType: String?,
        counterPartyType: String?,
        counterPartyUid: String?, counterPartyName: String?, spendingCategory: String?, hasBankRoundUp: Bool,
        reference: String?, unreadableUid: String?
    ) {
        self.feedItemUid = feedItemUid
        self.unreadableUid = unreadableUid
        self.categoryUid = categoryUid
        self.amount = amount
        self.direction = direction
        self.status = status
        self.transactionTime = transactionTime
        self.settlementTime = settlementTime
        self.source = source
        self.sourceSubType = sourceSubType
        self.counterPartyType = counterPartyType
        self.counterPartyUid = counterPartyUid
        self.counterPartyName = counterPartyName
        self.spendingCategory = spendingCategory
        self.hasBankRoundUp = hasBankRoundUp
        self.reference = reference
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // A payment's identity (`Uid.identity`); an item without one is left out by the plan,
        // not a reason to refuse the whole feed.
        let uid = (try? container.decodeIfPresent(String.self, forKey: .feedItemUid)) ?? nil
        feedItemUid = Uid.identity(uid)
        // A uid that is there but not text (a number, a list) is named as such.
        let present = try !container.isAbsentOrNull(.feedItemUid)
        let notText = uid == nil && present
        unreadableUid = notText ? Uid.notText : Uid.unreadable(uid, identity: feedItemUid)
        categoryUid = try container.decodeUid(forKey: .categoryUid)
        amount = try container.decode(CurrencyAndAmount.self, forKey: .amount)
        direction = try container.decode(String.self, forKey: .direction)
        status = try container.decode(String.self, forKey: .status)
        transactionTime = try container.decodeIfPresent(String.self, forKey: .transactionTime)
        settlementTime = try container.decodeIfPresent(String.self, forKey: .settlementTime)
        source = try container.decodeIfPresent(String.self, forKey: .source)
        sourceSubType = try container.decodeIfPresent(String.self, forKey: .sourceSubType)
        counterPartyType = try container.decodeIfPresent(String.self, forKey: .counterPartyType)
        counterPartyUid = try container.decodeUidIfPresent(forKey: .counterPartyUid)
        counterPartyName = try container.decodeIfPresent(String.self, forKey: .counterPartyName)
        spendingCategory = try container.decodeIfPresent(String.self, forKey: .spendingCategory)
        hasBankRoundUp = try !container.isAbsentOrNull(.roundUp)
        // Only ever used to rule a transfer out of a week: a reference that is not text is
        // none, rather than a reason to refuse the whole feed.
        reference = (try? container.decodeIfPresent(String.self, forKey: .reference)) ?? nil
    }
}

extension KeyedDecodingContainer {
    /// Whether `key` holds nothing: absent or `null`.
    fileprivate func isAbsentOrNull(_ key: Key) throws -> Bool {
        guard contains(key) else { return true }
        return try decodeNil(forKey: key)
    }
}

struct FeedItemList: Decodable {
    let feedItems: [FeedItem]
}

/// The coding path of a feed item, for describing its failures as `feedItems[3].amount`.
struct FeedItemsKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }

    static let items = FeedItemsKey(stringValue: "feedItems")
}

/// One of an account's savings goals.
public struct SavingsGoal: Decodable, Sendable {
    public let savingsGoalUid: String
    public let name: String
    public let target: CurrencyAndAmount?
    public let totalSaved: CurrencyAndAmount?
    /// ACTIVE, ARCHIVED, … Absent on older responses, which list only active goals.
    public let state: String?
    /// Where the app shows the goal among the account's spaces: `getSpaces` says it, the
    /// goals list does not.
    public let sortOrder: Int?

    enum CodingKeys: String, CodingKey {
        case savingsGoalUid, name, target, totalSaved, state, sortOrder
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        savingsGoalUid = try container.decodeUid(forKey: .savingsGoalUid)
        name = try container.decode(String.self, forKey: .name)
        target = try container.decodeIfPresent(CurrencyAndAmount.self, forKey: .target)
        totalSaved = try container.decodeIfPresent(CurrencyAndAmount.self, forKey: .totalSaved)
        state = try container.decodeIfPresent(String.self, forKey: .state)
        sortOrder = try container.decodeIfPresent(Int.self, forKey: .sortOrder)
    }
}

/// `getSpaces`' answer: the account's goals in the app's order (`sortOrder`). Its spending
/// spaces are not read.
struct SpaceList: Decodable {
    let savingsGoals: [SavingsGoal]
}

/// Whether the bank's own round-up feature is on for an account.
public enum NativeRoundUpState: String, Sendable {
    case active, inactive
    /// The bank's answer did not say: the feed's per-item `roundUp` field still shows
    /// each payment the feature rounded up.
    case unknown
}

/// `GET /api/v2/feed/account/{accountUid}/round-up`: the bank's own round-up. Every field
/// of the spec's `RoundUpGoalResponse` is optional, and its goal is named both
/// `roundUpGoal` and `roundUpGoalDetails`.
struct RoundUpGoalResponse: Decodable {
    let active: Bool?
    let roundUpGoal: RoundUpGoalDetails?

    /// `active` decides; without it, an answer naming a round-up goal means on; an answer
    /// with neither cannot tell.
    var state: NativeRoundUpState {
        if let active { return active ? .active : .inactive }
        return roundUpGoal != nil ? .active : .unknown
    }

    enum CodingKeys: String, CodingKey {
        case active, roundUpGoal, roundUpGoalDetails
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        active = try container.decodeIfPresent(Bool.self, forKey: .active)
        roundUpGoal =
            try container.decodeIfPresent(RoundUpGoalDetails.self, forKey: .roundUpGoalDetails)
            ?? container.decodeIfPresent(RoundUpGoalDetails.self, forKey: .roundUpGoal)
    }
}

struct RoundUpGoalDetails: Decodable {
    let roundUpGoalUid: String?

    enum CodingKeys: String, CodingKey {
        case roundUpGoalUid
    }

    init(from decoder: any Decoder) throws {
        roundUpGoalUid = try decoder.container(keyedBy: CodingKeys.self).decodeUidIfPresent(forKey: .roundUpGoalUid)
    }
}

struct SavingsGoalList: Decodable {
    let savingsGoalList: [SavingsGoal]
}

struct CreateSavingsGoalRequest: Encodable {
    let name: String
    let currency: String
    let target: CurrencyAndAmount?
}

struct CreateSavingsGoalResponse: Decodable {
    let savingsGoalUid: String
    let success: Bool?

    enum CodingKeys: String, CodingKey {
        case savingsGoalUid, success
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        savingsGoalUid = try container.decodeUid(forKey: .savingsGoalUid)
        success = try container.decodeIfPresent(Bool.self, forKey: .success)
    }
}

struct TopUpRequest: Encodable {
    let amount: CurrencyAndAmount
    /// What the saver sees on the transfer; at most 100 characters. Left out when nil.
    let reference: String?
}

/// `GET /api/v2/accounts/{accountUid}/balance`. Amounts are signed: an overdrawn account
/// has a negative balance. Only the effective balance (settled, less pending outgoing
/// payments) is relied on.
public struct AccountBalance: Decodable, Sendable {
    public let effectiveBalance: CurrencyAndAmount
    public let clearedBalance: CurrencyAndAmount?
}

/// `GET /api/v2/accounts/{accountUid}/confirmation-of-funds`. Both fields are optional in
/// the spec; a body with neither is not an answer (a garbled one, say) and fails to decode,
/// so that it is asked again rather than taken to hold the week's money back for good.
struct ConfirmationOfFunds: Decodable {
    let requestedAmountAvailableToSpend: Bool?
    let accountWouldBeInOverdraftIfRequestedAmountSpent: Bool?

    enum CodingKeys: String, CodingKey {
        case requestedAmountAvailableToSpend, accountWouldBeInOverdraftIfRequestedAmountSpent
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requestedAmountAvailableToSpend = try container.decodeIfPresent(
            Bool.self, forKey: .requestedAmountAvailableToSpend)
        accountWouldBeInOverdraftIfRequestedAmountSpent = try container.decodeIfPresent(
            Bool.self, forKey: .accountWouldBeInOverdraftIfRequestedAmountSpent)
        guard requestedAmountAvailableToSpend != nil || accountWouldBeInOverdraftIfRequestedAmountSpent != nil else {
            throw DecodingError.keyNotFound(
                CodingKeys.accountWouldBeInOverdraftIfRequestedAmountSpent,
                .init(codingPath: [], debugDescription: "neither of the answer's fields"))
        }
    }
}

/// The bank's answer to add-money.
public struct TransferResponse: Decodable, Sendable {
    public let transferUid: String
    public let success: Bool?

    enum CodingKeys: String, CodingKey {
        case transferUid, success
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        transferUid = try container.decodeUid(forKey: .transferUid)
        success = try container.decodeIfPresent(Bool.self, forKey: .success)
    }
}

/// Either of the bank's error shapes:
/// `{"errors":[{"message":…}],"success":false}` or `{"error":…,"error_description":…}`.
struct ErrorBody: Decodable {
    struct Detail: Decodable { let message: String? }
    let errors: [Detail]?
    let error: String?
    let errorDescription: String?

    enum CodingKeys: String, CodingKey {
        case errors, error
        case errorDescription = "error_description"
    }

    var messages: [String] {
        var result = (errors ?? []).compactMap(\.message)
        if let error { result.append(errorDescription.map { "\(error): \($0)" } ?? error) }
        return result
    }
}
