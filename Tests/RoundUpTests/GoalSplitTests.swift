import PropertyBased
import RoundUp
import Testing

/// `GoalSplit`: a week's amount divided among goals, exactly, in order or by percent.
@Suite struct GoalSplitTests {
    private static let fillNamed = SaveInto.Division.fill(["a", "b", "c"])

    private static func shares(_ percents: [Int]) -> SaveInto.Division {
        .shares(percents.enumerated().map { SaveInto.Share(goal: "goal \($0.offset)", percent: $0.element) })
    }

    @Test func theIssuesWeekUnderFillAndUnderShares() {
        // 2.29 GBP: Emergency has 1.00 of room, Holiday is full, Round-ups has no target.
        let fill = GoalSplit.divide(229, rooms: [100, 0, nil], by: Self.fillNamed)
        #expect(fill == GoalSplit.Split(amounts: [100, 0, 129], stays: 0))
        // Holiday 70, Christmas 30: 160.3 and 68.7, the spare unit to the larger remainder.
        let shares = GoalSplit.divide(229, rooms: [nil, nil], by: Self.shares([70, 30]))
        #expect(shares == GoalSplit.Split(amounts: [160, 69], stays: 0))
    }

    @Test func whatNoGoalHasRoomForStaysOrGoesToTheLast() {
        #expect(
            GoalSplit.divide(229, rooms: [100, 0, 50], by: Self.fillNamed)
                == GoalSplit.Split(amounts: [100, 0, 50], stays: 79))
        #expect(
            GoalSplit.divide(229, rooms: [100, 0, 50], by: Self.fillNamed, whenAllFull: .last)
                == GoalSplit.Split(amounts: [100, 0, 129], stays: 0))
        #expect(
            GoalSplit.divide(229, rooms: [0, 0], by: Self.shares([50, 50]))
                == GoalSplit.Split(amounts: [0, 0], stays: 229))
        #expect(
            GoalSplit.divide(229, rooms: [0, 0], by: Self.shares([50, 50]), whenAllFull: .last)
                == GoalSplit.Split(amounts: [0, 229], stays: 0))
    }

    @Test func aFullGoalsShareGoesToTheOthersOrIsKept() {
        // 60/30/10 of 1.00 with the first goal full: 30 and 10 share it, 75 and 25.
        #expect(
            GoalSplit.divide(100, rooms: [0, nil, nil], by: Self.shares([60, 30, 10]))
                == GoalSplit.Split(amounts: [0, 75, 25], stays: 0))
        // With room for 20 only, it takes 20, and the others share 80 in proportion.
        #expect(
            GoalSplit.divide(100, rooms: [20, nil, nil], by: Self.shares([60, 30, 10]))
                == GoalSplit.Split(amounts: [20, 60, 20], stays: 0))
        #expect(
            GoalSplit.divide(100, rooms: [0, nil, nil], by: Self.shares([60, 30, 10]), whenFull: .keep)
                == GoalSplit.Split(amounts: [60, 30, 10], stays: 0))
    }

    @Test func tiesGoToTheEarlierGoal() {
        #expect(GoalSplit.apportion(1, percents: [50, 50]) == [1, 0])
        #expect(GoalSplit.apportion(2, percents: [34, 33, 33]) == [1, 1, 0])
        #expect(GoalSplit.apportion(100, percents: [34, 33, 33]) == [34, 33, 33])
        #expect(GoalSplit.apportion(Int64.max, percents: [1, 99]).reduce(0, &+) == Int64.max)
    }

    private static let percents = Gen.int(in: 1...100).array(of: 1...6).map { raw -> [Int] in
        // Whole percents summing to 100: the raw numbers scaled, the rest to the first.
        let sum = raw.reduce(0, +)
        var scaled = raw.map { max(1, $0 * 100 / sum) }
        while scaled.reduce(0, +) > 100, let place = scaled.firstIndex(where: { $0 > 1 }) { scaled[place] -= 1 }
        scaled[0] += 100 - scaled.reduce(0, +)
        return scaled
    }

    private static let room = Gen.oneOf(
        Gen.always(Int64?.none), Gen.int64(in: 0...500).map { Int64?.some($0) }, Gen.always(Int64?.some(0)))

    private static let total = Gen.oneOf(Gen.int64(in: 0...2_000), Gen.int64(in: 0...(Int64.max / 2)))

    @Test func partsAndWhatStaysSumToTheTotal() async {
        await propertyCheck(input: Self.total, Self.percents, Self.room.array(of: 6), Gen.bool, Gen.bool, Gen.bool) {
            total, percents, rooms, byFill, keep, last in
            let rooms = Array(rooms.prefix(percents.count))
            let division = byFill ? Self.fillNamed : Self.shares(percents)
            let split = GoalSplit.divide(
                total, rooms: rooms, by: division, whenFull: keep ? .keep : .skip, whenAllFull: last ? .last : .stay)
            #expect(split.amounts.count == rooms.count)
            #expect(split.amounts.allSatisfy { $0 >= 0 } && split.stays >= 0)
            #expect(split.amounts.reduce(0, +) + split.stays == total)
            if last { #expect(split.stays == 0) }
            // The same week divided again, in a later run, comes to the same parts.
            #expect(
                GoalSplit.divide(
                    total, rooms: rooms, by: division, whenFull: keep ? .keep : .skip,
                    whenAllFull: last ? .last : .stay) == split)
        }
    }

    @Test func fillTakesNoGoalPastItsTargetAndKeepsTheOrder() async {
        await propertyCheck(input: Self.total, Self.room.array(of: 1...6)) { total, rooms in
            let split = GoalSplit.divide(total, rooms: rooms, by: .fillInAppOrder)
            for (place, amount) in split.amounts.enumerated() {
                if let room = rooms[place] { #expect(amount <= room) }
                // A later goal takes something only when every earlier one is at its target.
                if amount > 0 {
                    for earlier in 0..<place { #expect(rooms[earlier].map { split.amounts[earlier] == $0 } == true) }
                }
            }
            // Something stays only when every goal is at its target.
            if split.stays > 0 {
                #expect(
                    split.amounts.indices.allSatisfy { place in rooms[place].map { split.amounts[place] == $0 } == true
                    })
            }
        }
    }

    @Test func eachShareIsWithinOneMinorUnitOfItsExactValue() async {
        await propertyCheck(input: Self.total, Self.percents) { total, percents in
            let parts = GoalSplit.divide(
                total, rooms: percents.map { _ in nil }, by: Self.shares(percents), whenFull: .keep
            ).amounts
            for (part, percent) in zip(parts, percents) {
                // |part − total × percent / 100| < 1, in exact integers.
                let exact = total.multipliedFullWidth(by: Int64(percent))
                let (quotient, remainder) = Int64(100).dividingFullWidth(exact)
                #expect(part == quotient || (remainder > 0 && part == quotient + 1))
            }
            // Without targets, skip and keep divide alike.
            #expect(
                GoalSplit.divide(total, rooms: percents.map { _ in nil }, by: Self.shares(percents)).amounts == parts)
        }
    }

    @Test func sharesUnderSkipFitEveryTargetAndLeaveNothingWhileAGoalHasRoom() async {
        await propertyCheck(input: Self.total, Self.percents, Self.room.array(of: 6)) { total, percents, rooms in
            let rooms = Array(rooms.prefix(percents.count))
            let split = GoalSplit.divide(total, rooms: rooms, by: Self.shares(percents))
            for (amount, room) in zip(split.amounts, rooms) {
                if let room { #expect(amount <= room) }
            }
            if split.stays > 0 {
                #expect(zip(split.amounts, rooms).allSatisfy { amount, room in room.map { amount == $0 } == true })
            }
        }
    }
}
