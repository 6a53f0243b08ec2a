import Foundation
import RoundUp
import RoundUpVocabulary
import RoundUpWeek
import TestSupport
import Testing

@testable import RoundUpTransfers
@testable import StarlingAPI

/// What the feed says of a week's transfer whose outcome is unknown, decided without a server.
@Suite struct TransferCheckTests {
    static let gbp = Currency(code: "GBP")!
    static let goal = "g0000000-0000-4000-8000-000000000001"
    static let otherGoal = "g0000000-0000-4000-8000-000000000002"
    static let weekEnd = LocalDate(iso: "2026-11-15")!
    static let since = Instant(iso8601: "2026-11-16T06:00:00Z")!
    static let time = BankTime(offset: .zero, margin: .seconds(600), measured: false)

    static func week(_ minorUnits: Int64, goals: Set<String> = [goal]) -> TransferCheck.Search {
        TransferCheck.Search(
            weekEnd: weekEnd, amount: Money(minorUnits: minorUnits, currency: gbp), goalUids: goals, since: since)
    }

    /// A transfer in the feed, its uid made from `name` (`namedUid`).
    static func item(_ name: String, _ minorUnits: Int64, at time: String, goal: String = goal) -> FeedTransfer {
        FeedTransfer(
            feedItemUid: namedUid(name), goalUid: goal, currency: "GBP", minorUnits: minorUnits,
            time: Instant(iso8601: time)!)
    }

    /// Another week of the same account, as the ledger holds it: sent once, unless `sends` says otherwise.
    static func other(
        _ status: WeekState, _ minorUnits: Int64, weekEnd: String, created: String, updated: String,
        feedItemUid: String? = nil, sends: Int = 1
    ) -> AccountWeek {
        var entry = AccountWeek(
            accountUid: "a", weekEnd: LocalDate(iso: weekEnd)!, status: status, currency: "GBP",
            minorUnits: minorUnits, goalUid: goal)
        entry.firstLeg.sends = sends
        entry.createdAt = created
        entry.updatedAt = updated
        entry.firstLeg.feedItemUid = feedItemUid
        return entry
    }

    @Test func anEmptyFeedMeansTheTransferIsAbsent() {
        #expect(TransferCheck.decide(Self.week(703), feed: [], ledger: [], time: Self.time) == .absent)
    }

    @Test func exactlyOneMatchingTransferHasArrived() {
        let found = Self.item("f1", 703, at: "2026-11-16T06:00:01Z")
        #expect(TransferCheck.decide(Self.week(703), feed: [found], ledger: [], time: Self.time) == .arrived(found))
    }

