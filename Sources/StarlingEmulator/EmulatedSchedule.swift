import RoundUp

/// A recurrence as the bank writes one (`StandingOrderRecurrence`, `RecurrenceRuleV2`).
public struct EmulatedRecurrence: Codable, Hashable, Sendable {
    public var startDate: String
    public var frequency: String
    public var interval: Int?
    public var count: Int?
    public var untilDate: String?
    /// Only a goal's recurring transfer lists weekdays.
    public var days: [String]?

    public init(
        startDate: String, frequency: String, interval: Int? = nil, count: Int? = nil, untilDate: String? = nil,
        days: [String]? = nil
    ) {
        self.startDate = startDate
        self.frequency = frequency
        self.interval = interval
        self.count = count
        self.untilDate = untilDate
        self.days = days
    }
}

/// A standing order, as `listStandingOrders` answers it.
public struct EmulatedStandingOrder: Codable, Hashable, Sendable {
    public var paymentOrderUid: String
    public var amount: EmulatedAmount
    public var reference: String?
    public var payeeUid: String
    public var payeeAccountUid: String
    public var standingOrderRecurrence: EmulatedRecurrence?
    public var nextDate: String?
    public var cancelledAt: String?
    public var updatedAt: String
    public var spendingCategory: String?
    /// The category that pays: the account's default category, or a space's.
    public var categoryUid: String

    public init(
        paymentOrderUid: String, amount: EmulatedAmount, reference: String?, recurrence: EmulatedRecurrence?,
        nextDate: String?, categoryUid: String, cancelledAt: String? = nil,
        spendingCategory: String? = "BILLS_AND_SERVICES"
    ) {
        self.paymentOrderUid = paymentOrderUid
        self.amount = amount
        self.reference = reference
        self.payeeUid = "55665566-5566-4566-8566-556655665566"
        self.payeeAccountUid = "66776677-6677-4677-8677-667766776677"
        self.standingOrderRecurrence = recurrence
        self.nextDate = nextDate
        self.cancelledAt = cancelledAt
        self.updatedAt = "2026-01-05T09:00:00.000Z"
        self.spendingCategory = spendingCategory
        self.categoryUid = categoryUid
    }
}

/// A direct debit mandate, as `listMandatesForAccount` answers it.
public struct EmulatedMandate: Codable, Hashable, Sendable {
    public struct LastPayment: Codable, Hashable, Sendable {
        public var lastDate: String?
        public var lastAmount: EmulatedAmount?

        public init(lastDate: String?, lastAmount: EmulatedAmount?) {
            self.lastDate = lastDate
            self.lastAmount = lastAmount
        }
    }

    public var uid: String
    public var reference: String?
    /// LIVE, CANCELLED or PENDING_CAS.
    public var status: String
    public var source: String
    public var created: String
    public var cancelled: String?
    public var nextDate: String?
    public var lastDate: String?
    public var originatorName: String?
    public var originatorUid: String
    public var lastPayment: LastPayment?
    public var accountUid: String
    public var categoryUid: String?

    public init(
        uid: String, reference: String?, status: String, nextDate: String?, originatorName: String?,
        lastPayment: LastPayment?, accountUid: String, categoryUid: String?, cancelled: String? = nil
    ) {
        self.uid = uid
        self.reference = reference
        self.status = status
        self.source = "ELECTRONIC"
        self.created = "2025-04-16T11:47:50.477Z"
        self.cancelled = cancelled
        self.nextDate = nextDate
        self.lastDate = lastPayment?.lastDate
        self.originatorName = originatorName
        self.originatorUid = "ff11ff11-ff11-4f11-8f11-ff11ff11ff11"
        self.lastPayment = lastPayment
        self.accountUid = accountUid
        self.categoryUid = categoryUid
    }
}

/// A goal's recurring transfer, as `getRecurringTransfer` answers it.
public struct EmulatedRecurringTransfer: Codable, Hashable, Sendable {
    public var transferUid: String
    public var recurrenceRule: EmulatedRecurrence
    public var currencyAndAmount: EmulatedAmount
    public var nextPaymentDate: String
    public var reference: String?

    public init(
        transferUid: String, recurrenceRule: EmulatedRecurrence, currencyAndAmount: EmulatedAmount,
        nextPaymentDate: String, reference: String? = nil
    ) {
        self.transferUid = transferUid
        self.recurrenceRule = recurrenceRule
        self.currencyAndAmount = currencyAndAmount
        self.nextPaymentDate = nextPaymentDate
        self.reference = reference
    }
}

/// What the bank has scheduled, by account (standing orders, mandates) and by goal
/// (recurring transfers).
public struct EmulatedSchedule: Hashable, Sendable {
    public var standingOrders: [String: [EmulatedStandingOrder]] = [:]
    public var mandates: [String: [EmulatedMandate]] = [:]
    public var recurringTransfers: [String: EmulatedRecurringTransfer] = [:]

    public init() {}
}

extension EmulatedStandingOrder {
    /// The order's next `count` payment dates, as the bank computes them: from its next
    /// date, or from its start date when it has none.
    func nextDates(count: Int) -> [String] {
        guard let recurrence = standingOrderRecurrence,
            let first = nextDate.flatMap({ LocalDate(iso: $0) }) ?? LocalDate(iso: recurrence.startDate),
            let frequency = Recurrence.Frequency(rawValue: recurrence.frequency)
        else { return [] }
        let until = recurrence.untilDate.flatMap { LocalDate(iso: $0) }
        let rule = Recurrence(frequency: frequency, interval: recurrence.interval ?? 1, until: until)
        return (0..<count).compactMap { rule.date($0, after: first) }.filter { date in until.map { date <= $0 } ?? true
        }
        .map(\.description)
    }
}
