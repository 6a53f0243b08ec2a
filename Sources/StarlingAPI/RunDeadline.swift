import CurlHTTP
import Synchronization

/// A whole run's time limit (`runTimeoutSeconds`): once it has passed, no new request to
/// the bank starts, so that a bank answering each request just inside its own timeout
/// cannot keep one run going for hours. A request already under way is let finish, and a
/// transfer that was never sent is left for the next run, which looks in the feed first.
/// It remembers the slowest request, so that the run can say which endpoint held it up.
public final class RunDeadline: Sendable {
    public let limit: Duration
    private let ends: ContinuousClock.Instant
    private let slowest = Mutex<(endpoint: String, took: Duration)?>(nil)

    public init(_ limit: Duration, from start: ContinuousClock.Instant = .now) {
        self.limit = limit
        ends = start + limit
    }

    /// Whether the time is up.
    public var hasPassed: Bool { ContinuousClock.now >= ends }

    /// Whether waiting `delay` from now ends before the time is up.
    public func allows(waiting delay: Duration) -> Bool { ContinuousClock.now + delay < ends }

    /// A request to `endpoint` took `took`.
    func record(_ endpoint: String, took: Duration) {
        slowest.withLock { slowest in
            if slowest.map({ took > $0.took }) ?? true { slowest = (endpoint, took) }
        }
    }

    /// The slowest request so far, in words: `the slowest request was GET /api/v2/accounts (29.8 s)`.
    var slowestRequest: String? {
        slowest.withLock { $0.map { "the slowest request was \($0.endpoint) (\($0.took.inSeconds))" } }
    }
}
