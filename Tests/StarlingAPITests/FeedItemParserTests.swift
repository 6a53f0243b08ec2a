import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

@testable import StarlingAPI

/// The stream's own feed-item parser against `JSONDecoder`: where it reads an item, it
/// reads the same `FeedItem`; where it cannot be sure to, it gives up (nil) and the
/// stream hands the item to `JSONDecoder`.
@Suite struct FeedItemParserTests {
    /// The parser's reading of all of `bytes` as one item.
    static func fast(_ bytes: [UInt8], categories: inout [String]) -> FeedItem? {
        withCursor(bytes) { $0.feedItem(requireEnd: true, categories: &categories) }
    }

    static func fast(_ text: String) -> FeedItem? {
        var categories: [String] = []
        return fast(Array(text.utf8), categories: &categories)
    }

    static func decoded(_ text: String) -> FeedItem? {
        try? JSONDecoder().decode(FeedItem.self, from: Data(text.utf8))
    }

    /// An item as the emulator serves it (see `EmulatedBank.json`).
    static func served(_ item: EmulatedFeedItem) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(item))
    }

    /// The properties of `value`, at any depth, that hold nothing: a nil optional, or a
    /// flag that is false.
    static func unfilled(_ value: Any, path: String = "") -> [String] {
        var found: [String] = []
        for child in Mirror(reflecting: value).children {
            let name = path + (child.label ?? "?")
            let mirror = Mirror(reflecting: child.value)
            if mirror.displayStyle == .optional {
                if let wrapped = mirror.children.first {
                    found += unfilled(wrapped.value, path: name + ".")
                } else {
                    found.append(name)
                }
            } else if let flag = child.value as? Bool {
                if !flag { found.append(name) }
            } else if mirror.displayStyle == .struct {
                found += unfilled(child.value, path: name + ".")
            }
        }
        return found
    }

    /// The uids of `item`: its own and its category's.
    static let uid = "f0000000-0000-4000-8000-0000000000a1"
    static let category = "ca7e0000-0000-4000-8000-0000000000c1"

    /// An item the parser takes; tests change one thing in it.
    static let item =
        #"{"feedItemUid":"\#(uid)","categoryUid":"\#(category)","amount":{"currency":"GBP","minorUnits":1234},"#
        + #""direction":"OUT","status":"SETTLED","settlementTime":"2026-11-10T09:00:00.000Z","source":"MASTER_CARD","#
        + #""counterPartyName":"Shop"}"#

    /// `item` with `extra` members added at its end.
    static func item(adding extra: String) -> String { String(item.dropLast()) + extra + "}" }

    // MARK: - The same FeedItem as JSONDecoder

    @Test func theSeededFeedsParseAsJSONDecoderReadsThem() throws {
        let endDate = LocalDate(iso: "2026-11-15")!
        let week = Seed.realisticWeek(endingOn: endDate, timeZone: TestBank.london)
        let generated = Seed.benchmark(accounts: 2, items: 40, endingOn: endDate, token: "t").state
        var categories: [String] = []
        var references: [FeedItem] = []
        var parsedCount = 0
        for item in (Array(week.feeds.values) + Array(generated.feeds.values)).joined() {
            let bytes = try Self.served(item)
            let text = String(decoding: bytes, as: UTF8.self)
            let reference = try JSONDecoder().decode(FeedItem.self, from: Data(bytes))
            references.append(reference)
            let parsed = Self.fast(bytes, categories: &categories)
            if parsed != nil { parsedCount += 1 }
            if bytes.contains(where: { $0 >= 0x80 || $0 == UInt8(ascii: "\\") }) {
                // Such an item may be left to JSONDecoder (here: "Café Einstein").
                #expect(parsed == nil || parsed == reference, "\(text)")
            } else {
                #expect(parsed == reference, "\(text)")
            }
        }
        #expect(references.count > 90)
        #expect(parsedCount >= references.count - 1)
        // What makes the comparison worth something: both kinds of each field are there.
        #expect(references.contains { $0.hasBankRoundUp } && references.contains { !$0.hasBankRoundUp })
        #expect(references.contains { $0.settlementTime == nil } && references.contains { $0.settlementTime != nil })
        #expect(Set(references.map(\.amount.currency)) == ["GBP", "EUR"])
    }

    @Test func anItemWithEveryFieldParsesAsJSONDecoderReadsIt() throws {
        let bytes = try Array(fixture("feed-item-every-field"))
        let reference = try JSONDecoder().decode(FeedItem.self, from: Data(bytes))
        var categories: [String] = []
        let parsed = try #require(Self.fast(bytes, categories: &categories))
        #expect(parsed == reference)
    }

    /// With the test above, a property added to `FeedItem` but not read by the fast
    /// parser fails: the fixture must give it a value, which the parser then has to read.
    @Test func theEveryFieldFixtureFillsEveryProperty() throws {
        let reference = try JSONDecoder().decode(FeedItem.self, from: fixture("feed-item-every-field"))
        // (`unreadableUid` is what the uid itself says when it is not a UUID, which this
        // item's is: `aUidThatIsNotAUUIDIsReadAlikeAndKept` reads one.)
        #expect(
            Self.unfilled(reference) == ["unreadableUid"],
            "give these a value in Fixtures/feed-item-every-field.json (a flag: true), and read them in FeedItemParser"
        )
        let partial = FeedItem(
            feedItemUid: Self.uid, categoryUid: Self.category,
            amount: CurrencyAndAmount(currency: "GBP", minorUnits: 1),
            direction: "OUT", status: "SETTLED", transactionTime: "t", settlementTime: nil, source: "s",
            sourceSubType: "ONLINE",
            counterPartyType: "t", counterPartyUid: nil, counterPartyName: "n", spendingCategory: "c",
            hasBankRoundUp: false, reference: nil, unreadableUid: nil)
        #expect(
            Self.unfilled(partial) == [
                "unreadableUid", "settlementTime", "counterPartyUid", "hasBankRoundUp", "reference",
            ],
            "the check itself sees what is missing")
    }

    @Test(arguments: [
        "", #","counterPartyType":null,"spendingCategory":null"#,
        #","counterPartyType":"MERCHANT","spendingCategory":"GROCERIES""#,
        #","reference":"Round-up w/e 22 Nov 2026","sourceAmount":{"currency":"EUR","minorUnits":1.5e3},"n":[1,[{}]]"#,
        #","note":"Café \u00e9 \"x\"","reference":null"#,
        #","hasAttachment":false,"x":1,"#, #" , "roundUp" : { "amount" : { "minorUnits" : 51 } } "#,
        #","amount2":{"currency":"GBP","minorUnits":1}"#,
    ])
    func itemsTheParserTakesAreReadAsJSONDecoderReadsThem(extra: String) throws {
        let text = Self.item(adding: extra)
        let parsed = try #require(Self.fast(text), "\(text)")
        #expect(parsed == Self.decoded(text), "\(text)")
    }

    /// Item, category and goal uids in capitals are read in lower case, as `JSONDecoder`
    /// reads them, also when the category was seen before in another spelling.
    @Test func upperCaseUidsAreReadInLowerCaseAsJSONDecoderReadsThem() throws {
        let upper = Self.item.replacing(Self.category, with: Self.category.uppercased())
            .replacing(Self.uid, with: Self.uid.uppercased())
        let text = String(upper.dropLast()) + #","counterPartyUid":"90C0B200-0000-4000-8000-0000000000F1"}"#
        var categories: [String] = []
        _ = try #require(Self.fast(Array(Self.item.utf8), categories: &categories))
        for _ in 1...2 {
            let parsed = try #require(Self.fast(Array(text.utf8), categories: &categories))
            #expect(parsed == Self.decoded(text))
            #expect(parsed.feedItemUid == Self.uid)
            #expect(parsed.categoryUid == Self.category)
            #expect(parsed.counterPartyUid == "90c0b200-0000-4000-8000-0000000000f1")
        }
    }

    /// A feed item's own uid that is not a UUID is no identity, and both readers keep what
    /// was sent, for the warning; white space around a UUID is not part of it.
    @Test(
        arguments: [
            ("u1", #""u1""#), (" ", #"" ""#), ("a b/c'd~", #""a b/c'd~""#), (#"caf\u00e9-1"#, #""caf\u00e9-1""#),
            (#"cafe\u0301-1"#, #""cafe\u0301-1""#), (uid + #"\u200b"#, #"""# + uid + #"\u200b""#),
            (#"\u00a0"# + uid + #"\n"#, nil),
        ] as [(String, String?)])
    func aUidThatIsNotAUUIDIsReadAlikeAndKept(sent: String, kept: String?) throws {
        let text = Self.item.replacing(Self.uid, with: sent)
        let decoded = try #require(Self.decoded(text), "\(text)")
        #expect(decoded.feedItemUid == (kept == nil ? Self.uid : ""), "\(text)")
        #expect(decoded.unreadableUid == kept, "\(text)")
        if let parsed = Self.fast(text) { #expect(parsed == decoded, "\(text)") }
    }

    /// Any other uid that is not a UUID is left to `JSONDecoder`, which refuses the item
    /// naming the field.
    @Test(arguments: [
        (category, "c1"), (category, ""), (category, #"ca7e0000-0000-4000-8000-0000000000c\u0031 x"#),
        (category, "ca7e0000-0000-4000-8000-0000000000c１"), (category, "{ca7e0000-0000-4000-8000-0000000000c1}"),
        (#""Shop""#, #""Shop","counterPartyUid":"goal-1""#),
    ])
    func anotherUidThatIsNotAUUIDRefusesTheItem(old: String, new: String) throws {
        let text = Self.item.replacing(old, with: new)
        #expect(text != Self.item)
        #expect(Self.fast(text) == nil, "\(text)")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(FeedItem.self, from: Data(text.utf8)) }
    }

    @Test func valuesAndSpacingAreReadAsJSONDecoderReadsThem() throws {
        let changes = [
            ("1234", "0"), ("1234", "-1234"), ("1234", "9223372036854775807"), ("1234", "-9223372036854775808"),
            (#""2026-11-10T09:00:00.000Z""#, "null"), (#""MASTER_CARD""#, "null"), (#""Shop""#, " null"),
            (#""SETTLED""#, #""""#), (Self.uid, "a b/c'd~"), (Self.uid, " \(Self.uid.uppercased())  "),
        ]
        for (old, new) in changes {
            let text = Self.item.replacingOccurrences(of: old, with: new)
            #expect(text != Self.item)
            let parsed = try #require(Self.fast(text), "\(text)")
            #expect(parsed == Self.decoded(text), "\(text)")
        }
        let spaced = Self.item.replacingOccurrences(of: #",""#, with: " ,\n\t\"")
            .replacingOccurrences(of: #"":"#, with: "\"\r\n: ")
        #expect(spaced.contains("\r\n") && spaced.contains("\t"))
        let parsed = try #require(Self.fast(" \(spaced)\n"))
        #expect(parsed == Self.decoded(spaced))
    }

    /// As `FeedItem.init(from:)`: the bank rounded up when `roundUp` is there and not null,
    /// whatever its value.
    @Test(arguments: [
        ("", false), (#","roundUp":null"#, false), (#","roundUp" : null "#, false),
        (#","roundUp":{"amount":{"currency":"GBP","minorUnits":51}}"#, true), (#","roundUp":{}"#, true),
        (#","roundUp":false"#, true), (#","roundUp":0"#, true), (#","roundUp":"no""#, true), (#","roundUp":[]"#, true),
    ])
    func roundUpIsThereAndNotNull(extra: String, expected: Bool) throws {
        let text = Self.item(adding: extra)
        let parsed = try #require(Self.fast(text), "\(text)")
        #expect(parsed.hasBankRoundUp == expected, "\(text)")
        #expect(parsed == Self.decoded(text), "\(text)")
    }

    @Test func equalCategoryUidsAreOneString() throws {
        let uid = "22222222-2222-4222-8222-000000000001"
        let text = Self.item.replacingOccurrences(of: Self.category, with: uid)
        var categories: [String] = []
        let first = try #require(Self.fast(Array(text.utf8), categories: &categories))
        let second = try #require(Self.fast(Array(text.utf8), categories: &categories))
        #expect(first.categoryUid == uid && categories == [uid])
        let (firstStorage, secondStorage) = (storage(of: first.categoryUid), storage(of: second.categoryUid))
        #expect(firstStorage != nil && firstStorage == secondStorage, "the same instance")
    }

    /// In the stream, an item is read from a buffer that may hold what follows it.
    @Test func anItemFollowedByMoreIsReadUpToItsEnd() throws {
        let bytes = Array((Self.item + #" ,{"feedItemUid":"u2"}]}"#).utf8)
        var categories: [String] = []
        let (open, openEnd) = withCursor(bytes) { cursor in
            (cursor.feedItem(requireEnd: false, categories: &categories), cursor.position)
        }
        #expect(open == Self.decoded(Self.item) && open != nil)
        #expect(openEnd == Self.item.utf8.count, "just after the item's closing brace")
        #expect(Self.fast(bytes, categories: &categories) == nil, "all of it is not one item")
    }

    // MARK: - Left to JSONDecoder

    /// What the parser must not read itself, because `JSONDecoder` might read it otherwise
    /// or refuse it in its own words: each is `item` with one change.
    @Test(arguments: [
        // Escapes, in a value or a key.
        (#""Shop""#, #""Sh\u006fp""#), (uid, uid.replacing("-", with: #"\u002d"#, maxReplacements: 1)),
        (#""MASTER_CARD""#, #""MASTER\u005fCARD""#),
        (#""GBP""#, #""\u0047BP""#), (#""status""#, #""st\u0061tus""#), (#""direction""#, #""\u0078":1,"direction""#),
        (#""minorUnits""#, #""\u006dinorUnits""#),
        // A byte outside ASCII, in a value the item reads or in a key.
        (#""Shop""#, #""Café""#), (#""GBP""#, #""GB£""#), (#""status""#, #""statüs":1,"status""#),
        (#""Shop"}"#, #""Shop","reference":"Caf\u00e9"}"#), (#""Shop"}"#, #""Shop","reference":"Café"}"#),
        // A number that is not a plain 64-bit integer.
        ("1234", "1234.0"), ("1234", "12.5"), ("1234", "1.234e3"), ("1234", "1234E0"), ("1234", "-0"),
        ("1234", "9223372036854775808"), ("1234", #""1234""#),
        // A key twice, in the item or its amount.
        (#""status":"SETTLED""#, #""status":"SETTLED","status":"SETTLED""#),
        (#""source":"MASTER_CARD""#, #""source":null,"source":null"#),
        (#""currency":"GBP""#, #""currency":"GBP","currency":"GBP""#),
        (#""minorUnits":1234"#, #""minorUnits":1,"minorUnits":1234"#),
        (#""counterPartyName":"Shop""#, #""counterPartyName":"Shop","roundUp":null,"roundUp":{}"#),
        (#""Shop"}"#, #""Shop","reference":"a","reference":"a"}"#),
        // Another type, a field missing, or not JSON.
        (#""status":"SETTLED""#, #""status":5"#), (#""source":"MASTER_CARD""#, #""source":true"#),
        (#""direction":"OUT","#, ""), (#""amount":{"currency":"GBP","minorUnits":1234}"#, #""amount":null"#),
        (#""currency":"GBP","#, ""), (#""Shop"}"#, #""Shop"} x"#), (#""Shop"}"#, #""Shop""#),
        (#""Shop"}"#, #""Shop",,}"#),
    ])
    func theParserGivesUp(replacing old: String, with new: String) throws {
        #expect(Self.fast(Self.item) != nil)
        let text = Self.item.replacingOccurrences(of: old, with: new)
        #expect(text != Self.item, "the change applies")
        #expect(Self.fast(text) == nil, "\(text)")
    }
}
