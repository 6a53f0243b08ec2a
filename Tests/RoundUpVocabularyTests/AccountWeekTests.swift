import Foundation
import RoundUp
import Testing

@testable import RoundUpVocabulary

/// An account-week and its legs as values, without the ledger: what the week says of its
/// transfers is what its legs say, taken together.
@Suite struct AccountWeekTests {
    let weekEnd = LocalDate(iso: "2026-11-15")!

    func week(_ status: WeekState = .pending, minorUnits: Int64 = 229) -> AccountWeek {
        AccountWeek(
            accountUid: "acc", weekEnd: weekEnd, status: status, currency: "GBP", minorUnits: minorUnits,
            goalUid: "goal-a", goalName: "Round-ups", transferUid: "t-0")
    }

    func leg(_ index: Int, goal: String, minorUnits: Int64) -> TransferLeg {
        var leg = TransferLeg(index: index, status: .pending, minorUnits: minorUnits)
        leg.goalUid = goal
        leg.transferUid = "t-\(index)"
        return leg
    }

    @Test func aWeekOfOneLegCarriesItsWholeAmountToItsGoal() {
        let week = week()
        #expect(week.legs.count == 1)
        #expect(week.firstLeg.index == 0)
        #expect(week.firstLeg.minorUnits == 229)
        #expect(week.firstLeg.goalUid == "goal-a")
        #expect(week.firstLeg.goalName == "Round-ups")
        #expect(week.firstLeg.transferUid == "t-0")
        #expect(week.firstLeg.status == .pending)
        #expect(week.key == AccountWeekKey(accountUid: "acc", weekEnd: weekEnd))
    }

    @Test func decidingAWeekPutsEachOfItsLegsInTheSameState() {
        var week = week()
        week.legs.append(leg(1, goal: "goal-b", minorUnits: 100))
        week.decide(.held)
        #expect(week.status == .held)
        #expect(week.legs.map(\.status) == [.held, .held])
    }

    @Test func aWeekIsConfirmedOnlyOnceEveryLegIs() {
        var week = week()
        week.legs.append(leg(1, goal: "goal-b", minorUnits: 100))
        let early = Instant(iso8601: "2026-11-16T09:00:00Z")!
        let late = Instant(iso8601: "2026-11-16T09:05:00Z")!
        week.legs[1].confirmedAt = late
        #expect(week.confirmedAt == nil)
        week.legs[0].confirmedAt = early
        #expect(week.confirmedAt == late)
    }

    @Test func theWeeksSendsAreTheEarliestAndLatestOfAnyLeg() {
        var week = week()
        #expect(!week.mayHaveBeenSent)
        #expect(week.firstSentAt == nil)
        week.legs.append(leg(1, goal: "goal-b", minorUnits: 100))
        let first = Instant(iso8601: "2026-11-16T09:00:00Z")!
        let second = Instant(iso8601: "2026-11-16T10:00:00Z")!
        week.legs[1].sends = 1
        week.legs[1].firstSentAt = second
        week.legs[1].lastSentAt = second
        #expect(week.mayHaveBeenSent)
        week.legs[0].sends = 2
        week.legs[0].firstSentAt = first
        week.legs[0].lastSentAt = first
        #expect(week.firstSentAt == first)
        #expect(week.lastSentAt == second)
    }

    @Test func theWeeksGoalsAreEveryGoalAnyLegMayHaveGoneTo() {
        var week = week()
        week.firstLeg.earlierGoalUids = ["goal-old"]
        week.legs.append(leg(1, goal: "goal-b", minorUnits: 100))
        #expect(week.goalUids == ["goal-a", "goal-old", "goal-b"])
        #expect(week.firstLeg.goalUids == ["goal-a", "goal-old"])
    }

    @Test func theWeeksLastErrorAndGrowthComeFromItsLegs() {
        var week = week()
        #expect(week.lastError == nil)
        #expect(!week.goalGrew)
        week.legs.append(leg(1, goal: "goal-b", minorUnits: 100))
        week.legs[1].lastError = "the bank timed out"
        week.legs[1].goalGrew = true
        #expect(week.lastError == "the bank timed out")
        #expect(week.goalGrew)
    }

    @Test func aWeekIsBoundToTheWeekItWasCountedIn() throws {
        var entry = week()
        let zone = try #require(TimeZone(identifier: "Europe/London"))
        let counted = Week(endingOn: weekEnd, in: zone)
        entry.bound(to: counted)
        #expect(entry.startsAt == counted.start)
        #expect(entry.endsAt == counted.end)
        #expect(entry.timeZone == "Europe/London")
    }
}