    @Test func aTransferToAnotherGoalOrBeforeTheWindowIsNotThisWeeks() {
        let elsewhere = Self.item("f1", 703, at: "2026-11-16T06:00:01Z", goal: Self.otherGoal)
        let earlier = Self.item("f2", 703, at: "2026-11-16T05:59:59Z")
        #expect(
            TransferCheck.decide(Self.week(703), feed: [elsewhere, earlier], ledger: [], time: Self.time)
                == .absent)
        // After a redirect both goals are searched.
        #expect(
            TransferCheck.decide(
                Self.week(703, goals: [Self.goal, Self.otherGoal]), feed: [elsewhere], ledger: [], time: Self.time)
                == .arrived(elsewhere))
    }

    @Test func aTransferWhoseReferenceNamesAnotherWeekIsThatWeeks() {
        var named = Self.item("f1", 703, at: "2026-11-16T06:00:01Z")
        named.referencedWeek = LocalDate(iso: "2026-11-08")
        #expect(TransferCheck.decide(Self.week(703), feed: [named], ledger: [], time: Self.time) == .absent)
        named.referencedWeek = Self.weekEnd
        #expect(TransferCheck.decide(Self.week(703), feed: [named], ledger: [], time: Self.time) == .arrived(named))
    }

    @Test func aReferenceNamingThisWeekNeverLoosensTheMatch() {
        var named = Self.item("f1", 500, at: "2026-11-16T06:00:01Z")
        named.referencedWeek = Self.weekEnd
        // Another amount: still held, not taken as this week's.
        guard case .unclear = TransferCheck.decide(Self.week(703), feed: [named], ledger: [], time: Self.time)
        else {
            Issue.record("a reference must not make another amount a match")
            return
        }
        // Before the window, or into another goal: still not this week's.
        var early = Self.item("f2", 703, at: "2026-11-16T05:59:59Z")
        early.referencedWeek = Self.weekEnd
        var elsewhere = Self.item("f3", 703, at: "2026-11-16T06:00:01Z", goal: Self.otherGoal)
        elsewhere.referencedWeek = Self.weekEnd
        #expect(
            TransferCheck.decide(Self.week(703), feed: [early, elsewhere], ledger: [], time: Self.time) == .absent)
        // Two of them: still held for a person.
        var twin = Self.item("f4", 703, at: "2026-11-16T06:00:02Z")
        twin.referencedWeek = Self.weekEnd
        var first = Self.item("f5", 703, at: "2026-11-16T06:00:01Z")
        first.referencedWeek = Self.weekEnd
        guard
            case .unclear = TransferCheck.decide(Self.week(703), feed: [first, twin], ledger: [], time: Self.time)
        else {
            Issue.record("two transfers naming the week must not be guessed between")
            return
        }
    }

    @Test func aReferenceRulesATransferOutOfOtherWeeksToo() {
        let pending = Self.other(
            .pending, 703, weekEnd: "2026-11-08", created: "2026-11-16T06:00:00Z", updated: "2026-11-16T06:00:00Z")
        let confirmed = Self.other(
            .done, 703, weekEnd: "2026-11-08", created: "2026-11-16T06:00:00Z", updated: "2026-11-16T06:00:02Z")
        let plain = Self.item("f1", 703, at: "2026-11-16T06:00:01Z")
        var named = plain
        named.referencedWeek = Self.weekEnd
        // Without a reference, another week's unconfirmed transfer of the same amount and
        // goal may be this one: held.
        guard
            case .unclear = TransferCheck.decide(Self.week(703), feed: [plain], ledger: [pending], time: Self.time)
        else {
            Issue.record("a transfer that may be another week's must be held")
            return
        }
        // Naming this week, it is not the other week's.
        #expect(
            TransferCheck.decide(Self.week(703), feed: [named], ledger: [pending], time: Self.time)
                == .arrived(named))
        // Nor does a week the bank confirmed account for it.
        #expect(
            TransferCheck.decide(Self.week(703), feed: [plain], ledger: [confirmed], time: Self.time) == .absent)
        #expect(
            TransferCheck.decide(Self.week(703), feed: [named], ledger: [confirmed], time: Self.time)
                == .arrived(named))
    }

    @Test func aTransferItemReadsTheWeekItsReferenceNames() throws {
        let item = try JSONDecoder().decode(
            FeedItem.self,
            from: Data(
                (#"{"feedItemUid":"f0000000-0000-4000-8000-0000000000f1","categoryUid":"ca7e0000-0000-4000-8000-00000000000c","amount":{"currency":"GBP","minorUnits":703},"direction":"OUT","#
                    + #""status":"SETTLED","source":"INTERNAL_TRANSFER","counterPartyUid":"90c00000-0000-4000-8000-0000000000a1","#
                    + #""reference":"Round-up w/e 8 Nov 2026"}"#).utf8))
        #expect(FeedTransfer(item)?.referencedWeek == LocalDate(iso: "2026-11-08"))
    }

    @Test func twoMatchesAreHeldForAPerson() {
        let feed = [Self.item("f1", 703, at: "2026-11-16T06:00:01Z"), Self.item("f2", 703, at: "2026-11-16T06:05:00Z")]
        guard
            case .unclear(let reason) = TransferCheck.decide(
                Self.week(703), feed: feed, ledger: [], time: Self.time)
        else {
            Issue.record("two matches must not be guessed between")
            return
        }
        #expect(reason.contains("2 transfers of 7.03 GBP"))
    }

    @Test func aTransferOfAnotherAmountSinceTheWeekEndedIsHeld() {
        let feed = [Self.item("f1", 500, at: "2026-11-16T06:00:01Z")]
        guard
            case .unclear(let reason) = TransferCheck.decide(
                Self.week(703), feed: feed, ledger: [], time: Self.time)
        else {
            Issue.record("a transfer of another amount must hold the week")
            return
        }
        #expect(reason.contains("5.00 GBP") && reason.contains("7.03 GBP"))
    }

    @Test func anItemClaimedByAnotherWeekIsNotThisWeeks() {
        let feed = [Self.item("f1", 703, at: "2026-11-16T06:00:01Z")]
        let claimed = Self.other(
            .done, 703, weekEnd: "2026-11-08", created: "2026-11-16T06:00:00Z", updated: "2026-11-16T06:00:02Z",
            feedItemUid: namedUid("f1"))
        #expect(TransferCheck.decide(Self.week(703), feed: feed, ledger: [claimed], time: Self.time) == .absent)
    }

    /// Catching up two capped weeks of equal amounts: the earlier week's confirmed transfer,
    /// made between its intent and its confirmation, is not taken for this week's.
    @Test func aConfirmedEarlierWeekAccountsForItsOwnTransfer() {
        let feed = [Self.item("f1", 1000, at: "2026-11-23T06:00:01Z")]
        let earlier = Self.other(
            .done, 1000, weekEnd: "2026-11-08", created: "2026-11-23T06:00:00Z", updated: "2026-11-23T06:00:02Z")
        let week = TransferCheck.Search(
            weekEnd: Self.weekEnd, amount: Money(minorUnits: 1000, currency: Self.gbp), goalUids: [Self.goal],
            since: Self.since)
        #expect(TransferCheck.decide(week, feed: feed, ledger: [earlier], time: Self.time) == .absent)
        // Confirmed long before the transfer was made: it cannot account for it.
        let older = Self.other(
            .done, 1000, weekEnd: "2026-11-08", created: "2026-11-09T06:00:00Z", updated: "2026-11-09T06:00:02Z")
        #expect(TransferCheck.decide(week, feed: feed, ledger: [older], time: Self.time) == .arrived(feed[0]))
    }

    /// A confirmed week accounts for one transfer only, however many of its amount fall
    /// in its window: the next one of the same amount may be this week's.
    @Test func aConfirmedWeekAccountsForOneTransferOnly() {
        let earlier = Self.other(
            .done, 1000, weekEnd: "2026-11-08", created: "2026-11-23T06:00:00Z", updated: "2026-11-23T06:00:02Z")
        let own = Self.item("f1", 1000, at: "2026-11-23T06:00:01Z")
        let next = Self.item("f2", 1000, at: "2026-11-23T06:00:03Z")
        #expect(
            TransferCheck.decide(Self.week(1000), feed: [own, next], ledger: [earlier], time: Self.time)
                == .arrived(next))
        let third = Self.item("f3", 1000, at: "2026-11-23T06:00:04Z")
        guard
            case .unclear = TransferCheck.decide(
                Self.week(1000), feed: [own, next, third], ledger: [earlier], time: Self.time)
        else {
            Issue.record("two transfers left for one week must not be guessed between")
            return
        }
    }

    @Test func aTransferThatMayBeAnAbandonedWeeksIsNotTakenForThisOne() {
        let feed = [Self.item("f1", 703, at: "2026-11-23T06:00:01Z")]
        let abandoned = Self.other(
            .abandoned, 703, weekEnd: "2026-11-08", created: "2026-11-23T06:00:00Z", updated: "2026-11-23T07:00:00Z")
        guard
            case .unclear(let reason) = TransferCheck.decide(
                Self.week(703), feed: feed, ledger: [abandoned], time: Self.time)
        else {
            Issue.record("the transfer may be the abandoned week's")
            return
        }
        #expect(reason.contains("abandoned one of the week ending 2026-11-08"))
    }

    /// A week already sent: a transfer of its amount made after its last send could have
    /// made it is not its own, and holds it; one made while it was sent is found.
    @Test func aTransferMadeAfterTheLastSendCouldHaveMadeItHoldsTheWeek() {
        var week = Self.week(703)
        week.until = Instant(iso8601: "2026-11-23T06:11:00Z")!
        let own = Self.item("f1", 703, at: "2026-11-23T06:00:01Z")
        let late = Self.item("f2", 703, at: "2026-11-23T09:00:00Z")
        #expect(TransferCheck.decide(week, feed: [own], ledger: [], time: Self.time) == .arrived(own))
        guard case .unclear(let reason) = TransferCheck.decide(week, feed: [late], ledger: [], time: Self.time) else {
            Issue.record("a transfer made long after the last send must hold the week")
            return
        }
        #expect(reason.contains("after this week's last send"))
        #expect(TransferCheck.beforeResending(week, feed: [late], ledger: [], time: Self.time) == .free)
    }

    /// A week held before it was ever sent made no transfer: it cannot be this one's either.
    @Test func aWeekNeverSentAccountsForNoTransfer() {
        let feed = [Self.item("f1", 703, at: "2026-11-23T06:00:01Z")]
        let neverSent = Self.other(
            .held, 703, weekEnd: "2026-11-08", created: "2026-11-23T06:00:00Z", updated: "2026-11-23T06:00:00Z",
            sends: 0)
        #expect(
            TransferCheck.decide(Self.week(703), feed: feed, ledger: [neverSent], time: Self.time) == .arrived(feed[0]))
    }

    @Test func aTransferThatMayBeAnotherUnconfirmedWeeksIsHeldIfTheAmountsAgree() {
        let feed = [Self.item("f1", 703, at: "2026-11-23T06:00:01Z")]
        let unconfirmed = Self.other(
            .pending, 703, weekEnd: "2026-11-08", created: "2026-11-23T06:00:00Z", updated: "2026-11-23T06:00:00Z")
        guard
            case .unclear(let reason) = TransferCheck.decide(
                Self.week(703), feed: feed, ledger: [unconfirmed], time: Self.time)
        else {
            Issue.record("the transfer may be either week's")
            return
        }
        #expect(reason.contains("2026-11-08"))
        // Of another amount, it is the other week's and says nothing of this one.
        #expect(
            TransferCheck.decide(Self.week(500), feed: feed, ledger: [unconfirmed], time: Self.time) == .absent)
    }

    @Test func feedItemsThatAreNotTransfersIntoAGoalAreLeftOut() {
        let json: [(String, String, String?, String)] = [
            ("OUT", "INTERNAL_TRANSFER", Self.goal, "SETTLED"), ("IN", "INTERNAL_TRANSFER", Self.goal, "SETTLED"),
            ("OUT", "MASTER_CARD", Self.goal, "SETTLED"), ("OUT", "INTERNAL_TRANSFER", nil, "SETTLED"),
            ("OUT", "INTERNAL_TRANSFER", Self.goal, "DECLINED"), ("OUT", "INTERNAL_TRANSFER", Self.goal, "REVERSED"),
            ("OUT", "INTERNAL_TRANSFER", Self.goal, "PENDING"),
        ]
        let taken = json.map { direction, source, goal, status in
            FeedTransfer(
                FeedItem(
                    feedItemUid: namedUid("f"), categoryUid: namedUid("c"),
                    amount: CurrencyAndAmount(currency: "GBP", minorUnits: 1),
                    direction: direction, status: status, transactionTime: "2026-11-16T06:00:01.000Z",
                    settlementTime: nil, source: source, sourceSubType: nil, counterPartyType: "CATEGORY",
                    counterPartyUid: goal,
                    counterPartyName: "Round-ups", spendingCategory: "SAVING", hasBankRoundUp: false, reference: nil,
                    unreadableUid: nil))
                != nil
        }
        #expect(taken == [true, false, false, false, false, false, true])
    }

    /// Every status the spec gives a feed item, and one it does not: only settled or pending
    /// money has moved; declined, reversed or cancelled never will; anything else may still,
    /// so the week is held and nothing is sent.
    static let statuses: [(String, String)] = [
        ("SETTLED", "arrived"), ("PENDING", "arrived"),
        ("DECLINED", "absent"), ("REVERSED", "absent"), ("UPCOMING_CANCELLED", "absent"),
        ("UPCOMING", "unclear"), ("RETRYING", "unclear"), ("ACCOUNT_CHECK", "unclear"), ("REFUNDED", "unclear"),
        ("SOMETHING_NEW", "unclear"),
    ]

    @Test(arguments: statuses)
    func onlyMoneyThatMovedCounts(status: String, outcome: String) {
        let item = FeedItem(
            feedItemUid: namedUid("f"), categoryUid: namedUid("c"),
            amount: CurrencyAndAmount(currency: "GBP", minorUnits: 703),
            direction: "OUT", status: status, transactionTime: "2026-11-16T06:00:01.000Z", settlementTime: nil,
            source: "INTERNAL_TRANSFER", sourceSubType: nil, counterPartyType: "CATEGORY", counterPartyUid: Self.goal,
            counterPartyName: "Round-ups", spendingCategory: "SAVING", hasBankRoundUp: false, reference: nil,
            unreadableUid: nil)
        let feed = FeedTransfer(item).map { [$0] } ?? []
        let check = TransferCheck.decide(Self.week(703), feed: feed, ledger: [], time: Self.time)
        switch (check, outcome) {
        case (.arrived(let found), "arrived"): #expect(found.feedItemUid == namedUid("f"))
        case (.absent, "absent"): break
        case (.unclear(let reason), "unclear"):
            #expect(reason.contains("whose status is \(status)"), "\(reason)")
        default: Issue.record("\(status): \(check), expected \(outcome)")
        }
    }

    /// A held week's reason shows the bank's status as plain text only.
    @Test func aStatusFromTheBankIsQuotedAsPlainText() {
        #expect(TransferCheck.quoted("UP\u{1b}[2JCOMING") == "UP\\u001b[2JCOMING")
        #expect(TransferCheck.quoted(" \n") == "(none)")
        #expect(TransferCheck.quoted(String(repeating: "X", count: 99)).count == 40)
    }

    /// A confirmed later week's own transfer names it, and so is no candidate for this week;
    /// the later week still accounts for it, not for this week's transfer (which has no
    /// reference, as sent before transfers carried one).
    @Test func aConfirmedWeekAccountsForTheTransferThatNamesIt() {
        let week = TransferCheck.Search(
            weekEnd: Self.weekEnd, amount: Money(minorUnits: 703, currency: Self.gbp), goalUids: [Self.goal],
            since: Instant(iso8601: "2026-11-23T05:50:00Z")!)
        var later = Self.other(
            .done, 703, weekEnd: "2026-11-22", created: "2026-11-23T06:01:00Z", updated: "2026-11-23T06:01:02Z")
        later.firstLeg.reference = TransferReference.forWeek(endingOn: LocalDate(iso: "2026-11-22")!)
        let mine = Self.item("mine", 703, at: "2026-11-23T06:00:01Z")
        var theirs = Self.item("theirs", 703, at: "2026-11-23T06:01:01Z")
        theirs.referencedWeek = LocalDate(iso: "2026-11-22")
        #expect(
            TransferCheck.decide(week, feed: [mine, theirs], ledger: [later], time: Self.time) == .arrived(mine))
        // The same without references: the later week takes the one closest to its confirmation.
        theirs.referencedWeek = nil
        #expect(
            TransferCheck.decide(week, feed: [mine, theirs], ledger: [later], time: Self.time) == .arrived(mine))
        // Its own transfer nearer the other's confirmation than the one that names it: the named one is its.
        var named = Self.item("named", 703, at: "2026-11-23T06:00:30Z")
        named.referencedWeek = LocalDate(iso: "2026-11-22")
        let unnamed = Self.item("unnamed", 703, at: "2026-11-23T06:01:01Z")
        #expect(
            TransferCheck.decide(week, feed: [named, unnamed], ledger: [later], time: Self.time)
                == .arrived(unnamed))
    }

    /// A week this ledger has never seen is held when the feed shows its amount moved into
    /// another goal since it ended: another config, saving elsewhere, may have moved it.
    @Test func aWeekNeverSeenIsHeldForItsAmountInAnotherGoal() {
        let elsewhere = Self.item("f1", 703, at: "2026-11-16T06:00:01Z", goal: Self.otherGoal)
        var week = Self.week(703)
        #expect(TransferCheck.decide(week, feed: [elsewhere], ledger: [], time: Self.time) == .absent)
        week.watchesOtherGoals = true
        guard case .unclear(let reason) = TransferCheck.decide(week, feed: [elsewhere], ledger: [], time: Self.time)
        else {
            Issue.record("expected the week held")
            return
        }
        #expect(reason.contains("into another goal (\(Self.otherGoal))"))
        // The goal's uid is the bank's text: shown without what could drive a terminal.
        let hostile = Self.item("f4", 703, at: "2026-11-16T06:00:01Z", goal: "\u{1b}]0;pwned\u{7}\u{1b}[2J")
        guard case .unclear(let shown) = TransferCheck.decide(week, feed: [hostile], ledger: [], time: Self.time)
        else {
            Issue.record("expected the week held")
            return
        }
        #expect(
            !shown.unicodeScalars.contains { $0.value < 0x20 } && shown.contains("(\\u001b]0;pwned\\u0007\\u001b[2J)"),
            "\(shown)")
        // Another amount, or a transfer before the week ended, is no sign of it.
        let other = Self.item("f2", 704, at: "2026-11-16T06:00:01Z", goal: Self.otherGoal)
        let before = Self.item("f3", 703, at: "2026-11-16T05:00:00Z", goal: Self.otherGoal)
        #expect(TransferCheck.decide(week, feed: [other, before], ledger: [], time: Self.time) == .absent)
    }
}

