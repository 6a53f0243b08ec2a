/// What to do when moving the week's round-up would take the account's balance below the
/// minimum the holder set.
public enum BelowMinimum: String, Sendable, Hashable, CaseIterable {
    /// Move only what keeps the balance at the minimum (possibly nothing).
    case reduce
    /// Move nothing this week.
    case skip
}

/// A balance the week's transfer must not cut into.
public struct MinimumBalance: Hashable, Sendable {
    public let minimum: Money
    public let whenBelow: BelowMinimum

    public init(minimum: Money, whenBelow: BelowMinimum) {
        self.minimum = minimum
        self.whenBelow = whenBelow
    }

    /// The part of `total` that can move when the account holds `balance`, and what is
    /// held back. Pure; all three amounts are in the same currency. A balance already at
    /// or below the minimum (or overdrawn) leaves nothing to move.
    public func apply(total: Money, balance: Money) -> (move: Money, heldBack: Money) {
        precondition(total.currency == minimum.currency && balance.currency == minimum.currency)
        let (room, overflow) = balance.minorUnits.subtractingReportingOverflow(minimum.minorUnits)
        // Overflow only happens at the far ends of Int64: a huge balance has room, a huge debt has none.
        let spare = overflow ? (balance.minorUnits > 0 ? Int64.max : 0) : max(room, 0)
        let move: Int64 =
            if total.minorUnits <= spare {
                total.minorUnits
            } else {
                switch whenBelow {
                case .reduce: spare
                case .skip: 0
                }
            }
        return (
            Money(minorUnits: move, currency: total.currency),
            Money(minorUnits: total.minorUnits - move, currency: total.currency)
        )
    }
}
