public import RoundUp

/// Money as the bank writes it.
public struct EmulatedAmount: Codable, Hashable, Sendable {
    public var currency: String
    public var minorUnits: Int64

    public init(_ currency: String, _ minorUnits: Int64) {
        self.currency = currency
        self.minorUnits = minorUnits
    }
}

/// An account the emulated bank holds.
public struct EmulatedAccount: Hashable, Sendable {
    public var uid: String
    public var defaultCategory: String
    public var currency: String
    public var name: String
    /// The main balance in minor units; add-money takes from it.
    public var balance: Int64
    /// `PRIMARY`, `ADDITIONAL`, `LOAN` or `FIXED_TERM_DEPOSIT`.
    public var accountType: String
    /// The bank's own round-up: nil if it was never set up (its endpoint answers that it is
    /// not active), else whether it is switched on.
    public var nativeRoundUp: Bool?
    /// The arranged overdraft in minor units: how far below zero the balance may go,
    /// add-money included.
    public var arrangedOverdraft: Int64

    public init(
        uid: String, defaultCategory: String, currency: String, name: String, balance: Int64,
        accountType: String = "PRIMARY", nativeRoundUp: Bool? = nil, arrangedOverdraft: Int64 = 0
    ) {
        self.uid = uid
        self.defaultCategory = defaultCategory
        self.currency = currency
        self.name = name
        self.balance = balance
        self.accountType = accountType
        self.nativeRoundUp = nativeRoundUp
        self.arrangedOverdraft = arrangedOverdraft
    }
}

/// A feed item as the bank serves it; nil fields are left out of the JSON.
public struct EmulatedFeedItem: Codable, Hashable, Sendable {
    public struct RoundUp: Codable, Hashable, Sendable {
        public var goalCategoryUid: String
        public var amount: EmulatedAmount

        public init(goalCategoryUid: String, amount: EmulatedAmount) {
            self.goalCategoryUid = goalCategoryUid
            self.amount = amount
        }
    }

    public var feedItemUid: String
    public var categoryUid: String
    public var amount: EmulatedAmount
    public var sourceAmount: EmulatedAmount?
    public var direction: String
    public var updatedAt: String?
    public var transactionTime: String?
    public var settlementTime: String?
    public var source: String?
    public var sourceSubType: String?
    public var status: String
    public var counterPartyType: String?
    public var counterPartyUid: String?
    public var counterPartyName: String?
    public var reference: String?
    public var country: String?
    public var spendingCategory: String?
    public var roundUp: RoundUp?

    public init(
        uid: String, categoryUid: String, amount: EmulatedAmount, sourceAmount: EmulatedAmount? = nil,
        direction: String = "OUT", status: String = "SETTLED", transactionTime: Instant,
        settlementTime: Instant?, source: String? = "MASTER_CARD", sourceSubType: String? = nil,
        counterPartyType: String? = "MERCHANT", counterPartyUid: String? = nil, counterPartyName: String,
        reference: String? = nil, country: String? = "GB", spendingCategory: String? = nil,
        roundUp: RoundUp? = nil
    ) {
        self.feedItemUid = uid
        self.categoryUid = categoryUid
        self.amount = amount
        self.sourceAmount = sourceAmount ?? amount
        self.direction = direction
        self.updatedAt = (settlementTime ?? transactionTime).iso8601
        self.transactionTime = transactionTime.iso8601
        self.settlementTime = settlementTime?.iso8601
        self.source = source
        self.sourceSubType = sourceSubType
        self.status = status
        self.counterPartyType = counterPartyType
        self.counterPartyUid = counterPartyUid
        self.counterPartyName = counterPartyName
        self.reference = reference
        self.country = country
        self.spendingCategory = spendingCategory
        self.roundUp = roundUp
    }
}

/// A savings goal of an account.
public struct EmulatedGoal: Hashable, Sendable {
    public var uid: String
    public var name: String
    public var currency: String
    public var target: Int64?
    public var totalSaved: Int64
    /// CREATING, PENDING, ACTIVE, ARCHIVING, ARCHIVED or RESTORING: the bank's spec requires
    /// one on every goal. Add-money is refused unless it is ACTIVE.
    public var state: String
    /// When the emulator created the goal, on its own clock; nil for seeded goals. A goal
    /// stored as CREATING with a creation instant is served as ACTIVE once the bank's
    /// `goalActivationDelay` has passed since then (see ``EmulatorBehaviour``); its stored
    /// state stays CREATING.
    public var createdAt: Instant?
    /// Where the app shows the goal among the account's spaces (`getSpaces`' `sortOrder`);
    /// nil serves its place in the account's list of goals.
    public var sortOrder: Int?

    public init(
        uid: String, name: String, currency: String, target: Int64? = nil, totalSaved: Int64 = 0,
        state: String = "ACTIVE", createdAt: Instant? = nil, sortOrder: Int? = nil
    ) {
        self.sortOrder = sortOrder
        self.uid = uid
        self.name = name
        self.currency = currency
        self.target = target
        self.totalSaved = totalSaved
        self.state = state
        self.createdAt = createdAt
    }
}

/// A transfer into a goal the bank has carried out.
public struct EmulatedTransfer: Hashable, Sendable {
    public var transferUid: String
    public var accountUid: String
    public var goalUid: String
    public var amount: EmulatedAmount
    /// The reference the transfer was sent with, if any.
    public var reference: String?

    public init(
        transferUid: String, accountUid: String, goalUid: String, amount: EmulatedAmount, reference: String? = nil
    ) {
        self.transferUid = transferUid
        self.accountUid = accountUid
        self.goalUid = goalUid
        self.amount = amount
        self.reference = reference
    }
}

/// Everything the emulated bank knows: who may call, the accounts, their feeds and goals,
/// and the transfers made so far.
public struct BankState: Sendable {
    /// The one access token the bank accepts.
    public var token: String
    /// The scopes that token carries.
    public var scopes: [String]
    public var accounts: [EmulatedAccount]
    /// Feed items by account uid.
    public var feeds: [String: [EmulatedFeedItem]]
    /// Savings goals by account uid.
    public var goals: [String: [EmulatedGoal]]
    /// Transfers in the order they were made. A bank that does not deduplicate transfers
    /// holds one for every add-money that moved money, so a transfer uid can appear twice.
    public var transfers: [EmulatedTransfer] = []
    /// What the bank has scheduled to leave the accounts: standing orders, direct debits,
    /// goals' recurring transfers.
    public var schedule = EmulatedSchedule()

    /// Every scope the round-up job can use.
    public static let allScopes =
        [
            "account:read", "account-list:read", "transaction:read", "savings-goal:read", "savings-goal:create",
            "savings-goal-transfer:create", "balance:read", "confirmation-of-funds:read", "space:read",
        ] + scheduleScopes

    /// The scopes that let the job see what the bank has scheduled.
    public static let scheduleScopes = ["standing-order:read", "mandate:read", "savings-goal-transfer:read"]

    public init(
        token: String, scopes: [String] = BankState.allScopes, accounts: [EmulatedAccount] = [],
        feeds: [String: [EmulatedFeedItem]] = [:], goals: [String: [EmulatedGoal]] = [:]
    ) {
        self.token = token
        self.scopes = scopes
        self.accounts = accounts
        self.feeds = feeds
        self.goals = goals
    }
}
