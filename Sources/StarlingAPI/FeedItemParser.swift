// The fast path for a feed item: the fields `FeedItem` reads, straight from the bytes,
// without `JSONDecoder`'s intermediate values. It takes only what it can read exactly as
// `JSONDecoder` would (plain ASCII strings, plain integers, each key once, spelled without
// escapes) and gives up, with nil, on anything else, which `FeedDecoder` then hands to
// `JSONDecoder`. Both paths give a `FeedItem`, so tests can compare them directly.

import RoundUp

extension JSONCursor {
    /// `{"currency": "GBP", "minorUnits": 1234, …}`.
    mutating func amount() -> CurrencyAndAmount? {
        var currency: String?
        var minorUnits: Int64?
        let read = members { cursor, start, end in
            if cursor.key(start, end, is: "currency") {
                guard currency == nil, let value = cursor.plainString() else { return false }
                currency = value
            } else if cursor.key(start, end, is: "minorUnits") {
                cursor.skipWhitespace()
                guard minorUnits == nil, let value = cursor.skipNumber().integer else { return false }
                minorUnits = value
            } else {
                guard !cursor.hasEscape(start, end) else { return false }
                return cursor.skipValue(depth: 2)
            }
            return true
        }
        guard read, let currency, let minorUnits else { return nil }
        return CurrencyAndAmount(currency: currency, minorUnits: minorUnits)
    }

    /// A feed item at the start of `bytes` (all of `bytes` when `requireEnd`), or nil for
    /// JSONDecoder to decide. Category uids are taken from `categories` when seen before.
    mutating func feedItem(requireEnd: Bool, categories: inout [String]) -> FeedItem? {
        var uid: String?
        var categoryUid: String?
        var amount: CurrencyAndAmount?
        var direction: String?
        var status: String?
        // Optional fields: `.some(nil)` once read as null, so that a second null is a duplicate too.
        var transactionTime: String??
        var settlementTime: String??
        var source: String??
        var sourceSubType: String??
        var counterPartyType: String??
        var counterPartyUid: String??
        var counterPartyName: String??
        var spendingCategory: String??
        var roundUp: Bool?
        var reference: String??
        // Each field the job uses, once, from a key without escapes; anything else is
        // checked and passed over.
        let read = members { cursor, start, end in
            if cursor.key(start, end, is: "feedItemUid") {
                guard uid == nil, let value = cursor.plainString() else { return false }
                uid = value
            } else if cursor.key(start, end, is: "categoryUid") {
                // One that is not a UUID: JSONDecoder says why the feed is refused.
                guard categoryUid == nil, let value = cursor.internedString(&categories).flatMap(Uid.uuid) else {
                    return false
                }
                categoryUid = value
            } else if cursor.key(start, end, is: "amount") {
                guard amount == nil, let value = cursor.amount() else { return false }
                amount = value
            } else if cursor.key(start, end, is: "direction") {
                guard direction == nil, let value = cursor.plainString() else { return false }
                direction = value
            } else if cursor.key(start, end, is: "status") {
                guard status == nil, let value = cursor.plainString() else { return false }
                status = value
            } else if cursor.key(start, end, is: "transactionTime") {
                guard transactionTime == nil, let value = cursor.optionalPlainString() else { return false }
                transactionTime = value
            } else if cursor.key(start, end, is: "settlementTime") {
                guard settlementTime == nil, let value = cursor.optionalPlainString() else { return false }
                settlementTime = value
            } else if cursor.key(start, end, is: "source") {
                guard source == nil, let value = cursor.optionalPlainString() else { return false }
                source = value
            } else if cursor.key(start, end, is: "sourceSubType") {
                guard sourceSubType == nil, let value = cursor.optionalPlainString() else { return false }
                sourceSubType = value
            } else if cursor.key(start, end, is: "counterPartyType") {
                guard counterPartyType == nil, let value = cursor.optionalPlainString() else { return false }
                counterPartyType = value
            } else if cursor.key(start, end, is: "counterPartyUid") {
                guard counterPartyUid == nil, let value = cursor.optionalPlainString() else { return false }
                // One that is not a UUID: JSONDecoder says why the feed is refused.
                let uid = value.flatMap(Uid.uuid)
                guard value == nil || uid != nil else { return false }
                counterPartyUid = uid
            } else if cursor.key(start, end, is: "counterPartyName") {
                guard counterPartyName == nil, let value = cursor.optionalPlainString() else { return false }
                counterPartyName = value
            } else if cursor.key(start, end, is: "spendingCategory") {
                guard spendingCategory == nil, let value = cursor.optionalPlainString() else { return false }
                spendingCategory = value
            } else if cursor.key(start, end, is: "reference") {
                guard reference == nil, let value = cursor.optionalPlainString() else { return false }
                reference = value
            } else if cursor.key(start, end, is: "roundUp") {
                // As `FeedItem.init(from:)`: any value but null means the bank rounded up.
                guard roundUp == nil else { return false }
                cursor.skipWhitespace()
                let isNull =
                    cursor.bytes.count - cursor.position >= 4 && cursor.bytes[cursor.position] == UInt8(ascii: "n")
                guard cursor.skipValue(depth: 1) else { return false }
                roundUp = !isNull
            } else {
                // Keys with escapes land here: JSONDecoder then decides, as the key may be one of the above.
                guard !cursor.hasEscape(start, end) else { return false }
                return cursor.skipValue(depth: 1)
            }
            return true
        }
        guard read else { return nil }
        if requireEnd {
            skipWhitespace()
            guard atEnd else { return nil }
        }
        guard let categoryUid, let amount, let direction, let status else { return nil }
        let identity = Uid.identity(uid)
        return FeedItem(
            feedItemUid: identity, categoryUid: categoryUid, amount: amount, direction: direction,
            status: status,
            transactionTime: transactionTime ?? nil, settlementTime: settlementTime ?? nil, source: source ?? nil,
            sourceSubType: sourceSubType ?? nil, counterPartyType: counterPartyType ?? nil,
            counterPartyUid: counterPartyUid ?? nil,
            counterPartyName: counterPartyName ?? nil, spendingCategory: spendingCategory ?? nil,
            hasBankRoundUp: roundUp ?? false, reference: reference ?? nil,
            unreadableUid: Uid.unreadable(uid, identity: identity))
    }
}
