/// Where an account's week goes when it saves into several goals (`saveInto`): the goals,
/// how the week's amount is divided among them, and what happens when they are full.
public struct SaveInto: Sendable, Equatable {
    /// How the week's amount is divided.
    public var division: Division
    /// What a full goal does under `shares`.
    public var whenFull: WhenFull
    /// Where what no goal has room for goes.
    public var whenAllFull: WhenAllFull

    public init(division: Division, whenFull: WhenFull = .skip, whenAllFull: WhenAllFull = .stay) {
        self.division = division
        self.whenFull = whenFull
        self.whenAllFull = whenAllFull
    }

    public enum Division: Sendable, Equatable {
        /// The goals take the amount in this order, each up to its target (`fill: [...]`).
        case fill([String])
        /// The account's goals with a target, in the app's order, then the first goal without
        /// one (`fill: app`).
        case fillInAppOrder
        /// Whole percents of the amount, summing to 100 (`shares: {...}`), in the order written.
        case shares([Share])
    }

    /// One goal's part under `shares`.
    public struct Share: Sendable, Equatable {
        public var goal: String
        public var percent: Int

        public init(goal: String, percent: Int) {
            self.goal = goal
            self.percent = percent
        }
    }

    /// `whenFull`: a full goal's share goes to the others in proportion (`skip`), or it takes
    /// its share anyway (`keep`).
    public enum WhenFull: String, Sendable, CaseIterable {
        case skip
        case keep
    }

    /// `whenAllFull`: what no goal has room for stays in the account (`stay`), or goes to the
    /// last goal (`last`).
    public enum WhenAllFull: String, Sendable, CaseIterable {
        case stay
        case last
    }

    /// The goals named, in their order; empty for `fill: app`, whose goals come from the bank.
    public var named: [String] {
        switch division {
        case .fill(let names): names
        case .fillInAppOrder: []
        case .shares(let shares): shares.map(\.goal)
        }
    }
}

/// Divides a week's amount among goals, in minor units, exactly: what each takes and what
/// stays in the account always sum to the amount. Pure: the goals' room comes from the bank's
/// targets and totals, read by the job.
public enum GoalSplit {
    /// What each goal takes, in the order given, and what stays in the account.
    public struct Split: Sendable, Equatable {
        public var amounts: [Int64]
        public var stays: Int64

        public init(amounts: [Int64], stays: Int64) {
            self.amounts = amounts
            self.stays = stays
        }
    }

    /// Divides `total` (minor units, not negative) among goals whose room to their targets
    /// is `rooms` (nil: no target, room for any amount; a room below zero counts as none).
    /// `percents` are the shares under `shares`, one per goal, ignored under `fill`.
    public static func divide(
        _ total: Int64, rooms: [Int64?], by division: SaveInto.Division, whenFull: SaveInto.WhenFull = .skip,
        whenAllFull: SaveInto.WhenAllFull = .stay
    ) -> Split {
        let rooms = rooms.map { $0.map { max(0, $0) } }
        var split: Split
        switch division {
        case .fill, .fillInAppOrder:
            split = fill(max(0, total), rooms: rooms)
        case .shares(let shares):
            let percents = shares.map(\.percent)
            split =
                whenFull == .keep
                ? Split(amounts: apportion(max(0, total), percents: percents), stays: 0)
                : sharesWithin(max(0, total), percents: percents, rooms: rooms)
        }
        if whenAllFull == .last, split.stays > 0, !split.amounts.isEmpty {
            split.amounts[split.amounts.count - 1] += split.stays
            split.stays = 0
        }
        return split
    }

    /// Each goal in turn takes what is left, up to its room; a goal without a target takes
    /// all that is left.
    static func fill(_ total: Int64, rooms: [Int64?]) -> Split {
        var left = total
        let amounts = rooms.map { room in
            let take = room.map { min($0, left) } ?? left
            left -= take
            return take
        }
        return Split(amounts: amounts, stays: left)
    }

    /// Shares that never take a goal past its target: a goal whose share is more than its
    /// room takes its room, and the rest is shared again among the others, in proportion to
    /// their percents, until every share fits. What no goal has room for stays.
    static func sharesWithin(_ total: Int64, percents: [Int], rooms: [Int64?]) -> Split {
        var amounts = [Int64](repeating: 0, count: percents.count)
        var open = percents.indices.filter { rooms[$0] != 0 && percents[$0] > 0 }
        var left = total
        while !open.isEmpty, left > 0 {
            let parts = apportion(left, percents: open.map { percents[$0] })
            let over = open.indices.filter { place in
                rooms[open[place]].map { parts[place] > $0 } ?? false
            }
            guard !over.isEmpty else {
                for (place, goal) in open.enumerated() { amounts[goal] = parts[place] }
                left = 0
                break
            }
            for place in over {
                let goal = open[place]
                amounts[goal] = rooms[goal]!
                left -= amounts[goal]
            }
            let full = Set(over.map { open[$0] })
            open.removeAll(where: full.contains)
        }
        return Split(amounts: amounts, stays: left)
    }

    /// `total` in parts proportional to `percents` (whole, not negative, not all zero), in
    /// minor units that sum to `total`: each part's whole minor units, then one more to the
    /// parts with the largest remainders, ties to the earlier part (the largest remainder
    /// method). Exact for any total: `total` is taken apart as a multiple of the percents'
    /// sum and a remainder, so nothing overflows.
    public static func apportion(_ total: Int64, percents: [Int]) -> [Int64] {
        let sum = Int64(percents.reduce(0, +))
        guard sum > 0 else { return percents.map { _ in 0 } }
        let (whole, rest) = total.quotientAndRemainder(dividingBy: sum)
        var parts: [Int64] = []
        var remainders: [(place: Int, remainder: Int64)] = []
        for (place, percent) in percents.enumerated() {
            let share = Int64(percent)
            let (extra, remainder) = (rest * share).quotientAndRemainder(dividingBy: sum)
            parts.append(whole * share + extra)
            remainders.append((place, remainder))
        }
        var short = total - parts.reduce(0, +)
        for (place, _) in remainders.sorted(by: { ($0.remainder, -$0.place) > ($1.remainder, -$1.place) }) {
            guard short > 0 else { break }
            parts[place] += 1
            short -= 1
        }
        return parts
    }
}
