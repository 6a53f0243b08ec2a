public import RoundUp

/// A week of an account that the ledger already holds, as a later week's bounds need it.
public struct CountedSpan: Sendable, Equatable {
    public var weekEnd: LocalDate
    public var start: Instant
    public var end: Instant
    /// The zone the week was counted in, when the ledger knows it.
    public var timeZone: String?
    /// Whether the ledger kept each payment the week counted (every week decided since it
    /// does): those payments are left out of other weeks one by one. A week decided before
    /// is left out whole: no later week reaches into its instants.
    public var itemised: Bool

    public init(weekEnd: LocalDate, start: Instant, end: Instant, timeZone: String? = nil, itemised: Bool) {
        self.weekEnd = weekEnd
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.itemised = itemised
    }
}
