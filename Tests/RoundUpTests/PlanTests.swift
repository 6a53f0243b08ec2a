import Foundation
import PropertyBased
import Testing

@testable import RoundUp

/// Builds feed items for one account and week.
struct Fixture {
    static let london = TimeZone(identifier: "Europe/London")!
    let account = Account(uid: "acc-1", defaultCategory: "cat-main", currencyCode: "GBP", name: "Personal")
    let week = Week(endingOn: LocalDate(iso: "2026-11-15")!, in: Fixture.london)

    func item(
        _ minor: Int64, uid: String = UUID().uuidString, direction: String = "OUT", status: String = "SETTLED",
        currency: String = "GBP", category: String? = nil, source: String? = "MASTER_CARD",
        counterPartyType: String? = "MERCHANT", spending: String? = "GROCERIES", settled: Instant? = nil,
        roundedUp: Bool = false
    ) -> Transaction {
        Transaction(
            uid: uid, categoryUid: category ?? account.defaultCategory, minorUnits: minor, currencyCode: currency,
            direction: direction, status: status, source: source, counterPartyType: counterPartyType,
            spendingCategory: spending, settlementTime: settled ?? week.start.adding(milliseconds: 3_600_000),
            isRoundedUpByBank: roundedUp)
    }
}

@Suite struct SelectionTests {
    let fixture = Fixture()

    func reason(_ transaction: Transaction, rule: SelectionRule = SelectionRule()) -> Exclusion? {
        rule.exclusion(of: transaction, in: fixture.account, week: fixture.week)
    }

    @Test func aSettledCardPaymentCounts() {
        #expect(reason(fixture.item(435)) == nil)
    }

    @Test func leavesOutWhatIsNotSpending() {
        #expect(reason(fixture.item(100, direction: "IN")) == .incoming)
        for status in ["PENDING", "DECLINED", "REVERSED", "REFUNDED", "UPCOMING", "RETRYING", "ACCOUNT_CHECK"] {
            #expect(reason(fixture.item(100, status: status)) == .notSettled, "\(status)")
        }
        #expect(reason(fixture.item(100, category: "cat-space")) == .otherCategory)
        #expect(reason(fixture.item(100, source: "INTERNAL_TRANSFER")) == .ownTransfer)
        #expect(reason(fixture.item(100, counterPartyType: "CATEGORY")) == .ownTransfer)
        #expect(reason(fixture.item(100, roundedUp: true)) == .roundedUpByBank)
    }

    @Test func aSettledItemWithoutASettlementTimeIsNotCounted() {
        let item = Transaction(
            uid: "x", categoryUid: fixture.account.defaultCategory, minorUnits: 100, currencyCode: "GBP",
            direction: "OUT", status: "SETTLED", settlementTime: nil)
        #expect(reason(item) == .notSettled)
    }

    @Test func theWeekIsHalfOpen() {
        #expect(reason(fixture.item(100, settled: fixture.week.start)) == nil)
        #expect(reason(fixture.item(100, settled: fixture.week.end.adding(milliseconds: -1))) == nil)
        #expect(reason(fixture.item(100, settled: fixture.week.end)) == .outsideWeek)
        #expect(reason(fixture.item(100, settled: fixture.week.start.adding(milliseconds: -1))) == .outsideWeek)
    }

    @Test func unknownValuesFromTheBankAreHandled() {
        // A new source counts like any other spending; a new status is not SETTLED.
        #expect(reason(fixture.item(100, source: "QUANTUM_PAY", spending: "NEW_CATEGORY")) == nil)
        #expect(reason(fixture.item(100, status: "SETTLING_SOON")) == .notSettled)
        #expect(reason(fixture.item(100, direction: "SIDEWAYS")) == .incoming)
    }

    @Test func configuredExclusions() {
        let rule = SelectionRule(excludedSources: ["DIRECT_DEBIT"], excludedSpendingCategories: ["BILLS_AND_SERVICES"])
        #expect(reason(fixture.item(100, source: "DIRECT_DEBIT"), rule: rule) == .excludedSource)
        #expect(reason(fixture.item(100, spending: "BILLS_AND_SERVICES"), rule: rule) == .excludedSpendingCategory)
        #expect(reason(fixture.item(100), rule: rule) == nil)
    }
}

