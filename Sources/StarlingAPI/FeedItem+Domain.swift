public import RoundUp

/// The fields of a feed item the job uses, however they were read: by `JSONDecoder` into a
/// `FeedItem`, or by `FeedDecoder`'s own parser.
struct ParsedItem {
    var uid: String
    var categoryUid: String
    var currency: String
    var minorUnits: Int64
    var direction: String
    var status: String
    var settlementTime: String?
    var source: String?
    var counterPartyType: String?
    var counterPartyName: String?
    var spendingCategory: String?
    var roundUp: Bool
}

extension ParsedItem {
    init(_ item: FeedItem) {
        self.init(
            uid: item.feedItemUid, categoryUid: item.categoryUid, currency: item.amount.currency,
            minorUnits: item.amount.minorUnits, direction: item.direction, status: item.status,
            settlementTime: item.settlementTime, source: item.source, counterPartyType: item.counterPartyType,
            counterPartyName: item.counterPartyName, spendingCategory: item.spendingCategory,
            roundUp: item.hasBankRoundUp)
    }

    /// The domain's view of this item. Fails when a timestamp the bank sent is not one.
    func transaction() throws(BankError) -> Transaction {
        var settled: Instant?
        if let settlementTime {
            guard let instant = Instant(iso8601: settlementTime) else {
                throw .malformedResponse(
                    endpoint: "the settled feed",
                    detail: "feed item \(uid) has settlementTime '\(settlementTime.prefix(40))', not an ISO 8601 timestamp")
            }
            settled = instant
        }
        return Transaction(
            uid: uid, categoryUid: categoryUid, minorUnits: minorUnits, currencyCode: currency, direction: direction,
            status: status, source: source, counterPartyType: counterPartyType, counterPartyName: counterPartyName,
            spendingCategory: spendingCategory, settlementTime: settled, isRoundedUpByBank: roundUp)
    }
}

extension FeedItem {
    /// The domain's view of this item. Fails when a timestamp the bank sent is not one.
    public func transaction() throws(BankError) -> Transaction {
        try ParsedItem(self).transaction()
    }
}

extension BankAccount {
    /// The domain's view of this account.
    public var account: Account {
        Account(uid: accountUid, defaultCategory: defaultCategory, currencyCode: currency, name: name)
    }
}
