import RoundUp

/// How the emulated bank behaves where banks differ, or where the bank does not say: for
/// trying the job against a bank that is less kind than the default one.
public struct EmulatorBehaviour: Sendable, Hashable {
    /// Whether add-money with a transfer uid already used is answered as before and moves
    /// nothing. Off by default: the bank documents no deduplication, so each such request
    /// moves the money again, exactly like a new transfer, and the job must not rely on it.
    public var deduplicatesTransfers: Bool
    /// How far the bank's clock is from the real one: positive is ahead, negative behind.
    /// It shifts every instant the emulator stamps (transfers' feed items, goals' creation
    /// and activation), not seeded data nor how requests' query bounds are read.
    public var clockOffset: Duration
    /// When set, a goal created by PUT starts in state CREATING and is served as ACTIVE
    /// once this much time has passed on the bank's clock; until then add-money into it
    /// is refused with 400 SAVINGS_GOAL_NOT_ACTIVE. When nil, new goals are ACTIVE at once.
    public var goalActivationDelay: Duration?
    /// When set, requests over the limit are refused with 429 and a `Retry-After`, as the
    /// bank does for a token that asks too often. When nil there is no limit.
    public var rateLimit: RateLimit?
    /// Whether a transfer's feed items carry the reference it was sent with. Off by
    /// default: the bank does not document whether they do, so the job must not need it.
    public var feedReference: Bool
    /// Which of the fields of the round-up answer, all optional in the spec, are sent.
    public var roundUpAnswer: RoundUpAnswer
    /// Whether every uid in an answer is written in capitals, as the spec's pattern for
    /// uids allows; uids in request paths are then read in either case.
    public var upperCaseUids: Bool
    /// Whether a transfer's feed items are left UPCOMING, with no settlement time, as a
    /// transfer the bank has scheduled but not yet carried out: the job must not take it
    /// for money that moved, nor send it again while it may still move.
    public var transfersUpcoming: Bool

    public init(
        deduplicatesTransfers: Bool = false, clockOffset: Duration = .zero, goalActivationDelay: Duration? = nil,
        rateLimit: RateLimit? = nil, feedReference: Bool = false, roundUpAnswer: RoundUpAnswer = .full,
        upperCaseUids: Bool = false, transfersUpcoming: Bool = false
    ) {
        self.deduplicatesTransfers = deduplicatesTransfers
        self.clockOffset = clockOffset
        self.goalActivationDelay = goalActivationDelay
        self.rateLimit = rateLimit
        self.feedReference = feedReference
        self.roundUpAnswer = roundUpAnswer
        self.upperCaseUids = upperCaseUids
        self.transfersUpcoming = transfersUpcoming
    }
}

/// The shapes the spec allows for `GET /api/v2/feed/account/{accountUid}/round-up`, whose
/// `RoundUpGoalResponse` makes `active`, `roundUpGoal` and `roundUpGoalDetails` all optional.
public enum RoundUpAnswer: String, Sendable, Hashable, CaseIterable {
    /// `active`, and the goal as `roundUpGoalDetails` when on, as the bank's examples show.
    case full
    /// `active` alone.
    case activeOnly
    /// No `active`: the goal as `roundUpGoalDetails` when on, nothing when off.
    case detailsOnly
    /// No `active`: the goal as `roundUpGoal` when on, nothing when off.
    case goalOnly
    /// An empty object, on or off: an answer that cannot tell.
    case empty
}

/// How many requests the emulated bank answers: in any second (the second before each
/// request, on the real clock), and in a UTC day. A refused request does not count.
public struct RateLimit: Sendable, Hashable {
    public var perSecond: Int
    public var perDay: Int

    public init(perSecond: Int, perDay: Int) {
        self.perSecond = perSecond
        self.perDay = perDay
    }
}

/// The requests the emulated bank has counted against its rate limit.
struct RateCounter {
    /// When the answered requests of the last second arrived, oldest first.
    private var recent: [Instant] = []
    private var day = ""
    private var today = 0

    /// Counts a request arriving at `now`, or says how many seconds to wait when it is over
    /// `limit`.
    mutating func admit(at now: Instant, under limit: RateLimit) -> Int? {
        let utcDay = String(now.iso8601.prefix(10))
        if utcDay != day { (day, today) = (utcDay, 0) }
        guard today < limit.perDay else {
            let secondsIntoDay = (now.millisecondsSince1970 / 1000) % 86_400
            return Int(86_400 - secondsIntoDay)
        }
        recent.removeAll { $0.millisecondsSince1970 <= now.millisecondsSince1970 - 1000 }
        guard recent.count < limit.perSecond else { return 1 }
        recent.append(now)
        today += 1
        return nil
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded toward zero.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