/// The transfers another ledger may have divided a week into: found however many goals it
/// used, and not found when no set of them adds up to the week.
@Suite struct WeekPartsTests {
    static func transfers(_ amounts: [Int64]) -> [FeedTransfer] {
        amounts.enumerated().map { index, amount in
            FeedTransfer(
                feedItemUid: "f\(index)", goalUid: "g\(index)", currency: "GBP", minorUnits: amount, time: nil)
        }
    }

    @Test func aWeekInAnyNumberOfPartsIsFound() {
        #expect(TransferCheck.parts(of: 298, among: Self.transfers([60, 60, 60, 59, 59]))?.count == 5)
        let tenths = Self.transfers(Array(repeating: 30, count: 9) + [28])
        #expect(TransferCheck.parts(of: 298, among: tenths)?.count == 10)
        #expect(
            TransferCheck.parts(of: 298, among: Self.transfers([500, 179, 7, 119]))?.map(\.minorUnits) == [179, 119])
    }

    @Test func noSetAddingUpToTheWeekIsNoParts() {
        #expect(TransferCheck.parts(of: 298, among: Self.transfers([298])) == nil, "one transfer is not parts")
        #expect(TransferCheck.parts(of: 298, among: Self.transfers([100, 100, 97])) == nil)
        #expect(TransferCheck.parts(of: 298, among: Self.transfers(Array(repeating: 7, count: 32))) == nil)
    }
}
