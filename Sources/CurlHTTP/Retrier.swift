public import Foundation
import Synchronization

/// The time source of retries: the wall clock (for `Retry-After` dates) and sleeping. The
/// program's root gives the one it reads the wall clock through; tests give a fake one that
/// records each sleep and returns at once.
public protocol RetryClock: Sendable {
    /// The current wall-clock time.
    func now() -> Date
    /// Waits for `duration`; throws if the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// What one run may still spend on retries, shared by all of its requests, so that a bank
/// that keeps failing costs a bounded number of requests and a bounded time overall.
public final class RetryBudget: Sendable {
    private struct Spent {
        var retries = 0
        var wait = Duration.zero
    }

    private let limitRetries: Int
    private let limitWait: Duration
    private let spent = Mutex(Spent())

    public init(retries: Int, wait: Duration) {
        limitRetries = retries
        limitWait = wait
    }

    /// Takes one retry that waits `delay` from the budget; false if it does not fit.
    func take(_ delay: Duration) -> Bool {
        spent.withLock { spent in
            guard spent.retries < limitRetries, spent.wait + delay <= limitWait else { return false }
            spent.retries += 1
            spent.wait += delay
            return true
        }
    }

    /// Retries made so far in this run.
    public var retries: Int { spent.withLock { $0.retries } }
    /// Time spent waiting between attempts so far in this run.
    public var waited: Duration { spent.withLock { $0.wait } }
}

/// The last failure of a request that is not tried again, and why.
public struct RetriesEnded<Failure: Error>: Error {
    /// The failure of the last attempt.
    public let last: Failure
    /// How many attempts were made.
    public let attempts: Int
    /// Why no further attempt was made.
    public let stop: RetryStop
}

/// Runs an operation again while its failures are retryable, as `policy` says, waiting on
/// `clock` and drawing from a run-wide `budget`.
public struct Retrier: Sendable {
    public let policy: RetryPolicy
    public let budget: RetryBudget
    /// The clock it waits on, and the one a `Retry-After` date is measured from.
    public let clock: any RetryClock
    private let jitter: @Sendable () -> Double

    /// - Parameters:
    ///   - budget: shared by every request of a run; by default a new one sized by `policy`.
    ///   - jitter: draws a number in 0...1 for each delay.
    public init(
        policy: RetryPolicy, budget: RetryBudget? = nil, clock: any RetryClock,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.policy = policy
        self.budget = budget ?? RetryBudget(retries: policy.runRetries, wait: policy.runWait)
        self.clock = clock
        self.jitter = jitter
    }

    /// Calls `attempt` with the attempt number (1, 2, …) until it succeeds or the policy
    /// stops; `classify` tells the policy what a failure was, and `willRetry` hears of
    /// each retry before its wait. `mayWait` says whether a wait fits in what is left of
    /// the run's time: one that does not ends the retries at once.
    public func run<Success, Failure: Error>(
        _ attempt: (Int) async throws(Failure) -> Success,
        classify: (Failure) -> RetryableFailure,
        mayWait: (Duration) -> Bool = { _ in true },
        willRetry: (_ failure: Failure, _ attempt: Int, _ delay: Duration) -> Void = { _, _, _ in }
    ) async throws(RetriesEnded<Failure>) -> Success {
        var number = 1
        while true {
            let failure: Failure
            do {
                return try await attempt(number)
            } catch {
                failure = error
            }
            switch policy.decision(after: classify(failure), attempt: number, now: clock.now(), jitter: jitter()) {
            case .stop(let stop):
                throw RetriesEnded(last: failure, attempts: number, stop: stop)
            case .retry(let delay):
                guard mayWait(delay) else {
                    throw RetriesEnded(last: failure, attempts: number, stop: .waitOutlastsRun(delay))
                }
                guard budget.take(delay) else {
                    throw RetriesEnded(last: failure, attempts: number, stop: .runBudgetSpent)
                }
                willRetry(failure, number, delay)
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    throw RetriesEnded(last: failure, attempts: number, stop: .cancelled)
                }
                number += 1
            }
        }
    }
}
