/// How the emulated bank behaves where banks differ, or where the bank does not say: for
/// trying the job against a bank that is less kind than the default one.
public struct EmulatorBehaviour: Sendable, Hashable {
    /// Whether add-money with a transfer uid already used is answered as before and moves
    /// nothing (the default). When false, each such request moves the money again, exactly
    /// like a new transfer: the bank documents no deduplication, so the job must not rely on it.
    public var deduplicatesTransfers: Bool
    /// How far the bank's clock is from the real one: positive is ahead, negative behind.
    /// It shifts every instant the emulator stamps (transfers' feed items, goals' creation
    /// and activation), not seeded data nor how requests' query bounds are read.
    public var clockOffset: Duration
    /// When set, a goal created by PUT starts in state CREATING and is served as ACTIVE
    /// once this much time has passed on the bank's clock; until then add-money into it
    /// is refused with 400 SAVINGS_GOAL_NOT_ACTIVE. When nil, new goals are ACTIVE at once.
    public var goalActivationDelay: Duration?

    public init(
        deduplicatesTransfers: Bool = true, clockOffset: Duration = .zero, goalActivationDelay: Duration? = nil
    ) {
        self.deduplicatesTransfers = deduplicatesTransfers
        self.clockOffset = clockOffset
        self.goalActivationDelay = goalActivationDelay
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded toward zero.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
