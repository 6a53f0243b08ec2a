/// Keeps all of a run's requests, retries included, under a rate of `perSecond` as the
/// server counts them, and counts the requests it lets through. A server's `Retry-After`
/// holds every request until it has passed.
///
/// The server sees a request at some moment between its start and its end here, and the
/// network decides when. So a request counts against the rate from its start until one
/// second after its end, and the next one starts only while fewer than `perSecond` count:
/// then no second at the server can hold more than `perSecond` arrivals, however late or
/// early each one reaches it.
public actor RequestPacer {
    /// Requests a second the pacer keeps under.
    public nonisolated let perSecond: Int
    /// Requests let through so far.
    public private(set) var sent = 0
    /// When each request that still counts ended; nil while it is under way.
    private var counting: [Int: ContinuousClock.Instant?] = [:]
    private var heldUntil: ContinuousClock.Instant = .now
    private static let window = Duration.seconds(1)
    private static let poll = Duration.milliseconds(5)

    public init(perSecond: Int) {
        self.perSecond = max(1, perSecond)
    }

    /// Waits for a request's turn, counts it, and returns its ticket for `finished(_:)`.
    /// A cancelled task goes at once: it is on its way out.
    public func admit() async -> Int {
        while !Task.isCancelled {
            let now = ContinuousClock.now
            counting = counting.filter { _, end in end.map { now - $0 < Self.window } ?? true }
            if now >= heldUntil, counting.count < perSecond { break }
            // The earliest moment a place can free up: the hold's end, a second after the
            // oldest end, or (with every counted request under way) a short poll.
            let ends = counting.values.compactMap { $0 }
            var wake = ends.min().map { $0 + Self.window } ?? now + Self.poll
            if counting.count < perSecond { wake = heldUntil }
            try? await Task.sleep(until: max(wake, now + .milliseconds(1)), clock: .continuous)
        }
        sent += 1
        counting[sent] = .some(nil)
        return sent
    }

    /// The request with `ticket` has ended: it counts for one second more.
    public func finished(_ ticket: Int) {
        if counting[ticket] != nil { counting[ticket] = .some(.now) }
    }

    /// Holds every request not yet started until `duration` from now has passed, as a
    /// server's `Retry-After` asks.
    public func hold(for duration: Duration) {
        heldUntil = max(heldUntil, .now + duration)
    }
}
