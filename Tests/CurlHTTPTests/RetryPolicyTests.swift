import CurlHTTP
import Foundation
import Synchronization
import Testing

/// A clock that never waits: it records each sleep and moves its time forward by it.
final class FakeClock: RetryClock {
    private let state: Mutex<(now: Date, sleeps: [Duration])>

    init(now: Date = Date(timeIntervalSince1970: 1_763_000_000)) {
        state = Mutex((now, []))
    }

    func now() -> Date { state.withLock { $0.now } }

    func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(duration)
            state.now += Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
    }

    var sleeps: [Duration] { state.withLock { $0.sleeps } }
}

struct Failed: Error, Equatable {
    let failure: RetryableFailure
}

@Suite("Retry policy")
struct RetryPolicyTests {
    let policy = RetryPolicy(
        maxAttempts: 7, initialDelay: .milliseconds(100), maxDelay: .seconds(1), maxRetryAfter: .seconds(60))
    let now = Date(timeIntervalSince1970: 1_763_000_000)

    @Test("the backoff doubles from the first delay up to the cap")
    func backoffDoubles() {
        let full = (2...8).map { policy.backoffDelay(beforeAttempt: $0, jitter: 1) }
        #expect(full == [100, 200, 400, 800, 1000, 1000, 1000].map { Duration.milliseconds($0) })
        let least = (2...8).map { policy.backoffDelay(beforeAttempt: $0, jitter: 0) }
        #expect(least == [50, 100, 200, 400, 500, 500, 500].map { Duration.milliseconds($0) })
        #expect(policy.backoffDelay(beforeAttempt: 3, jitter: 0.5) == .milliseconds(150))
    }

