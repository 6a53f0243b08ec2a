/// A goal's progress as a run last read it: what it holds, and its target when it has one.
public struct GoalProgress: Sendable, Equatable {
    public var name: String
    public var currency: String
    /// What the goal held after the run's transfers into it, in minor units.
    public var saved: Int64
    /// The goal's target, in minor units; nil when it has none.
    public var target: Int64?
    /// The day (UTC) a run last learnt these figures, when they come from the ledger.
    public var asOf: String?

    public init(name: String, currency: String, saved: Int64, target: Int64?, asOf: String? = nil) {
        self.name = name
        self.currency = currency
        self.saved = saved
        self.target = target
        self.asOf = asOf
    }
}
