import Foundation
import RoundUp
import Testing

@testable import RoundUpHost
@testable import RoundUpLedger
@testable import RoundUpVocabulary
@testable import RoundUpWeek

/// The decision for one account's week, from what was read, without any server.
struct AccountDecisionTests {
    static let gbp = Currency(code: "GBP")!
    static let weekEnd = LocalDate(iso: "2026-11-15")!

    static func money(_ minorUnits: Int64) -> Money { Money(minorUnits: minorUnits, currency: gbp) }

    static func entry(_ status: WeekState, weekEnd: LocalDate = weekEnd, minorUnits: Int64 = 298) -> AccountWeek {
        AccountWeek(
            accountUid: "account", weekEnd: weekEnd, status: status, currency: "GBP", minorUnits: minorUnits,
            goalUid: status == .nothing ? nil : "goal", goalName: status == .nothing ? nil : "Round-ups",
            transferUid: status == .nothing ? nil : "transfer")
    }

    static func minimum(_ minorUnits: Int64, _ whenBelow: BelowMinimum = .reduce) -> MinimumBalance {
        MinimumBalance(minimum: money(minorUnits), whenBelow: whenBelow)
    }

    @Test func aRoundUpWithNoLedgerEntryIsTransferred() {
        #expect(AccountDecision.decide(AccountFacts(total: Self.money(298))) == .transfer(amount: Self.money(298), nil))
    }

