import Foundation
import RoundUp
import Testing

@testable import StarlingAPI

func fixture(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
    return try Data(contentsOf: url)
}

@Suite struct DecodingTests {
    @Test func feedItemsDecodeWithUnknownFieldsAndValues() throws {
        let items = try JSONDecoder().decode(FeedItemList.self, from: fixture("feed")).feedItems
        #expect(items.count == 4)
        let first = try items[0].transaction()
        #expect(first.minorUnits == 1234)
        #expect(first.currencyCode == "GBP")
        #expect(first.settlementTime == Instant(iso8601: "2026-11-10T09:00:00.987Z"))
        #expect(first.isRoundedUpByBank == false)
        let pending = try items[1].transaction()
        #expect(pending.source == "A_SOURCE_ADDED_LATER")
        #expect(pending.settlementTime == nil)
        #expect(try items[2].transaction().isRoundedUpByBank)
        #expect(try items[3].transaction().isRoundedUpByBank == false, "roundUp: null is no round-up")
    }

    @Test func accountsGoalsAndIdentityDecode() throws {
        let accounts = try JSONDecoder().decode(AccountList.self, from: fixture("accounts")).accounts
        #expect(accounts.map(\.currency) == ["GBP", "EUR"])
        #expect(accounts[1].name == nil)
        let goals = try JSONDecoder().decode(SavingsGoalList.self, from: fixture("goals")).savingsGoalList
        #expect(goals.map(\.state) == ["ACTIVE", "ARCHIVED", nil])
        #expect(goals[2].totalSaved?.minorUnits == 6798)
        let identity = try JSONDecoder().decode(TokenIdentity.self, from: fixture("identity"))
        #expect(identity.scopes.contains("transaction:read"))
    }

    /// The spec names the round-up's goal both `roundUpGoalDetails` and `roundUpGoal`; either
    /// without `active` means it is on, and a body with none of them is no answer.
    @Test(
        arguments: [
            (#"{"active":true,"roundUpGoalDetails":{"roundUpGoalUid":"77887788-7788-7788-7788-778877887788"}}"#, true),
            (#"{"active":false}"#, false),
            (#"{"roundUpGoalDetails":{"roundUpGoalUid":"77887788-7788-7788-7788-778877887788"}}"#, true),
            (#"{"roundUpGoal":{"roundUpGoalUid":"77887788-7788-7788-7788-778877887788"}}"#, true),
            (#"{}"#, nil),
            (#"{"success":true}"#, nil),
        ] as [(String, Bool?)])
    func theBanksOwnRoundUpDecodes(body: String, active: Bool?) {
        let answer = try? JSONDecoder().decode(RoundUpGoalResponse.self, from: Data(body.utf8))
        #expect(answer?.isActive == active)
    }

    @Test func bothErrorShapesDecode() throws {
        #expect(
            try JSONDecoder().decode(ErrorBody.self, from: fixture("error-errors")).messages == ["INSUFFICIENT_FUNDS"])
        #expect(
            try JSONDecoder().decode(ErrorBody.self, from: fixture("error-oauth")).messages
                == ["invalid_token: Token has expired"])
    }

    @Test(arguments: [
        (
            #"{"feedItems":[{"feedItemUid":"x","categoryUid":"c","direction":"OUT","status":"SETTLED"}]}"#,
            "feedItems[0].amount is missing"
        ),
        (
            #"{"feedItems":[{"feedItemUid":"x","categoryUid":"c","direction":"OUT","status":"SETTLED","amount":{"currency":"GBP","minorUnits":"12"}}]}"#,
            "feedItems[0].amount.minorUnits is not a whole number"
        ),
        (
            #"{"feedItems":[{"feedItemUid":"x","categoryUid":"c","direction":"OUT","status":"SETTLED","amount":{"currency":"GBP","minorUnits":99999999999999999999}}]}"#,
            "a number is out of range"
        ),
        (#"{"feedItems":"#, "the body is not valid JSON"),
        ("", "the body is empty"),
        (#"{"items":[]}"#, "feedItems is missing"),
    ])
    func malformedBodiesAreDescribedByField(body: String, expected: String) {
        do {
            _ = try JSONDecoder().decode(FeedItemList.self, from: Data(body.utf8))
            Issue.record("decoded a malformed body")
        } catch {
            #expect(describe(error, body: Array(body.utf8)).contains(expected))
        }
    }

    @Test func aMalformedSettlementTimeIsReported() throws {
        let body =
            #"{"feedItems":[{"feedItemUid":"x","categoryUid":"c","direction":"OUT","status":"SETTLED","amount":{"currency":"GBP","minorUnits":12},"settlementTime":"yesterday"}]}"#
        let item = try JSONDecoder().decode(FeedItemList.self, from: Data(body.utf8)).feedItems[0]
        #expect(throws: BankError.self) { try item.transaction() }
    }

    @Test func redactionFindsTheTokenAnywhere() throws {
        let token = try #require(AccessToken("aab"))
        #expect(token.redacted(in: "aab") == "<redacted>")
        #expect(token.redacted(in: "aaab, then xaab") == "a<redacted>, then x<redacted>", "a near miss just before")
        #expect(token.redacted(in: "aa ab a") == "aa ab a")
        #expect(token.redacted(in: "") == "")
        #expect(token.redacted(in: "é aab é") == "é <redacted> é")
        let long = String(repeating: "ab", count: 500_000)
        #expect(token.redacted(in: long) == long)
        #expect(token.redacted(in: long + "aab").hasSuffix("<redacted>"))
    }

    @Test func theTokenNeverPrints() throws {
        let token = try #require(AccessToken("  secret-value-123\n"))
        #expect("\(token)" == "<redacted>")
        #expect(String(reflecting: token) == "<redacted>")
        var dumped = ""
        dump(token, to: &dumped)
        #expect(!dumped.contains("secret-value-123"))
        #expect(token.authorizationValue == "Bearer secret-value-123")
        #expect(AccessToken("") == nil)
        #expect(AccessToken("two words") == nil)
        #expect(AccessToken("line\r\nInjected: header") == nil)
    }
}