@Suite struct PlanTests {
    let fixture = Fixture()

    func plan(_ feed: [Transaction], policy: RoundUpPolicy? = nil, account: Account? = nil) throws -> RoundUpPlan {
        try RoundUpPlan(
            account: account ?? fixture.account, feed: feed, week: fixture.week, rule: SelectionRule(),
            policy: policy ?? (try RoundUpPolicy()))
    }

    @Test func sumsTheRoundUpsOfCountedItems() throws {
        let result = try plan([
            fixture.item(435), fixture.item(520), fixture.item(87), fixture.item(4500),
            fixture.item(999, direction: "IN"), fixture.item(250, status: "PENDING"),
        ])
        #expect(result.counted.count == 4)
        #expect(result.counted.map(\.roundUp.minorUnits) == [65, 80, 13, 0])
        #expect(result.total.description == "1.58 GBP")
        #expect(result.leftOut == [.incoming: 1, .notSettled: 1])
    }

    /// A payment the feed gives twice is rounded up once.
    @Test func aPaymentRepeatedInTheFeedCountsOnce() throws {
        let feed = [fixture.item(435, uid: "a"), fixture.item(520, uid: "b")]
        let result = try plan(feed + feed + [fixture.item(435, uid: "a")])
        #expect(result.counted.map(\.uid) == ["a", "b"])
        #expect(result.total.description == "1.45 GBP")
        #expect(result.leftOut == [.repeated: 3])
    }

    /// A payment that would count but has no uid to know it by is left out as `no-identity`,
    /// and only such a one: an item that would not count is left out for its own reason.
    @Test func aPaymentWithoutAnIdentityIsLeftOut() throws {
        let result = try plan([
            fixture.item(435, uid: ""), fixture.item(520, uid: "b"), fixture.item(100, uid: "", direction: "IN"),
        ])
        #expect(result.counted.map(\.uid) == ["b"])
        #expect(result.total.description == "0.80 GBP")
        #expect(result.leftOut == [.noIdentity: 1, .incoming: 1])
        #expect(result.leftOutItems.map(\.reason) == [.noIdentity, .incoming])
    }

    /// A payment another week counted is left out, and listed.
    @Test func aPaymentCountedInAnotherWeekIsNotCountedAgain() throws {
        let result = try RoundUpPlan(
            account: fixture.account, feed: [fixture.item(435, uid: "a"), fixture.item(520, uid: "b")],
            week: fixture.week, rule: SelectionRule(), policy: try RoundUpPolicy(), alreadyCounted: ["a", "z"])
        #expect(result.counted.map(\.uid) == ["b"])
        #expect(result.countedEarlier.map(\.uid) == ["a"])
        #expect(result.countedEarlier.first?.roundUp.minorUnits == 65)
        #expect(result.total.description == "0.80 GBP")
        #expect(result.leftOut == [.countedEarlier: 1])
    }

    @Test func wholeAmountsGiveNothing() throws {
        let result = try plan([fixture.item(100), fixture.item(4500), fixture.item(0)])
        #expect(result.counted.count == 3)
        #expect(result.total.minorUnits == 0)
    }

    @Test func multiplierAndCap() throws {
        let feed = [fixture.item(435), fixture.item(520)]  // 1.45
        #expect(try plan(feed, policy: RoundUpPolicy(multiplier: 3)).total.minorUnits == 435)
        let capped = try plan(
            feed, policy: RoundUpPolicy(multiplier: 10, weeklyCaps: ["GBP": Decimal(string: "5.00")!]))
        #expect(capped.total.minorUnits == 500)
        #expect(capped.capApplied?.minorUnits == 500)
        #expect(capped.roundUpSum.minorUnits == 145)
        let underCap = try plan(feed, policy: RoundUpPolicy(weeklyCaps: ["GBP": Decimal(20), "EUR": Decimal(1)]))
        #expect(underCap.total.minorUnits == 145)
        #expect(underCap.capApplied == nil)
    }