    @Test func noRoundUpMovesNothing() {
        #expect(AccountDecision.decide(AccountFacts(total: Self.money(0))) == .nothingToMove(nil))
        // A minimum balance does not matter when there is nothing to move: no balance is read.
        #expect(
            AccountDecision.decide(AccountFacts(total: Self.money(0), minimum: Self.minimum(100)))
                == .nothingToMove(nil))
    }

    @Test(arguments: WeekState.allCases)
    func aWeekInTheLedgerIsNeverDecidedAgain(status: WeekState) {
        let recorded = Self.entry(status)
        let expected: AccountDecision =
            switch status {
            case .done: .alreadyTransferred(recorded)
            case .nothing: .alreadyNothing(recorded)
            case .pending: .finishUnconfirmed(recorded)
            case .held: .held(recorded)
            case .abandoned: .abandoned(recorded)
            }
        // Whatever the feed now says, and however the balance stands, the ledger decides.
        for total in [Int64(0), 298, 5_000] {
            let facts = AccountFacts(
                total: Self.money(total), recorded: recorded, minimum: Self.minimum(1_000_000),
                balance: Self.money(0))
            #expect(AccountDecision.decide(facts) == expected)
        }
    }

    @Test func aMinimumBalanceAsksForTheBalanceFirst() {
        let facts = AccountFacts(total: Self.money(298), minimum: Self.minimum(10_000))
        #expect(AccountDecision.decide(facts) == .readBalance)
    }

    @Test func aBalanceWellAboveTheMinimumMovesEverything() {
        var facts = AccountFacts(total: Self.money(298), minimum: Self.minimum(10_000))
        facts.balance = Self.money(50_000)
        guard case .transfer(let amount, let outcome?) = AccountDecision.decide(facts) else {
            Issue.record("expected a transfer with the minimum's outcome")
            return
        }
        #expect(amount == Self.money(298))
        #expect(outcome.heldBack == Self.money(0))
        #expect(outcome.note == nil)
        #expect(outcome.balance == Self.money(50_000))
    }

    @Test func reduceMovesWhatKeepsTheMinimum() {
        let facts = AccountFacts(total: Self.money(298), minimum: Self.minimum(10_000), balance: Self.money(10_100))
        guard case .transfer(let amount, let outcome?) = AccountDecision.decide(facts) else {
            Issue.record("expected a reduced transfer")
            return
        }
        #expect(amount == Self.money(100))
        #expect(outcome.heldBack == Self.money(198))
        #expect(outcome.note?.hasPrefix("reduced from 2.98 GBP") == true, "\(outcome.note ?? "")")
    }

    @Test func skipHoldsBackEverythingThatWouldCutIntoTheMinimum() {
        let facts = AccountFacts(
            total: Self.money(298), minimum: Self.minimum(10_000, .skip), balance: Self.money(10_100))
        guard case .nothingToMove(let outcome?) = AccountDecision.decide(facts) else {
            Issue.record("expected nothing to move")
            return
        }
        #expect(outcome.move == Self.money(0))
        #expect(outcome.heldBack == Self.money(298))
        #expect(outcome.note?.contains("belowMinimumBalance: skip") == true)
    }

    @Test func aBalanceAtOrBelowTheMinimumMovesNothing() {
        for balance in [Int64(10_000), 0, -5_000] {
            let facts = AccountFacts(
                total: Self.money(298), minimum: Self.minimum(10_000), balance: Self.money(balance))
            guard case .nothingToMove(let outcome?) = AccountDecision.decide(facts) else {
                Issue.record("expected nothing to move with a balance of \(balance)")
                continue
            }
            #expect(outcome.note?.contains("is not above the minimum") == true)
        }
    }

    // MARK: - Never into overdraft

    /// With only the balance to go by, all of the round-up moves when the balance covers
    /// it, and none when it does not: a part would still leave the saver short.
    @Test func withTheBalanceOnlyATransferThatWouldOverdrawIsHeldBack() {
        var facts = AccountFacts(total: Self.money(116), overdraft: .balance)
        #expect(AccountDecision.decide(facts) == .readBalance)
        facts.balance = Self.money(116)
        #expect(AccountDecision.decide(facts) == .transfer(amount: Self.money(116), nil))
        facts.balance = Self.money(40)
        guard case .nothingToMove(let outcome?) = AccountDecision.decide(facts) else {
            Issue.record("expected the round-up held back")
            return
        }
        #expect(outcome.heldBack == Self.money(116) && outcome.move == Self.money(0))
        #expect(outcome.balance == Self.money(40) && outcome.minimum == nil)
        #expect(outcome.note == "held back 1.16 GBP: the balance of 0.40 GBP would go below zero (overdraft: avoid)")
        facts.balance = Self.money(-500)
        #expect(AccountDecision.decide(facts) == .nothingToMove(outcome.with(balance: Self.money(-500))))
    }

    /// The bank is asked about the amount that would move, after the minimum balance; a
    /// missing or yes answer holds it all back, and an answer about another amount is asked again.
    @Test func theBanksWordOnTheAmountDecides() {
        var facts = AccountFacts(
            total: Self.money(116), minimum: Self.minimum(100), balance: Self.money(150), overdraft: .askBank)
        #expect(AccountDecision.decide(facts) == .confirmFunds(Self.money(50)))
        facts.fundsAsked = Self.money(116)
        facts.funds = .clear
        #expect(AccountDecision.decide(facts) == .confirmFunds(Self.money(50)), "asked about another amount")
        facts.fundsAsked = Self.money(50)
        guard case .transfer(let amount, let minimum?) = AccountDecision.decide(facts) else {
            Issue.record("expected a transfer")
            return
        }
        #expect(amount == Self.money(50) && minimum.heldBack == Self.money(66))
        facts.funds = .overdraws
        guard case .nothingToMove(let outcome?) = AccountDecision.decide(facts) else {
            Issue.record("expected the round-up held back")
            return
        }
        #expect(outcome.heldBack == Self.money(116) && outcome.minimum == Self.money(100))
        #expect(
            outcome.note
                == "held back 1.16 GBP: the bank says moving 0.50 GBP would overdraw the account (overdraft: avoid)")

        // An answer without the one field that decides counts as yes, and says so.
        facts.funds = .unsaid
        guard case .nothingToMove(let unsaid?) = AccountDecision.decide(facts) else {
            Issue.record("expected the round-up held back")
            return
        }
        #expect(
            unsaid.note?.contains(
                "did not say whether moving 0.50 GBP would overdraw the account, which counts as yes")
                == true, "\(unsaid.note ?? "")")
    }

    /// overdraft: allow asks nothing.
    @Test func allowAsksNothing() {
        #expect(
            AccountDecision.decide(AccountFacts(total: Self.money(116), overdraft: .none))
                == .transfer(amount: Self.money(116), nil))
    }
}

extension BalanceOutcome {
    fileprivate func with(balance: Money) -> BalanceOutcome {
        var copy = self
        copy.balance = balance
        copy.note = note?.replacingOccurrences(of: "0.40 GBP", with: "\(balance)")
        return copy
    }
}

/// Which weeks a catch-up run covers, from the ledger's entries alone.
struct CatchUpTests {
    static let zone = TimeZone(identifier: "Europe/London")!

    static func week(_ end: String) -> Week { Week(endingOn: LocalDate(iso: end)!, in: zone) }

    static func entry(_ end: String, _ status: WeekState, account: String = "a") -> AccountWeek {
        AccountWeek(accountUid: account, weekEnd: LocalDate(iso: end)!, status: status, currency: "GBP", minorUnits: 1)
    }

