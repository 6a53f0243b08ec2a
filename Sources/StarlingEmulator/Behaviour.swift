public import RoundUp

/// How the emulated bank behaves where banks differ, or where the bank does not say: for
/// trying the job against a bank that is less kind than the default one.
public struct EmulatorBehaviour: Sendable, Hashable {
    /// Whether add-money with a transfer uid already used is answered as before and moves
    /// nothing. Off by default: the bank documents no deduplication, so each such request
    /// moves the money again, exactly like a new transfer, and the job must not rely on it.
    public var deduplicatesTransfers: Bool
    /// How far the bank's clock is from the real one: positive is ahead, negative behind.
    /// It shifts every instant the emulator stamps (transfers' feed items, goals' creation
    /// and activation, every answer's `Date` header), not seeded data nor how requests'
    /// query bounds are read.
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
    /// How the bank rewords a reference it shows in the feed (with `feedReference`): the
    /// bank does not document that it shows it as it was sent.
    public var referenceRewording: ReferenceRewording
    /// Which of the fields of the round-up answer, all optional in the spec, are sent.
    public var roundUpAnswer: RoundUpAnswer
    /// Whether every uid in an answer is written in capitals, as the spec's pattern for
    /// uids allows; uids in request paths are then read in either case.
    public var upperCaseUids: Bool
    /// Whether a transfer's feed items are left UPCOMING, with no settlement time, as a
    /// transfer the bank has scheduled but not yet carried out: the job must not take it
    /// for money that moved, nor send it again while it may still move.
    public var transfersUpcoming: Bool
    /// Whether every answer carries a `Date` header, read from the bank's clock (with
    /// `clockOffset`), as HTTP servers send. Off, answers carry none, which HTTP allows.
    public var sendsDate: Bool
    /// When set, a transfer's feed items show in the feed only this long (on the bank's
    /// clock) after it was made: a bank whose feed lags behind its answers.
    public var feedLag: Duration?
    /// With `feedLag`, whether a goal's `totalSaved` lags as long, counting a transfer only
    /// once its feed items show.
    public var goalTotalLags: Bool
    /// When set, goals are listed in an order shuffled by this seed, and each goal's
    /// recurring transfer is answered after a delay of up to 80 ms drawn from it: answers
    /// that arrive in any order, as a bank's servers may send them.
    public var scatteredGoalAnswers: UInt64?
    /// When set, `upcoming-payments` lists at most this many dates, however many are asked:
    /// a bank that lists fewer than it was asked for, with more to come.
    public var upcomingPaymentsListed: Int?

    public init(
        deduplicatesTransfers: Bool = false, clockOffset: Duration = .zero, goalActivationDelay: Duration? = nil,
        rateLimit: RateLimit? = nil, feedReference: Bool = false, roundUpAnswer: RoundUpAnswer = .full,
        upperCaseUids: Bool = false, transfersUpcoming: Bool = false, referenceRewording: ReferenceRewording = .none,
        sendsDate: Bool = true, feedLag: Duration? = nil, goalTotalLags: Bool = false,
        scatteredGoalAnswers: UInt64? = nil, upcomingPaymentsListed: Int? = nil
    ) {
        self.scatteredGoalAnswers = scatteredGoalAnswers
        self.upcomingPaymentsListed = upcomingPaymentsListed
        self.sendsDate = sendsDate
        self.feedLag = feedLag
        self.goalTotalLags = goalTotalLags
        self.referenceRewording = referenceRewording
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

/// The ways a bank may show a transfer's reference otherwise than it was sent.
public enum ReferenceRewording: String, Sendable, Hashable, CaseIterable {
    /// As it was sent.
    case none
    /// With words of the bank's before it: `Savings: Round-up w/e 22 Nov 2026`.
    case prefixed
    /// With the goal's name after it: `Round-up w/e 22 Nov 2026 / Round-ups`.
    case suffixed
    /// Cut to 22 characters, within its year: `Round-up w/e 22 Nov 20`.
    case cutTo22
    /// The hyphen as a space, in capitals: `ROUND UP W/E 22 NOV 2026`.
    case hyphenAsSpace
    /// The week's end as a date, `2026-11-22`, in words of the bank's.
    case isoDate
    /// The day the bank made the transfer before it, and the reference cut after its day:
    /// `2026-11-28 Round-up w/e 22`. It mentions no week but that other day.
    case bankDated

    /// `reference`, of a transfer the bank made on `day`, reworded this way.
    public func apply(to reference: String, madeOn day: LocalDate) -> String {
        switch self {
        case .none: reference
        case .prefixed: "Savings: " + reference
        case .suffixed: reference + " / Round-ups"
        case .cutTo22: String(reference.prefix(22))
        case .hyphenAsSpace: reference.replacing("-", with: " ").uppercased()
        case .isoDate:
            TransferReference.weekEnd(namedBy: reference).map { "Transfer to savings \($0.description)" } ?? reference
        case .bankDated: "\(day.description) " + reference.prefix(15)
        }
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