    @Test func policyRefusesOutOfRangeValues() {
        #expect(throws: PolicyError.multiplierOutOfRange(0)) { try RoundUpPolicy(multiplier: 0) }
        #expect(throws: PolicyError.multiplierOutOfRange(11)) { try RoundUpPolicy(multiplier: 11) }
        #expect(throws: PolicyError.negativeCap(currency: "GBP")) {
            try RoundUpPolicy(weeklyCaps: ["GBP": Decimal(-1)])
        }
    }

    @Test func threeDecimalCurrencies() throws {
        let account = Account(uid: "kw", defaultCategory: fixture.account.defaultCategory, currencyCode: "KWD")
        let result = try plan(
            [
                fixture.item(1_250, currency: "KWD"), fixture.item(7, currency: "KWD"),
                fixture.item(3_000, currency: "KWD"),
            ],
            account: account)
        #expect(result.total.description == "1.743 KWD")
    }

    @Test func zeroDecimalCurrenciesRoundToTheNextYen() throws {
        let account = Account(uid: "jp", defaultCategory: fixture.account.defaultCategory, currencyCode: "JPY")
        let result = try plan([fixture.item(1_250, currency: "JPY")], account: account)
        #expect(result.total.minorUnits == 0)
    }

    @Test func anUnknownAccountCurrencyIsAnError() {
        let account = Account(uid: "x", defaultCategory: fixture.account.defaultCategory, currencyCode: "XXX")
        #expect(throws: PlanError.unknownCurrency("XXX")) { try plan([], account: account) }
    }

    @Test func aNegativeAmountIsAnError() {
        #expect(throws: PlanError.negativeAmount(transactionUid: "neg", minorUnits: -5)) {
            try plan([fixture.item(-5, uid: "neg")])
        }
    }

    @Test func anItemInAnotherCurrencyIsAnError() {
        // Even one that would be left out anyway: the feed as a whole is not to be trusted.
        for direction in ["OUT", "IN"] {
            #expect(throws: PlanError.currencyMismatch(transactionUid: "eur", currency: "EUR", account: "GBP")) {
                try plan([fixture.item(100), fixture.item(100, uid: "eur", direction: direction, currency: "EUR")])
            }
        }
    }

    @Test func thePlanAgreesWithIntegerArithmetic() async {
        let amounts = Gen.int64(in: 0...5_000_000).array(of: 0...60)
        await propertyCheck(count: 300, input: amounts, Gen.int(in: 1...10)) { minors, multiplier in
            let result = try plan(minors.map { fixture.item($0) }, policy: RoundUpPolicy(multiplier: multiplier))
            let expected = minors.reduce(Int64(0)) { $0 + (100 - $1 % 100) % 100 } * Int64(multiplier)
            #expect(result.total.minorUnits == expected)
            #expect(result.counted.count == minors.count)
        }
    }
}

@Suite struct TransferUIDTests {
    @Test func sha1MatchesTheStandardVectors() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(SHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(hex(SHA1.digest(long)) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }

    @Test func uuidV5MatchesAKnownValue() {
        // The DNS namespace and "python.org", a widely published example.
        let dns: [UInt8] = [
            0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8,
        ]
        #expect(TransferUID.uuidV5(namespace: dns, name: "python.org") == "886313e1-3b8a-5372-9b90-0c9aee199e5d")
    }

    @Test func theSameWeekAlwaysGivesTheSameUidAndOtherWeeksOthers() throws {
        let end = try #require(LocalDate(iso: "2026-11-15"))
        let uid = TransferUID.transferUid(accountUid: "A", goalUid: "G", weekEnd: end)
        #expect(uid == TransferUID.transferUid(accountUid: "a", goalUid: "g", weekEnd: end))
        #expect(UUID(uuidString: uid) != nil)
        var seen: Set<String> = [uid]
        seen.insert(TransferUID.transferUid(accountUid: "A", goalUid: "G", weekEnd: end.adding(days: 7)))
        seen.insert(TransferUID.transferUid(accountUid: "B", goalUid: "G", weekEnd: end))
        seen.insert(TransferUID.transferUid(accountUid: "A", goalUid: "H", weekEnd: end))
        #expect(seen.count == 4)
    }
}