    static func weeks(_ entries: [AccountWeek], through target: String, on weekday: Weekday = .sunday)
        -> ([String], [String])
    {
        let (weeks, notes) = CatchUp.weeks(entries: entries, through: week(target), weekEndsOn: weekday, limit: 8)
        return (weeks.map(\.endDate.description), notes)
    }

    @Test func anEmptyLedgerRunsJustTheTarget() {
        let (weeks, notes) = CatchUp.weeks(entries: [], through: Self.week("2026-11-15"), weekEndsOn: .sunday, limit: 8)
        #expect(weeks == [Self.week("2026-11-15")])
        #expect(notes.isEmpty)
    }

    /// The week ending 25 October, in no week of the ledger, is a whole week left behind:
    /// a catch-up rounds it up too.
    @Test func missedWeeksAndUnconfirmedOnesComeOldestFirst() {
        let entries = [Self.entry("2026-10-18", .pending), Self.entry("2026-11-01", .done)]
        #expect(
            Self.weeks(entries, through: "2026-11-15").0 == ["2026-10-18", "2026-10-25", "2026-11-08", "2026-11-15"])
    }

    /// After Sundays, the first Tuesday week of a plain run reached back over the Monday and
    /// Tuesday before it: nothing is left for a catch-up. Without that week, the Tuesday week
    /// that holds those two days is one. A gap older than the horizon is not looked for.
    @Test func daysAChangeOfWeekdayLeftInNoWeekAreCaughtUp() {
        var sunday = Self.entry("2026-11-08", .done)
        sunday.bound(to: Self.week("2026-11-08"))
        var stretched = Self.entry("2026-11-17", .done)
        stretched.bound(
            to: Self.week("2026-11-17").bounded(from: Self.week("2026-11-08").end, to: Self.week("2026-11-17").end))
        #expect(Self.weeks([sunday, stretched], through: "2026-11-17", on: .tuesday).0.isEmpty)
        #expect(Self.weeks([sunday], through: "2026-11-17", on: .tuesday).0 == ["2026-11-10", "2026-11-17"])
        #expect(
            CatchUp.holes(
                entries: [sunday], through: LocalDate(iso: "2026-11-24")!, zone: Self.week("2026-11-24").timeZone
            ).weeks.map(\.description) == ["2026-11-10", "2026-11-17", "2026-11-24"])
        // Thirteen weeks back from the newest are looked at; the newest week left behind
        // further back is named, for a person to round up by hand.
        let old = Self.entry("2026-01-04", .done)
        let holes = CatchUp.holes(
            entries: [old, Self.entry("2026-11-01", .done)], through: LocalDate(iso: "2026-11-15")!,
            zone: Self.week("2026-11-15").timeZone)
        #expect(holes.weeks.count == 12 && holes.weeks.first?.description == "2026-08-23", "\(holes)")
        #expect(holes.beyond?.description == "2026-08-16")
        let (weeks, notes) = Self.weeks([old, Self.entry("2026-11-01", .done)], through: "2026-11-15")
        #expect(weeks.count == 8)
        #expect(notes.contains(CatchUp.beyondNote(LocalDate(iso: "2026-08-16")!)), "\(notes)")
    }

    /// A plain run names the whole weeks it leaves behind, as a catch-up right after it
    /// would find them, and not the days it reaches back over.
    @Test func aPlainRunSaysWhatItLeavesBehind() {
        var sunday = Self.entry("2026-11-01", .done)
        sunday.bound(to: Self.week("2026-11-01"))
        let notes = CatchUp.leftBehindNotes(entries: [sunday], before: Self.week("2026-11-17"))
        #expect(
            notes.first?.hasPrefix("2 weeks, from the one ending 2026-11-03, before this one are in no week") == true,
            "\(notes)")
        #expect(notes.first?.contains("roundup run --catch-up") == true)
        #expect(notes.count == 1)
        #expect(CatchUp.leftBehindNotes(entries: [sunday], before: Self.week("2026-11-10")).isEmpty)
        #expect(CatchUp.leftBehindNotes(entries: [sunday], before: Self.week("2026-11-08")).isEmpty)
        #expect(
            CatchUp.leftBehindNotes(entries: [sunday], before: Self.week("2026-11-15")).first?.hasPrefix(
                "the week ending 2026-11-08 before this one is in no week") == true)
        // Eighteen weeks behind: twelve a catch-up rounds up, and the newest of the rest named.
        var far = Self.entry("2026-07-12", .done)
        far.bound(to: Self.week("2026-07-12"))
        let behind = CatchUp.leftBehindNotes(entries: [far], before: Self.week("2026-11-22"))
        #expect(behind.first?.hasPrefix("12 weeks, from the one ending 2026-08-30,") == true, "\(behind)")
        #expect(behind.last == CatchUp.beyondNote(LocalDate(iso: "2026-08-23")!), "\(behind)")
        let (weeks, _) = Self.weeks([far, Self.entry("2026-11-22", .done)], through: "2026-11-22")
        #expect(weeks.first == "2026-08-30" && weeks.count == 8, "\(weeks)")
    }

    @Test func aLongGapIsClosedOverSeveralRuns() {
        let (weeks, notes) = Self.weeks([Self.entry("2026-01-04", .done)], through: "2026-11-15")
        #expect(weeks.count == 8)
        #expect(weeks.first == "2026-01-11")
        #expect(notes.contains { $0.contains("this run does the oldest 8") })
    }

    @Test func nothingToCatchUpIsSaid() {
        let (weeks, notes) = Self.weeks([Self.entry("2026-11-15", .done)], through: "2026-11-15")
        #expect(weeks.isEmpty)
        #expect(notes == ["nothing to catch up: the ledger already has the week ending 2026-11-15"])
    }

    @Test func aManualWindowNeverMovesTheSchedule() {
        // Sunday 1 November on schedule, then by hand the week ending Wednesday 11 November.
        let entries = [Self.entry("2026-11-01", .done), Self.entry("2026-11-11", .done)]
        #expect(Self.weeks(entries, through: "2026-11-22").0 == ["2026-11-08", "2026-11-15", "2026-11-22"])
    }

    @Test func anAccountWithOnlyManualWindowsStartsAtTheNextWeekEnd() {
        // A first run by hand on a Thursday, for the week ending Wednesday 18 November.
        let (weeks, notes) = Self.weeks([Self.entry("2026-11-18", .done)], through: "2026-11-29")
        #expect(weeks == ["2026-11-22", "2026-11-29"])
        #expect(notes.isEmpty)
    }

    @Test func eachAccountCatchesUpFromItsOwnNewestWeek() {
        let entries = [Self.entry("2026-11-15", .done), Self.entry("2026-11-01", .done, account: "b")]
        #expect(Self.weeks(entries, through: "2026-11-22").0 == ["2026-11-08", "2026-11-15", "2026-11-22"])
    }

    @Test func anotherWeekdayIsKeptTo() {
        let entries = [Self.entry("2026-11-10", .done)]
        #expect(Self.weeks(entries, through: "2026-11-24", on: .tuesday).0 == ["2026-11-17", "2026-11-24"])
        // A target on another day: the newest week ending on the schedule's day before it.
        let (weeks, notes) = Self.weeks(entries, through: "2026-11-26", on: .tuesday)
        #expect(weeks == ["2026-11-17", "2026-11-24"])
        #expect(notes.first?.contains("ending on a Tuesday") == true)
    }
}

