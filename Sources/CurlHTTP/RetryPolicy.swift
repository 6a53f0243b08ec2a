public import Foundation

/// How requests that failed in a way that may pass are tried again: exponential backoff
/// with jitter, `Retry-After` honoured, a cap per request and a budget for the whole run.
///
/// A plain value: `decision(after:attempt:now:jitter:)` is a pure function, so the
/// schedule is tested without a clock or a network.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts per request, the first one included; 1 means no retries.
    public var maxAttempts: Int
    /// The delay before the second attempt, before jitter. Each later one doubles it.
    public var initialDelay: Duration
    /// No backoff delay is longer than this.
    public var maxDelay: Duration
    /// The longest `Retry-After` the job waits for. A bank that asks for longer gets no
    /// retry: the run ends as a temporary failure and the next run tries again.
    public var maxRetryAfter: Duration
    /// Retries allowed across all requests of one run.
    public var runRetries: Int
    /// Time that all of a run's retries may spend waiting, added up.
    public var runWait: Duration

    public init(
        maxAttempts: Int = 6, initialDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30),
        maxRetryAfter: Duration = .seconds(120), runRetries: Int = 200, runWait: Duration = .seconds(900)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = max(.zero, initialDelay)
        self.maxDelay = max(self.initialDelay, maxDelay)
        self.maxRetryAfter = max(.zero, maxRetryAfter)
        self.runRetries = max(0, runRetries)
        self.runWait = max(.zero, runWait)
    }

    /// The policy of a normal run.
    public static let standard = RetryPolicy()
    /// Every request is tried once.
    public static let never = RetryPolicy(maxAttempts: 1, runRetries: 0)

    /// What to do after attempt number `attempt` (1 for the first) failed with `failure`.
    ///
    /// - Parameters:
    ///   - now: the wall-clock time, to read a `Retry-After` given as an HTTP date.
    ///   - jitter: a number in 0...1 drawn at random by the caller; the backoff delay is
    ///     spread over the upper half of its range ("equal jitter"), so that clients who
    ///     failed together do not retry together, yet none retries at once.
    public func decision(after failure: RetryableFailure, attempt: Int, now: Date, jitter: Double) -> RetryDecision {
        guard failure.isRetryable else { return .stop(.notRetryable) }
        guard attempt < maxAttempts else { return .stop(.attemptsExhausted(attempt)) }
        let backoff = backoffDelay(beforeAttempt: attempt + 1, jitter: jitter)
        if case .status(_, let header?) = failure, let asked = RetryAfter(header)?.delay(from: now) {
            guard asked <= maxRetryAfter else { return .stop(.retryAfterTooLong(asked)) }
            return .retry(after: max(asked, backoff))
        }
        return .retry(after: backoff)
    }

    /// The jittered backoff delay before attempt `attempt` (2 for the first retry).
    public func backoffDelay(beforeAttempt attempt: Int, jitter: Double) -> Duration {
        let doublings = min(max(0, attempt - 2), 40)
        var full = initialDelay
        for _ in 0..<doublings where full < maxDelay { full *= 2 }
        full = min(full, maxDelay)
        let half = full.nanoseconds / 2
        let spread = min(max(jitter, 0), 1)
        return .nanoseconds(half + Int64((Double(half) * spread).rounded()))
    }
}

/// A failure as the retry policy sees it.
public enum RetryableFailure: Sendable, Equatable {
    /// No response arrived.
    case transport(TransportError.Kind)
    /// A response with this status, and its `Retry-After` header if any.
    case status(Int, retryAfter: String?)
    /// A successful status whose body could not be read as promised: cut short or garbled
    /// on the way, so worth another try. A body that stays unreadable is reported.
    case unreadableBody
    /// The server may have acted on a request that must not be sent twice (a timeout, a
    /// lost connection or a 5xx after it went out): the caller finds out what happened
    /// before anything is sent again, so it is never retried blindly.
    case mayHaveActed
    /// A failure another attempt cannot change: the run's own time limit has passed (so
    /// nothing was sent), or a body the client will not read however it arrives (nested
    /// deeper than it follows).
    case final

