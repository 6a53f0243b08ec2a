import CurlHTTP
import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

@testable import StarlingAPI

/// The streaming feed decoder against `JSONDecoder`: for any body, fed in any pieces, the
/// same transactions, or a refusal in words where `JSONDecoder` refuses. (Which of several
/// problems a refusal names may differ: `JSONDecoder` stops at the first problem on its way
/// through the values it decodes, the stream at the first problem in the order of the bytes.)
@Suite struct FeedDecoderTests {
    /// Why a body was refused, in words.
    struct Refusal: Error, Equatable {
        let words: String
        init(_ words: String) { self.words = words }
    }

    /// What decoding the whole body with JSONDecoder gives, as before streaming.
    static func reference(_ body: [UInt8]) -> Result<[Transaction], Refusal> {
        do {
            let list = try JSONDecoder().decode(FeedItemList.self, from: Data(body))
            var transactions: [Transaction] = []
            for item in list.feedItems {
                do throws(BankError) { transactions.append(try item.transaction()) } catch {
                    return .failure(Refusal("\(error.underlying)"))
                }
            }
            return .success(transactions)
        } catch {
            return .failure(Refusal(describe(error, body: body)))
        }
    }

    /// What the streaming decoder gives when the body arrives in pieces of these sizes.
    static func streamed(_ body: [UInt8], pieces: [Int]) -> Result<[Transaction], Refusal> {
        let decoder = FeedDecoder()
        var offset = 0
        var sizes = pieces.makeIterator()
        while offset < body.count {
            let size = min(max(1, sizes.next() ?? body.count), body.count - offset)
            let more = body[offset..<(offset + size)].withUnsafeBytes { decoder.consume($0) }
            offset += size
            if !more { break }
        }
        do throws(BankError) {
            try decoder.checkStructure(endpoint: "GET feed")
            return .success(try decoder.transactionsOrConversionError())
        } catch {
            if case .malformedResponse(_, let detail) = error, !detail.contains("not an ISO 8601 timestamp") {
                return .failure(Refusal(detail))
            }
            return .failure(Refusal("\(error.underlying)"))
        }
    }

    /// Both decoded to the same transactions, or both refused.
    static func agree(_ a: Result<[Transaction], Refusal>, _ b: Result<[Transaction], Refusal>) -> Bool {
        switch (a, b) {
        case (.success(let x), .success(let y)): x == y
        case (.failure(let refusal), .failure): !refusal.words.isEmpty
        default: false
        }
    }

    static func pieces(_ random: inout SeededRandom) -> [Int] {
        switch random.next() % 4 {
        case 0: [Int.max]
        case 1: Array(repeating: 1, count: 100_000)
        default: (0..<1000).map { _ in Int(random.next() % 200) + 1 }
        }
    }