    @Test("a delay always lies in the upper half of its step and never beyond the cap")
    func jitterBounds() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let attempt = Int.random(in: 2...60, using: &generator)
            let jitter = Double.random(in: 0...1, using: &generator)
            let delay = policy.backoffDelay(beforeAttempt: attempt, jitter: jitter)
            let step = min(Duration.milliseconds(100) * (1 << min(attempt - 2, 20)), .seconds(1))
            #expect(delay >= step / 2 && delay <= step, "attempt \(attempt), jitter \(jitter): \(delay)")
        }
    }

    @Test(
        "connection failures, timeouts, 408, 429, 5xx and garbled bodies are retried",
        arguments: [
            RetryableFailure.transport(.couldNotConnect), .transport(.timedOut), .transport(.connectionLost),
            .status(408, retryAfter: nil), .status(429, retryAfter: nil), .status(500, retryAfter: nil),
            .status(502, retryAfter: nil), .status(503, retryAfter: nil), .status(599, retryAfter: nil),
            .unreadableBody,
        ])
    func retryable(failure: RetryableFailure) {
        #expect(policy.decision(after: failure, attempt: 1, now: now, jitter: 1) == .retry(after: .milliseconds(100)))
    }

    @Test(
        "TLS failures, bad requests and other 4xx are not retried",
        arguments: [
            RetryableFailure.transport(.tls), .transport(.badRequest), .transport(.other),
            .status(400, retryAfter: nil), .status(401, retryAfter: nil), .status(403, retryAfter: nil),
            .status(404, retryAfter: nil), .status(409, retryAfter: "1"),
        ])
    func notRetryable(failure: RetryableFailure) {
        #expect(policy.decision(after: failure, attempt: 1, now: now, jitter: 1) == .stop(.notRetryable))
    }

    @Test("the last allowed attempt is not followed by another")
    func attemptsRunOut() {
        let failure = RetryableFailure.status(503, retryAfter: nil)
        #expect(policy.decision(after: failure, attempt: 6, now: now, jitter: 0) != .stop(.attemptsExhausted(6)))
        #expect(policy.decision(after: failure, attempt: 7, now: now, jitter: 0) == .stop(.attemptsExhausted(7)))
        #expect(
            RetryPolicy.never.decision(after: failure, attempt: 1, now: now, jitter: 0) == .stop(.attemptsExhausted(1)))
    }

    @Test("Retry-After in seconds is waited for, never less than the backoff")
    func retryAfterSeconds() {
        #expect(
            policy.decision(after: .status(429, retryAfter: "3"), attempt: 1, now: now, jitter: 1)
                == .retry(after: .seconds(3)))
        #expect(
            policy.decision(after: .status(503, retryAfter: " 2 "), attempt: 1, now: now, jitter: 1)
                == .retry(after: .seconds(2)))
        // "0" asks for no wait; the backoff still spaces the attempts out.
        #expect(
            policy.decision(after: .status(429, retryAfter: "0"), attempt: 3, now: now, jitter: 1)
                == .retry(after: .milliseconds(400)))
    }

    @Test("Retry-After as an HTTP date counts from the clock's now")
    func retryAfterDate() {
        let clockNow = Date(timeIntervalSince1970: 784_111_770)  // Sun, 06 Nov 1994 08:49:30 GMT
        #expect(
            policy.decision(
                after: .status(429, retryAfter: "Sun, 06 Nov 1994 08:49:37 GMT"), attempt: 1, now: clockNow, jitter: 1)
                == .retry(after: .seconds(7)))
        // A date already past means no wait beyond the backoff.
        #expect(
            policy.decision(
                after: .status(429, retryAfter: "Sun, 06 Nov 1994 08:49:00 GMT"), attempt: 1, now: clockNow, jitter: 1)
                == .retry(after: .milliseconds(100)))
        #expect(RetryAfter("Sun, 06 Nov 1994 08:49:37 GMT") == .date(Date(timeIntervalSince1970: 784_111_777)))
    }

    @Test("a Retry-After longer than the limit ends the retries; one that cannot be read is ignored")
    func retryAfterLimits() {
        #expect(
            policy.decision(after: .status(429, retryAfter: "61"), attempt: 1, now: now, jitter: 1)
                == .stop(.retryAfterTooLong(.seconds(61))))
        #expect(
            policy.decision(after: .status(429, retryAfter: "99999999999999999999"), attempt: 1, now: now, jitter: 1)
                == .stop(.retryAfterTooLong(.seconds(999_999_999))))
        // Leading zeros count for nothing: this is a day, not 9 digits read as 0.
        #expect(RetryAfter("0000000000086400") == .seconds(86_400))
        #expect(RetryAfter("000") == .seconds(0))
        #expect(
            policy.decision(after: .status(429, retryAfter: "0000000000086400"), attempt: 1, now: now, jitter: 1)
                == .stop(.retryAfterTooLong(.seconds(86_400))))
        for garbage in ["soon", "-5", "1.5", "", "Tue, 99 Foo 2026 25:00:00 GMT"] {
            #expect(
                policy.decision(after: .status(429, retryAfter: garbage), attempt: 1, now: now, jitter: 1)
                    == .retry(after: .milliseconds(100)), "Retry-After: \(garbage)")
        }
    }

    @Test("the retrier sleeps as the policy says, on the given clock, and returns the first success")
    func retrierFollowsPolicy() async throws {
        let clock = FakeClock()
        let retrier = Retrier(policy: policy, clock: clock, jitter: { 1 })
        let script: [RetryableFailure?] = [
            .transport(.connectionLost), .status(429, retryAfter: "2"), .status(502, retryAfter: nil), nil,
        ]
        var heard: [Int] = []
        let value = try await retrier.run(
            { (attempt: Int) async throws(Failed) -> Int in
                if let failure = script[attempt - 1] { throw Failed(failure: failure) }
                return attempt
            },
            classify: \.failure, willRetry: { _, attempt, _ in heard.append(attempt) })
        #expect(value == 4)
        #expect(heard == [1, 2, 3])
        #expect(clock.sleeps == [.milliseconds(100), .seconds(2), .milliseconds(400)])
        #expect(retrier.budget.retries == 3)
        #expect(retrier.budget.waited == .milliseconds(2500))
    }

    @Test("a failure that is not retryable ends at once with no sleep")
    func retrierStopsAtOnce() async {
        let clock = FakeClock()
        let retrier = Retrier(policy: policy, clock: clock, jitter: { 1 })
        await #expect(throws: RetriesEnded<Failed>.self) {
            try await retrier.run(
                { (_: Int) async throws(Failed) -> Int in throw Failed(failure: .status(400, retryAfter: nil)) },
                classify: \.failure)
        }
        #expect(clock.sleeps.isEmpty)
    }

    @Test("attempts run out: the last failure is reported with the count")
    func retrierGivesUp() async {
        let clock = FakeClock()
        let retrier = Retrier(policy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(10)), clock: clock)
        do {
            _ = try await retrier.run(
                { (attempt: Int) async throws(Failed) -> Int in
                    throw Failed(failure: .status(500 + attempt, retryAfter: nil))
                }, classify: \.failure)
            Issue.record("expected the retries to end")
        } catch {
            #expect(error.attempts == 3)
            #expect(error.stop == .attemptsExhausted(3))
            #expect(error.last == Failed(failure: .status(503, retryAfter: nil)))
        }
        #expect(clock.sleeps.count == 2)
    }

    @Test("the run's retry budget is shared by every request and bounds them all")
    func runBudget() async {
        let clock = FakeClock()
        let budget = RetryBudget(retries: 3, wait: .seconds(100))
        let retrier = Retrier(policy: policy, budget: budget, clock: clock, jitter: { 0 })
        var attempts = 0
        for _ in 0..<2 {
            do {
                _ = try await retrier.run(
                    { (_: Int) async throws(Failed) -> Int in
                        attempts += 1
                        throw Failed(failure: .transport(.timedOut))
                    }, classify: \.failure)
            } catch {
                #expect(error.stop == .runBudgetSpent)
            }
        }
        // Three retries in all: the first request used them up, the second got none.
        #expect(attempts == 5)
        #expect(budget.retries == 3)
        #expect(clock.sleeps.count == 3)
    }

    @Test("the run's waiting time is bounded too")
    func waitBudget() async {
        let clock = FakeClock()
        let budget = RetryBudget(retries: 100, wait: .seconds(5))
        let retrier = Retrier(policy: policy, budget: budget, clock: clock, jitter: { 1 })
        do {
            _ = try await retrier.run(
                { (_: Int) async throws(Failed) -> Int in throw Failed(failure: .status(429, retryAfter: "2")) },
                classify: \.failure)
        } catch {
            #expect(error.stop == .runBudgetSpent)
            #expect(error.attempts == 3)
        }
        #expect(clock.sleeps == [.seconds(2), .seconds(2)])
    }

    @Test("durations read as seconds in messages")
    func durationText() {
        #expect(Duration.milliseconds(500).inSeconds == "0.5 s")
        #expect(Duration.seconds(120).inSeconds == "120 s")
        #expect(Duration.milliseconds(1250).inSeconds == "1.25 s")
        #expect(Duration.milliseconds(7).inSeconds == "0.007 s")
    }
}
