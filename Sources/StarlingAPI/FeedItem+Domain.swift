public import RoundUp

extension FeedItem {
    /// The domain's view of this item, however it was read: by `JSONDecoder`, or by
    /// `FeedDecoder`'s own parser. Fails when a timestamp the bank sent is not one.
    public func transaction() throws(BankError) -> Transaction {
        var settled: Instant?
        if let settlementTime {
            guard let instant = Instant(iso8601: settlementTime) else {
                throw .malformedResponse(
                    endpoint: "the settled feed",
                    detail: "feed item \(feedItemUid) has settlementTime '\(settlementTime.prefix(40))', "
                        + "not an ISO 8601 timestamp")
            }
            settled = instant
        }
        return Transaction(
            uid: feedItemUid, categoryUid: categoryUid, minorUnits: amount.minorUnits, currencyCode: amount.currency,
            direction: direction, status: status, source: source, sourceSubType: sourceSubType,
            counterPartyType: counterPartyType,
            counterPartyName: counterPartyName, spendingCategory: spendingCategory, settlementTime: settled,
            isRoundedUpByBank: hasBankRoundUp, unreadableUid: unreadableUid)
    }
}

extension BankAccount {
    /// The domain's view of this account.
    public var account: Account {
        Account(uid: accountUid, defaultCategory: defaultCategory, currencyCode: currency, name: name)
    }
}