    @Test func theSeededWeekDecodesAsJSONDecoderDoesInAnyPieces() throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london)
        let encoder = JSONEncoder()
        var random = SeededRandom(seed: 5)
        let generated = Seed.benchmark(accounts: 1, items: 150, endingOn: LocalDate(iso: "2026-11-15")!, token: "t")
        for items in Array(state.feeds.values) + Array(generated.state.feeds.values) {
            let body = Array(try encoder.encode(["feedItems": items]))
            let expected = Self.reference(body)
            #expect(try expected.get().count == items.count)
            for _ in 0..<20 {
                #expect(Self.streamed(body, pieces: Self.pieces(&random)) == expected)
            }
        }
    }

    /// An item longer than `FeedDecoder.largeItem` is followed to its end first, then read.
    @Test func aHugeItemArrivingInSmallPiecesDecodesAlike() throws {
        let name = String(repeating: "x", count: 2_000_000)
        let body = Array(
            (#"{"feedItems":[{"feedItemUid":"u","categoryUid":"ca7e0000-0000-4000-8000-00000000000c","direction":"OUT","status":"SETTLED","#
                + #""amount":{"currency":"GBP","minorUnits":125},"counterPartyName":"\#(name)"}]}"#).utf8)
        let result = Self.streamed(body, pieces: Array(repeating: 16_384, count: 200))
        #expect(result == Self.reference(body))
        #expect(try result.get().first?.counterPartyName?.count == name.count)
    }

    @Test func bodiesThatAreNotTheUsualShapeAreDescribedAlike() {
        let bodies = [
            "", " ", "[]", "{}", "null", #"{"feedItems":null}"#, #"{"feedItems":7}"#, #"{"feedItems":[]}"#,
            #"{"feedItems":[7]}"#, #"{"feedItems":[null]}"#, #"{"feedItems":[{}]}"#, #"{"feedItems":[],}"#,
            #"{"feedItems":[{}],"x":tru}"#, #"{"x":1,"feedItems":[]}"#, #"{"feedItems":[]} x"#, #"{"feedItems":[,]}"#,
            #"{"feedItems":[{"a":01}]}"#, #"{"feedItems":[{},]}"#, #"{"feedItems":[,{}]}"#, #"{,"feedItems":[]}"#,
            #"{"feedItems":[ ]  }"#, #"{"feedItems":[{"feedItemUid":"\u0041"}]}"#,
        ]
        for body in bodies {
            let bytes = Array(body.utf8)
            let expected = Self.reference(bytes)
            #expect(Self.agree(Self.streamed(bytes, pieces: [Int.max]), expected), "\(body)")
            #expect(Self.agree(Self.streamed(bytes, pieces: Array(repeating: 1, count: 100)), expected), "\(body)")
        }
    }

    /// Valid JSON nested 1,000 deep, in an item or beside the items, whole or in pieces: "nested
    /// too deeply", which is bad data that trying again cannot change, never "not valid JSON".
    @Test func aBodyNestedTooDeeplyIsCalledThatAndNotRetried() {
        let deep = String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
        for body in [#"{"x":"# + deep + #","feedItems":[]}"#, #"{"feedItems":[{"x":"# + deep + "}]}", deep] {
            for pieces in [[Int.max], Array(repeating: 7, count: 2000)] {
                guard case .failure(let refusal) = Self.streamed(Array(body.utf8), pieces: pieces) else {
                    Issue.record("accepted: \(body.prefix(40))")
                    continue
                }
                #expect(refusal.words.hasPrefix("the body is nested too deeply"), "\(refusal.words)")
            }
            guard case .failure(let whole) = Self.reference(Array(body.utf8)) else { continue }
            #expect(whole.words.hasPrefix("the body is nested too deeply"), "\(whole.words)")
        }
        let error = BankError.malformedResponse(endpoint: "GET feed", detail: BankError.nestedTooDeeplyDetail)
        #expect(!error.retryableFailure.isRetryable)
    }

    @Test("mutated feeds decode exactly as JSONDecoder decodes them, in any pieces")
    func mutatedFeedsAgree() async throws {
        let original = try Array(fixture("feed"))
        var random = SeededRandom(seed: 42)
        var agreed = 0
        var failed = 0
        for round in 0..<3000 {
            if round % 50 == 0 { await Task.yield() }
            var body = original
            for _ in 0...(round % 4) { mutate(&body, tokens: DecodingFuzzTests.tokens, &random) }
            let expected = Self.reference(body)
            let actual = Self.streamed(body, pieces: Self.pieces(&random))
            #expect(Self.agree(actual, expected), "\(actual) \(expected) \(String(decoding: body, as: UTF8.self))")
            if Self.agree(actual, expected) { agreed += 1 }
            if case .failure = expected { failed += 1 }
        }
        print(
            "feed decoder: 3000 mutated feeds, \(agreed) decoded as JSONDecoder decodes them (\(failed) of them refused)"
        )
    }

    /// A search for transfers keeps the OUT internal transfers, one written with an escape
    /// included, whatever pieces the body comes in, and passes over every payment unread:
    /// one whose fields would not decode does not stop it.
    @Test func aSearchForTransfersKeepsEachTransferAndPassesOverPayments() throws {
        let payment =
            #"{"feedItemUid":"p1","categoryUid":"ca7e0000-0000-4000-8000-00000000000c","amount":{"currency":"GBP","minorUnits":150},"direction":"OUT","status":"SETTLED","source":"MASTER_CARD"}"#
        let odd =
            #"{"feedItemUid":"p2","categoryUid":"ca7e0000-0000-4000-8000-00000000000c","amount":"much","direction":"OUT","status":"SETTLED"}"#
        let transfer =
            #"{"feedItemUid":"7E000000-0000-4000-8000-0000000000A1","categoryUid":"ca7e0000-0000-4000-8000-00000000000c","amount":{"currency":"GBP","minorUnits":107},"direction":"OUT","status":"UPCOMING","source":"INTERNAL_TRANSFER","counterPartyUid":"90c00000-0000-4000-8000-0000000000a1","reference":"Round-up w/e 15 Nov 2026"}"#
        let escaped =
            #"{"feedItemUid":"7e000000-0000-4000-8000-0000000000a2","categoryUid":"ca7e0000-0000-4000-8000-00000000000c","amount":{"currency":"GBP","minorUnits":50},"direction":"OUT","status":"SETTLED","source":"INTERNAL_TRANSFER","counterPartyUid":"90c00000-0000-4000-8000-0000000000a1"}"#
        let incoming =
            #"{"feedItemUid":"t3","categoryUid":"ca7e0000-0000-4000-8000-00000000000c","amount":{"currency":"GBP","minorUnits":50},"direction":"IN","status":"SETTLED","source":"INTERNAL_TRANSFER"}"#
        let body =
            Array(#"{"feedItems":["#.utf8)
            + Array([payment, odd, transfer, escaped, incoming].joined(separator: ",").utf8)
            + Array("]}".utf8)
        for pieces in [[body.count], [1], [7, 3, 50], [64]] {
            let decoder = FeedDecoder(keeping: .transfersOut)
            var offset = 0
            var sizes = pieces.makeIterator()
            while offset < body.count {
                let size = min(max(1, sizes.next() ?? pieces.last!), body.count - offset)
                _ = body[offset..<(offset + size)].withUnsafeBytes { decoder.consume($0) }
                offset += size
            }
            try decoder.checkStructure(endpoint: "GET transfers")
            let kept = decoder.transfersOut()
            #expect(
                kept.map(\.feedItemUid) == [
                    "7e000000-0000-4000-8000-0000000000a1", "7e000000-0000-4000-8000-0000000000a2",
                ], "\(pieces)")
            #expect(kept.first?.reference == "Round-up w/e 15 Nov 2026")
            #expect(kept.first?.status == "UPCOMING")
        }
        #expect(!FeedDecoder.mayBeATransfer(Array(payment.utf8), from: 0, to: payment.utf8.count))
        #expect(FeedDecoder.mayBeATransfer(Array(escaped.utf8), from: 0, to: escaped.utf8.count))
    }
}