/// Where files go by default, from the environment alone.
struct LocationsTests {
    @Test func xdgVariablesWinAndEmptyOnesCountAsUnset() {
        let set = Locations(environment: ["HOME": "/home/a", "XDG_STATE_HOME": "/state", "XDG_CONFIG_HOME": "/config"])
        #expect(set.stateDirectory == "/state/roundup")
        #expect(set.demoStateDirectory == "/state/roundup/demo")
        #expect(set.configFile == "/config/roundup/config.yaml")
        let unset = Locations(environment: ["HOME": "/home/a", "XDG_STATE_HOME": "", "XDG_CONFIG_HOME": ""])
        #expect(unset.stateDirectory == "/home/a/.local/state/roundup")
        #expect(unset.configFile == "/home/a/.config/roundup/config.yaml")
        #expect(unset.stateDirectory.map(Ledger.path(in:)) == "/home/a/.local/state/roundup/ledger.sqlite")
        // A relative XDG path is ignored, as the XDG Base Directory specification says.
        let relative = Locations(environment: ["HOME": "/home/a", "XDG_STATE_HOME": "state", "XDG_CONFIG_HOME": "./c"])
        #expect(relative.stateDirectory == "/home/a/.local/state/roundup")
        #expect(relative.configFile == "/home/a/.config/roundup/config.yaml")
        // With no HOME and no XDG variables there is nothing to fall back on.
        let none = Locations(environment: [:])
        #expect(none.stateDirectory == nil && none.configFile == nil && none.home == nil)
        #expect(none.expand("~/x") == "~/x")
    }

    @Test func aTildeStandsForHome() {
        let locations = Locations(environment: ["HOME": "/home/a"])
        #expect(locations.expand("~") == "/home/a")
        #expect(locations.expand("~/x") == "/home/a/x")
        #expect(locations.expand("/tmp/~x") == "/tmp/~x")
    }
}
