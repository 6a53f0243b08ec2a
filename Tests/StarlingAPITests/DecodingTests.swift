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

    /// The spec makes every field of the round-up answer optional and names its goal both
    /// `roundUpGoalDetails` and `roundUpGoal`: `active` decides; without it a goal means
    /// on; an answer with neither cannot tell. Only a field of the wrong type is no answer.
    @Test(
        arguments: [
            (
                #"{"active":true,"roundUpGoalDetails":{"roundUpGoalUid":"77887788-7788-7788-7788-778877887788"}}"#,
                "active"
            ),
            (#"{"active":false}"#, "inactive"),
            (#"{"active":false,"roundUpGoal":{"roundUpGoalUid":"77887788-7788-7788-7788-778877887788"}}"#, "inactive"),
            (#"{"roundUpGoalDetails":{"roundUpGoalUid":"77887788-7788-7788-7788-778877887788"}}"#, "active"),
            (#"{"roundUpGoal":{"roundUpGoalUid":"77887788-7788-7788-7788-778877887788"}}"#, "active"),
            (#"{}"#, "unknown"),
            (#"{"success":true}"#, "unknown"),
            (#"{"active":"yes"}"#, nil),
            (#"[]"#, nil),
        ] as [(String, String?)])
    func theBanksOwnRoundUpDecodes(body: String, state: String?) {
        let answer = try? JSONDecoder().decode(RoundUpGoalResponse.self, from: Data(body.utf8))
        #expect(answer?.state.rawValue == state)
    }

    /// Whether a transfer would overdraw the account: only the bank's yes-or-no on exactly
    /// that counts, a missing one is a yes; a body with neither field is no answer.
    @Test(
        arguments: [
            (
                #"{"requestedAmountAvailableToSpend":true,"accountWouldBeInOverdraftIfRequestedAmountSpent":false}"#,
                false
            ),
            (#"{"requestedAmountAvailableToSpend":true,"accountWouldBeInOverdraftIfRequestedAmountSpent":true}"#, true),
            (#"{"requestedAmountAvailableToSpend":true}"#, true),
            (#"{"accountWouldBeInOverdraftIfRequestedAmountSpent":false}"#, false),
            (#"{}"#, nil),
            (#"{"accounts":"none"}"#, nil),
            (#"{"accountWouldBeInOverdraftIfRequestedAmountSpent":"no"}"#, nil),
        ] as [(String, Bool?)])
    func confirmationOfFundsDecodes(body: String, wouldOverdraw: Bool?) {
        let answer = try? JSONDecoder().decode(ConfirmationOfFunds.self, from: Data(body.utf8))
        #expect(answer.map { $0.accountWouldBeInOverdraftIfRequestedAmountSpent ?? true } == wouldOverdraw)
    }

    /// Uids come in in one spelling, lower case, whatever case the bank writes them in.
    @Test func uidsAreReadInLowerCase() throws {
        let accounts = try JSONDecoder().decode(
            AccountList.self,
            from: Data(
                #"{"accounts":[{"accountUid":"AAAAAAAA-0000-4000-8000-00000000000A","defaultCategory":"CA7E0000-0000-4000-8000-00000000000B","currency":"GBP"}]}"#
                    .utf8)
        ).accounts
        #expect(accounts[0].accountUid == "aaaaaaaa-0000-4000-8000-00000000000a")
        #expect(accounts[0].defaultCategory == "ca7e0000-0000-4000-8000-00000000000b")
        let goals = try JSONDecoder().decode(
            SavingsGoalList.self,
            from: Data(
                #"{"savingsGoalList":[{"savingsGoalUid":"90C00000-0000-4000-8000-0000000000B2","name":"Holiday"}]}"#
                    .utf8)
        ).savingsGoalList
        #expect(goals[0].savingsGoalUid == "90c00000-0000-4000-8000-0000000000b2")
        let created = try JSONDecoder().decode(
            CreateSavingsGoalResponse.self,
            from: Data(#"{"savingsGoalUid":"90C00000-0000-4000-8000-0000000000B3","success":true}"#.utf8))
        #expect(created.savingsGoalUid == "90c00000-0000-4000-8000-0000000000b3")
        let item = try JSONDecoder().decode(
            FeedItem.self,
            from: Data(
                #"{"feedItemUid":"F1000000-0000-4000-8000-0000000000A1","categoryUid":"CA7E0000-0000-4000-8000-00000000000B","amount":{"currency":"GBP","minorUnits":1},"direction":"OUT","status":"SETTLED","counterPartyUid":"90C00000-0000-4000-8000-0000000000B2"}"#
                    .utf8))
        #expect(item.categoryUid == "ca7e0000-0000-4000-8000-00000000000b")
        #expect(item.counterPartyUid == "90c00000-0000-4000-8000-0000000000b2")
        // A feed item's uid is the payment's identity: a UUID, lower-cased and trimmed, so
        // that one payment in two spellings is one payment; anything else is none.
        let f1 = "f1000000-0000-4000-8000-0000000000a1"
        #expect(item.feedItemUid == f1)
        for (sent, identity) in [
            (#""feedItemUid":" F1000000-0000-4000-8000-0000000000A1\t","#, f1), (#""feedItemUid":"   ","#, ""),
            (#""feedItemUid":null,"#, ""), ("", ""), (#""feedItemUid":7,"#, ""), (#""feedItemUid":"F1","#, ""),
            (#""feedItemUid":"f1000000000040008000-0000000000a1","#, ""),
        ] {
            let body =
                "{\(sent)\"categoryUid\":\"ca7e0000-0000-4000-8000-00000000000b\",\"amount\":{\"currency\":\"GBP\",\"minorUnits\":1},"
                + "\"direction\":\"OUT\",\"status\":\"SETTLED\"}"
            let decoded = try JSONDecoder().decode(FeedItem.self, from: Data(body.utf8))
            #expect(decoded.feedItemUid == identity, "\(body)")
        }
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
            #"{"feedItems":[{"feedItemUid":"x","categoryUid":"ca7e0000-0000-4000-8000-00000000000b","direction":"OUT","status":"SETTLED"}]}"#,
            "feedItems[0].amount is missing"
        ),
        (
            #"{"feedItems":[{"feedItemUid":"x","categoryUid":"ca7e0000-0000-4000-8000-00000000000b","direction":"OUT","status":"SETTLED","amount":{"currency":"GBP","minorUnits":"12"}}]}"#,
            "feedItems[0].amount.minorUnits is not a whole number"
        ),
        (
            #"{"feedItems":[{"feedItemUid":"x","categoryUid":"ca7e0000-0000-4000-8000-00000000000b","direction":"OUT","status":"SETTLED","amount":{"currency":"GBP","minorUnits":99999999999999999999}}]}"#,
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
            #"{"feedItems":[{"feedItemUid":"x","categoryUid":"ca7e0000-0000-4000-8000-00000000000b","direction":"OUT","status":"SETTLED","amount":{"currency":"GBP","minorUnits":12},"settlementTime":"yesterday"}]}"#
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

    /// Every uid of the bank's is a UUID; any but a feed item's own that is not one makes
    /// the answer bad data, naming the field, however close it comes. The same answer with a
    /// UUID in that place decodes, so each case is refused for its uid alone.
    @Test(arguments: [
        (
            "accounts",
            #"{"accounts":[{"accountUid":"UID","defaultCategory":"\#(DecodingTests.uuid)","currency":"GBP"}]}"#,
            "accounts[0].accountUid"
        ),
        (
            "accounts",
            #"{"accounts":[{"accountUid":"\#(DecodingTests.uuid)","defaultCategory":"UID","currency":"GBP"}]}"#,
            "accounts[0].defaultCategory"
        ),
        (
            "goals", #"{"savingsGoalList":[{"savingsGoalUid":"UID","name":"Holiday"}]}"#,
            "savingsGoalList[0].savingsGoalUid"
        ),
        ("created goal", #"{"savingsGoalUid":"UID","success":true}"#, "savingsGoalUid"),
        ("transfer", #"{"transferUid":"UID","success":true}"#, "transferUid"),
        ("identity", #"{"accountHolderUid":"UID","scopes":[]}"#, "accountHolderUid"),
        (
            "round-up", #"{"active":true,"roundUpGoalDetails":{"roundUpGoalUid":"UID"}}"#,
            "roundUpGoalDetails.roundUpGoalUid"
        ),
        ("standing order", #"{"paymentOrderUid":"UID"}"#, "paymentOrderUid"),
        ("standing order", #"{"categoryUid":"UID"}"#, "categoryUid"),
        ("mandate", #"{"uid":"UID"}"#, "uid"),
        ("mandate", #"{"categoryUid":"UID"}"#, "categoryUid"),
        (
            "recurring transfer",
            #"{"transferUid":"UID","currencyAndAmount":{"currency":"GBP","minorUnits":1},"nextPaymentDate":"2026-12-01"}"#,
            "transferUid"
        ),
        (
            "feed item",
            #"{"feedItemUid":"\#(DecodingTests.uuid)","categoryUid":"UID","amount":{"currency":"GBP","minorUnits":1},"direction":"OUT","status":"SETTLED"}"#,
            "categoryUid"
        ),
        (
            "feed item",
            #"{"feedItemUid":"\#(DecodingTests.uuid)","categoryUid":"\#(DecodingTests.uuid)","amount":{"currency":"GBP","minorUnits":1},"direction":"OUT","status":"SETTLED","counterPartyUid":"UID"}"#,
            "counterPartyUid"
        ),
    ])
    func aUidThatIsNotAUUIDIsBadData(kind: String, template: String, field: String) throws {
        let decode: (String) throws -> Void = { text in
            let data = Data(text.utf8)
            switch kind {
            case "accounts": _ = try JSONDecoder().decode(AccountList.self, from: data)
            case "goals": _ = try JSONDecoder().decode(SavingsGoalList.self, from: data)
            case "created goal": _ = try JSONDecoder().decode(CreateSavingsGoalResponse.self, from: data)
            case "transfer": _ = try JSONDecoder().decode(TransferResponse.self, from: data)
            case "identity": _ = try JSONDecoder().decode(TokenIdentity.self, from: data)
            case "round-up": _ = try JSONDecoder().decode(RoundUpGoalResponse.self, from: data)
            case "standing order": _ = try JSONDecoder().decode(StandingOrder.self, from: data)
            case "mandate": _ = try JSONDecoder().decode(DirectDebitMandate.self, from: data)
            case "recurring transfer": _ = try JSONDecoder().decode(ScheduledSavingsPayment.self, from: data)
            default: _ = try JSONDecoder().decode(FeedItem.self, from: data)
            }
        }
        try decode(template.replacing("UID", with: " \(Self.uuid.uppercased())" + #"\n"#))
        for bad in ["", "x", "caf\u{E9}-1", Self.uuid + "\u{200B}", "\u{FEFF}" + Self.uuid, "{\(Self.uuid)}"] {
            let body = template.replacing("UID", with: bad)
            do {
                try decode(body)
                Issue.record("took \(Uid.shown(bad)) as a uid: \(body)")
            } catch {
                let words = describe(error, body: Array(body.utf8))
                #expect(words == "\(field): \(Uid.shown(bad)) is not a UUID", "\(body)")
            }
        }
    }

    static let uuid = "aaaaaaaa-0000-4000-8000-00000000000a"
}