    /// Whether another attempt may succeed: connection failures, timeouts, 408, 429 and 5xx,
    /// and unreadable bodies. A refused TLS handshake, a bad URL or another 4xx will not
    /// change by trying again.
    public var isRetryable: Bool {
        switch self {
        case .transport(let kind):
            switch kind {
            case .couldNotConnect, .timedOut, .connectionLost: true
            case .tls, .badRequest, .tooLarge, .other: false
            }
        case .status(let status, _):
            status == 408 || status == 429 || (500..<600).contains(status)
        case .unreadableBody:
            true
        case .mayHaveActed, .final:
            false
        }
    }
}

/// The policy's answer after a failed attempt.
public enum RetryDecision: Sendable, Equatable {
    /// Wait this long, then try again.
    case retry(after: Duration)
    /// Give up and report the failure.
    case stop(RetryStop)
}

/// Why no further attempt is made.
public enum RetryStop: Sendable, Equatable, CustomStringConvertible {
    /// The failure will not pass by trying again.
    case notRetryable
    /// This many attempts were made, the most the policy allows.
    case attemptsExhausted(Int)
    /// The bank asked to wait longer than the policy allows.
    case retryAfterTooLong(Duration)
    /// The run has used up its retries or its waiting time.
    case runBudgetSpent
    /// The run was cancelled while waiting.
    case cancelled
    /// Waiting this long before trying again would outlast the run's time limit.
    case waitOutlastsRun(Duration)

    public var description: String {
        switch self {
        case .notRetryable: "not retried"
        case .attemptsExhausted(let attempts): "gave up after \(RetryStop.count(attempts))"
        case .retryAfterTooLong(let asked): "the bank asked to wait \(asked.inSeconds), longer than the job waits"
        case .runBudgetSpent: "gave up: this run's retry budget is spent"
        case .cancelled: "cancelled while waiting to retry"
        case .waitOutlastsRun(let wait): "waiting \(wait.inSeconds) to try again would outlast the run's time limit"
        }
    }

    /// "1 attempt", "2 attempts".
    public static func count(_ attempts: Int) -> String { "\(attempts) attempt\(attempts == 1 ? "" : "s")" }
}

/// A `Retry-After` header: a number of seconds, or an HTTP date (RFC 9110 §10.2.3).
public enum RetryAfter: Sendable, Equatable {
    case seconds(Int)
    case date(Date)

    /// Reads the header; nil when it is neither form.
    public init?(_ header: String) {
        let text = header.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // Leading zeros mean nothing (`0000000000086400` is a day); a huge number still
            // means "a long time", not a parse failure: it saturates at about 31 years.
            let digits = text.drop { $0 == "0" }
            self = .seconds(digits.isEmpty ? 0 : digits.count > 9 ? 999_999_999 : Int(digits)!)
            return
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        self = .date(date)
    }

    /// How long to wait from `now`; never negative.
    public func delay(from now: Date) -> Duration {
        switch self {
        case .seconds(let seconds):
            return .seconds(seconds)
        case .date(let date):
            let milliseconds = (date.timeIntervalSince(now) * 1000).rounded(.up)
            return milliseconds > 0 ? .milliseconds(Int64(min(milliseconds, 1e12))) : .zero
        }
    }
}

extension Duration {
    /// The duration in seconds for messages, to the millisecond: `0.5 s`, `120 s`.
    public var inSeconds: String {
        let milliseconds = nanoseconds / 1_000_000
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        let fraction = String(abs(milliseconds % 1000)).leftPadded(to: 3)
        var trimmed = Substring(fraction)
        while trimmed.hasSuffix("0") { trimmed.removeLast() }
        return "\(milliseconds / 1000).\(trimmed) s"
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating at about 292 years.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow
            ? (seconds < 0 ? .min : .max) : whole.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
