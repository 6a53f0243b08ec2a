import CurlHTTP
import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

@testable import StarlingAPI

/// Answers every request with one canned response, to feed the client's decoding
/// arbitrary bodies without a server. (End-to-end tests use the real transport.)
struct CannedTransport: HTTPTransport {
    let response: HTTPResponse

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse { response }
}

/// Arbitrary and mutated bodies never crash the client or the plan: each either decodes
/// or fails with a `BankError` that names the endpoint and the problem.
@Suite struct DecodingFuzzTests {
    static let fixtures = ["accounts", "feed", "goals", "identity", "error-errors", "error-oauth"]
    static let tokens = [
        "{", "}", "[", "]", "\"", ",", ":", "null", "-1", "-0", "1e999", "99999999999999999999", "0.5", "\"x\"",
        "true", "\\u0000", "\\", "NaN", "\u{FFFD}", "\"minorUnits\":", "{\"a\":", "[[[[", "\"OUT\"", "\"SETTLED\"",
    ]

    /// Feeds `body` to every endpoint's decoding, and what decodes to the plan.
    static func exercise(_ body: [UInt8], status: Int = 200) async -> (decoded: Int, refused: Int) {
        let client = BankClient(
            baseURL: "https://bank.invalid", token: AccessToken("fuzz")!,
            transport: CannedTransport(response: HTTPResponse(status: status, body: body)),
            retrier: Retrier(policy: .never, clock: StoppedClock()), pacer: RequestPacer(perSecond: 1_000_000))
        var decoded = 0
        var refused = 0
        func check(_ error: BankError) {
            refused += 1
            let text = error.description
            #expect(text.contains("/api/v2/"), "the message names the endpoint: \(text)")
            if case .malformedResponse(_, let detail) = error.underlying {
                #expect(
                    !detail.isEmpty && !detail.contains("DecodingError") && !detail.contains("codingPath"), "\(detail)")
            }
        }
        do throws(BankError) {
            _ = try await client.tokenIdentity()
            decoded += 1
        } catch { check(error) }
        do throws(BankError) {
            _ = try await client.accounts()
            decoded += 1
        } catch { check(error) }
        do throws(BankError) {
            _ = try await client.savingsGoals(accountUid: namedUid("a"))
            decoded += 1
        } catch { check(error) }
        do throws(BankError) {
            let amount = CurrencyAndAmount(currency: "GBP", minorUnits: 1)
            _ = try await client.addMoney(
                accountUid: namedUid("a"), goalUid: namedUid("g"), transferUid: namedUid("t"), amount: amount,
                reference: nil)
            decoded += 1
        } catch { check(error) }
        let week = Week(endingOn: LocalDate(iso: "2026-11-15")!, in: TimeZone(identifier: "Europe/London")!)
        do throws(BankError) {
            let transactions = try await client.settledTransactions(
                accountUid: namedUid("a"), from: week.start, to: week.end)
            decoded += 1
            let account = Account(
                uid: "a", defaultCategory: "22222222-2222-4222-8222-000000000001", currencyCode: "GBP")
            let policy = try! RoundUpPolicy()
            do throws(PlanError) {
                _ = try RoundUpPlan(
                    account: account, feed: transactions, week: week, rule: SelectionRule(), policy: policy)
            } catch {
                #expect(!error.description.isEmpty)
            }
        } catch { check(error) }
        return (decoded, refused)
    }

    @Test("mutated bank bodies never crash decoding or planning and always give a clear error")
    func mutatedBodies() async throws {
        var random = SeededRandom(seed: 20_261_121)
        var inputs = 0
        var decoded = 0
        var refused = 0
        for name in Self.fixtures {
            let original = try Array(fixture(name))
            for round in 0..<400 {
                // Leave the shared threads to the emulators of tests running alongside.
                if round % 20 == 0 { await Task.yield() }
                var body = original
                for _ in 0...(round % 5) { mutate(&body, tokens: Self.tokens, &random) }
                let outcome = await Self.exercise(body, status: round % 10 == 0 ? 400 : 200)
                inputs += 1
                decoded += outcome.decoded
                refused += outcome.refused
            }
        }
        #expect(refused > 0 && decoded > 0)
        print(
            "decoding fuzz: \(inputs) mutated bodies, each through 5 endpoints: \(decoded) decoded, \(refused) refused with a message, no crash"
        )
    }

    @Test("arbitrary bytes never crash decoding")
    func arbitraryBytes() async {
        var random = SeededRandom(seed: 7)
        for round in 0..<500 {
            if round % 20 == 0 { await Task.yield() }
            let body = (0..<Int(random.next() % 300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let outcome = await Self.exercise(body)
            #expect(outcome.refused == 5, "random bytes should not decode")
        }
        print(
            "decoding fuzz: 500 bodies of random bytes, each through 5 endpoints, all refused with a message, no crash")
    }
}

/// A clock at a fixed time that never waits: the fuzzed client never retries.
private struct StoppedClock: RetryClock {
    func now() -> Date { Date(timeIntervalSince1970: 1_795_000_000) }
    func sleep(for duration: Duration) async throws { throw CancellationError() }
}
