import Foundation
import RoundUp
import StarlingEmulator
import Synchronization
import TestSupport
import Testing

/// The emulated bank's behaviours where banks differ: transfers that are not deduplicated,
/// a clock that is off, goals that are not ACTIVE yet, deleted goals, and the feed of one
/// category by transaction time. Driven through `EmulatedBank.handle(_:)`, with no server.
@Suite struct EmulatorBehaviourTests {
    /// A fixed real-clock instant: 2026-11-12T10:00:00.000Z.
    static let start = Instant(iso8601: "2026-11-12T10:00:00.000Z")!

    /// A clock that tests move by hand.
    final class TestClock: Sendable {
        private let current: Mutex<Instant>

        init(_ start: Instant) { current = Mutex(start) }

        var now: Instant { current.withLock { $0 } }

        func advance(milliseconds: Int64) {
            current.withLock { $0 = $0.adding(milliseconds: milliseconds) }
        }
    }

    /// One GBP account with a balance of 100.00 and an ACTIVE goal "Round-ups".
    struct Fixture {
        var bank = TestBank(token: "tok-behaviour")
        let account: String
        let category: String
        let goal = "90a10000-0000-4000-8000-000000000001"

        init() {
            account = bank.account("GBP", name: "Personal", balance: 100_00)
            category = bank.category(of: account)
            bank.goal(account, name: "Round-ups", uid: goal)
        }
    }

    // MARK: - Requests

    func send(
        _ bank: EmulatedBank, _ method: String, _ path: String, query: [String: String] = [:], body: String = ""
    ) async -> EmulatorResponse {
        let token = await bank.state.token
        return await bank.handle(
            EmulatorRequest(
                method: method, path: path, query: query,
                headers: ["authorization": "Bearer \(token)", "accept": "application/json"], body: Array(body.utf8)))
    }

    func addMoney(_ bank: EmulatedBank, _ account: String, _ goal: String, transfer: String, _ minorUnits: Int64)
        async -> EmulatorResponse
    {
        await send(
            bank, "PUT", "/api/v2/account/\(account)/savings-goals/\(goal)/add-money/\(transfer)",
            body: #"{"amount":{"currency":"GBP","minorUnits":\#(minorUnits)}}"#)
    }

    func createGoal(_ bank: EmulatedBank, _ account: String, name: String) async throws -> String {
        let response = await send(
            bank, "PUT", "/api/v2/account/\(account)/savings-goals", body: #"{"name":"\#(name)","currency":"GBP"}"#)
        try #require(response.status == 200, "\(text(response))")
        struct Created: Decodable { var savingsGoalUid: String }
        return try JSONDecoder().decode(Created.self, from: Data(response.body)).savingsGoalUid
    }

    /// The goals list as served: uid and state of each goal.
    func servedGoals(_ bank: EmulatedBank, _ account: String) async throws -> [String: String?] {
        let response = await send(bank, "GET", "/api/v2/account/\(account)/savings-goals")
        try #require(response.status == 200, "\(text(response))")
        struct Goals: Decodable {
            struct Goal: Decodable {
                var savingsGoalUid: String
                var state: String?
            }
            var savingsGoalList: [Goal]
        }
        let goals = try JSONDecoder().decode(Goals.self, from: Data(response.body)).savingsGoalList
        return Dictionary(uniqueKeysWithValues: goals.map { ($0.savingsGoalUid, $0.state) })
    }

    func categoryFeed(_ bank: EmulatedBank, _ account: String, _ category: String, from: Instant, to: Instant)
        async throws -> [EmulatedFeedItem]
    {
        let response = await send(
            bank, "GET", "/api/v2/feed/account/\(account)/category/\(category)/transactions-between",
            query: ["minTransactionTimestamp": from.iso8601, "maxTransactionTimestamp": to.iso8601])
        try #require(response.status == 200, "\(text(response))")
        return try feedItems(response)
    }

    func settledFeed(_ bank: EmulatedBank, _ account: String, from: Instant, to: Instant) async throws
        -> [EmulatedFeedItem]
    {
        let response = await send(
            bank, "GET", "/api/v2/feed/account/\(account)/settled-transactions-between",
            query: ["minTransactionTimestamp": from.iso8601, "maxTransactionTimestamp": to.iso8601])
        try #require(response.status == 200, "\(text(response))")
        return try feedItems(response)
    }

    func feedItems(_ response: EmulatorResponse) throws -> [EmulatedFeedItem] {
        struct Feed: Decodable { var feedItems: [EmulatedFeedItem] }
        return try JSONDecoder().decode(Feed.self, from: Data(response.body)).feedItems
    }

    func text(_ response: EmulatorResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    /// The first error message of an error body.
    func message(_ response: EmulatorResponse) -> String? {
        struct Errors: Decodable {
            struct Detail: Decodable { var message: String }
            var errors: [Detail]
        }
        return (try? JSONDecoder().decode(Errors.self, from: Data(response.body)))?.errors.first?.message
    }

    /// The transfers out of the account's main category (each has its other side, into the
    /// goal, too).
    func transferItems(_ bank: EmulatedBank, _ account: String) async -> [EmulatedFeedItem] {
        (await bank.state.feeds[account] ?? []).filter { $0.source == "INTERNAL_TRANSFER" && $0.direction == "OUT" }
    }

    // MARK: - Deduplication

    @Test("with --dedup a repeated transfer uid is answered as before and moves the money once")
    func optInDeduplicates() async throws {
        let fixture = Fixture()
        let bank = EmulatedBank(state: fixture.bank.state, behaviour: EmulatorBehaviour(deduplicatesTransfers: true))
        let transfer = "3f2a1b4c-0000-4000-8000-000000000001"
        for _ in 1...2 {
            let response = await addMoney(bank, fixture.account, fixture.goal, transfer: transfer, 37)
            #expect(response.status == 200, "\(text(response))")
        }
        #expect(await bank.transfers.count == 1)
        #expect(await transferItems(bank, fixture.account).count == 1)
        #expect(await bank.state.accounts[0].balance == 100_00 - 37)
        #expect(await bank.state.goals[fixture.account]?.first?.totalSaved == 37)
        // The same uid with another amount is a conflict, and moves nothing.
        let conflict = await addMoney(bank, fixture.account, fixture.goal, transfer: transfer, 38)
        #expect(conflict.status == 409)
        #expect(message(conflict) == "TRANSFER_UID_ALREADY_USED")
        #expect(await bank.statistics.movedMinorUnits == 37)
    }

    @Test("by default, as the bank documents no deduplication, a repeated transfer uid moves the money again")
    func byDefaultARepeatMovesTwice() async throws {
        let fixture = Fixture()
        let bank = EmulatedBank(state: fixture.bank.state)
        let transfer = "3f2a1b4c-0000-4000-8000-000000000002"
        for _ in 1...2 {
            let response = await addMoney(bank, fixture.account, fixture.goal, transfer: transfer, 37)
            #expect(response.status == 200, "\(text(response))")
        }
        let transfers = await bank.transfers
        #expect(transfers.count == 2)
        #expect(transfers.allSatisfy { $0.transferUid == transfer && $0.amount == EmulatedAmount("GBP", 37) })
        let items = await transferItems(bank, fixture.account)
        #expect(items.count == 2)
        #expect(Set(items.map(\.feedItemUid)).count == 2)
        #expect(await bank.state.accounts[0].balance == 100_00 - 2 * 37)
        #expect(await bank.state.goals[fixture.account]?.first?.totalSaved == 2 * 37)
        let statistics = await bank.statistics
        #expect(statistics.transfers == 2)
        #expect(statistics.movedMinorUnits == 2 * 37)
    }

    @Test("deduplication can be switched off between runs, and on again")
    func switchingDeduplication() async throws {
        let fixture = Fixture()
        let bank = EmulatedBank(state: fixture.bank.state, behaviour: EmulatorBehaviour(deduplicatesTransfers: true))
        let transfer = "3f2a1b4c-0000-4000-8000-000000000003"
        #expect(await addMoney(bank, fixture.account, fixture.goal, transfer: transfer, 10).status == 200)
        #expect(await addMoney(bank, fixture.account, fixture.goal, transfer: transfer, 10).status == 200)
        #expect(await bank.transfers.count == 1)
        await bank.setBehaviour(EmulatorBehaviour(deduplicatesTransfers: false))
        #expect(await bank.behaviour.deduplicatesTransfers == false)
        #expect(await addMoney(bank, fixture.account, fixture.goal, transfer: transfer, 10).status == 200)
        #expect(await bank.transfers.count == 2)
        await bank.setBehaviour(EmulatorBehaviour(deduplicatesTransfers: true))
        #expect(await addMoney(bank, fixture.account, fixture.goal, transfer: transfer, 10).status == 200)
        #expect(await bank.transfers.count == 2)
        #expect(await bank.state.accounts[0].balance == 100_00 - 20)
    }

    @Test("a transfer's reference is kept, shown on its feed items only with --feed-reference, and capped at 100")
    func references() async throws {
        for shown in [false, true] {
            let fixture = Fixture()
            let bank = EmulatedBank(state: fixture.bank.state, behaviour: EmulatorBehaviour(feedReference: shown))
            let path = "/api/v2/account/\(fixture.account)/savings-goals/\(fixture.goal)/add-money/"
            let labelled = await send(
                bank, "PUT", path + "3f2a1b4c-0000-4000-8000-000000000011",
                body: #"{"amount":{"currency":"GBP","minorUnits":12},"reference":"Round-up w/e 15 Nov 2026"}"#)
            #expect(labelled.status == 200, "\(text(labelled))")
            #expect(await bank.transfers.map(\.reference) == ["Round-up w/e 15 Nov 2026"])
            let items = (await bank.state.feeds[fixture.account] ?? []).filter { $0.source == "INTERNAL_TRANSFER" }
            #expect(items.count == 2, "both sides of the move")
            #expect(items.allSatisfy { $0.reference == (shown ? "Round-up w/e 15 Nov 2026" : nil) })
            let long = String(repeating: "x", count: 101)
            let refused = await send(
                bank, "PUT", path + "3f2a1b4c-0000-4000-8000-000000000012",
                body: #"{"amount":{"currency":"GBP","minorUnits":12},"reference":"\#(long)"}"#)
            #expect(refused.status == 400)
            #expect(await bank.transfers.count == 1)
        }
    }

    @Test("the benchmark seed spreads each week's payments over its own week, the newest the seeded one")
    func benchmarkWeeks() throws {
        let end = try #require(LocalDate(iso: "2026-11-15"))
        let one = Seed.benchmark(accounts: 1, items: 5, endingOn: end, token: "t")
        let three = Seed.benchmark(accounts: 1, items: 5, endingOn: end, weeks: 3, token: "t")
        let account = three.state.accounts[0].uid
        let items = three.state.feeds[account] ?? []
        #expect(items.count == 15)
        #expect(Set(items.map(\.feedItemUid)).count == 15)
        for (index, weekEnd) in ["2026-11-01", "2026-11-08", "2026-11-15"].enumerated() {
            let week = londonWeek(weekEnd)
            let inWeek = items.filter { item in
                let settled = Instant(iso8601: item.settlementTime ?? "")!
                return week.start <= settled && settled < week.end
            }
            #expect(inWeek.count == 5, "\(weekEnd)")
            #expect(inWeek.map(\.feedItemUid) == Array(items[(index * 5)..<(index * 5 + 5)].map(\.feedItemUid)))
        }
        // One week gives the seeded week alone.
        #expect((one.state.feeds[account] ?? []).count == 5)
        #expect(one.roundUpPerAccount[0] <= three.roundUpPerAccount[0])
    }

    // MARK: - The category feed

    @Test("the category feed serves one category by transaction time, bounds included, whatever the status")
    func categoryFeedByTransactionTime() async throws {
        var fixture = Fixture()
        let from = Self.start
        let to = Self.start.adding(milliseconds: 86_400_000)
        let space = "5ace0000-0000-4000-8000-000000000001"
        let account = fixture.account
        // Settled long after its transaction time: in the category feed by transaction time only.
        fixture.bank.spend(account, 1_00, settled: to.adding(milliseconds: 1)) { item in
            item.feedItemUid = "at-min"
            item.transactionTime = from.iso8601
        }
        fixture.bank.spend(account, 2_00, settled: from) { item in
            item.feedItemUid = "pending"
            item.status = "PENDING"
            item.transactionTime = from.adding(milliseconds: 3_600_000).iso8601
            item.settlementTime = nil
        }
        fixture.bank.spend(account, 3_00, settled: to) { $0.feedItemUid = "at-max" }
        fixture.bank.spend(account, 4_00, settled: from.adding(milliseconds: 60_000)) { item in
            item.feedItemUid = "declined"
            item.status = "DECLINED"
            item.settlementTime = nil
        }
        fixture.bank.spend(account, 5_00, settled: from.adding(milliseconds: -1)) { $0.feedItemUid = "before" }
        fixture.bank.spend(account, 6_00, settled: to.adding(milliseconds: 1)) { $0.feedItemUid = "after" }
        // Settled in the window but created before it: in the settled feed only.
        fixture.bank.spend(account, 7_00, settled: from.adding(milliseconds: 1)) { item in
            item.feedItemUid = "created-before"
            item.transactionTime = from.adding(milliseconds: -1).iso8601
        }
        fixture.bank.spend(account, 8_00, settled: from.adding(milliseconds: 5)) { item in
            item.feedItemUid = "in-a-space"
            item.categoryUid = space
        }
        let bank = EmulatedBank(state: fixture.bank.state)

        let items = try await categoryFeed(bank, account, fixture.category, from: from, to: to)
        #expect(Set(items.map(\.feedItemUid)) == ["at-min", "pending", "at-max", "declined"])
        #expect(items.count == 4)
        let pending = try #require(items.first { $0.feedItemUid == "pending" })
        #expect(pending.status == "PENDING" && pending.settlementTime == nil)
        let inSpace = try await categoryFeed(bank, account, space, from: from, to: to)
        #expect(inSpace.map(\.feedItemUid) == ["in-a-space"])
        #expect(try await categoryFeed(bank, account, "ca7e0000-0000-4000-8000-00000000dead", from: from, to: to) == [])

        // The settled feed of the same window: by settlement time, settled items only.
        let settled = try await settledFeed(bank, account, from: from, to: to)
        #expect(Set(settled.map(\.feedItemUid)) == ["at-max", "created-before", "in-a-space"])

        // Served in the same shape as the settled feed.
        let both = try await categoryFeed(bank, account, fixture.category, from: to, to: to)
        let settledAtMax = try await settledFeed(bank, account, from: to, to: to)
        #expect(both == settledAtMax)
        #expect(both.map(\.feedItemUid) == ["at-max"])

        let requests = await bank.requests
        #expect(requests.filter { $0.endpoint == .categoryFeed }.count == 4)
    }

    @Test("the category feed refuses an unknown account, bad bounds and a token without transaction:read")
    func categoryFeedErrors() async throws {
        let fixture = Fixture()
        let bank = EmulatedBank(state: fixture.bank.state)
        let good = ["minTransactionTimestamp": Self.start.iso8601, "maxTransactionTimestamp": Self.start.iso8601]
        let unknown = await send(
            bank, "GET",
            "/api/v2/feed/account/acc00000-0000-4000-8000-0000000000ff/category/\(fixture.category)"
                + "/transactions-between", query: good)
        #expect(unknown.status == 404)
        #expect(message(unknown) == "UNKNOWN_ACCOUNT")
        let path = "/api/v2/feed/account/\(fixture.account)/category/\(fixture.category)/transactions-between"
        for query in [
            [:], ["minTransactionTimestamp": Self.start.iso8601],
            ["minTransactionTimestamp": "yesterday", "maxTransactionTimestamp": Self.start.iso8601],
            ["minTransactionTimestamp": Self.start.iso8601, "maxTransactionTimestamp": "2026-11-12 10:00"],
        ] {
            let response = await send(bank, "GET", path, query: query)
            #expect(response.status == 400, "\(query)")
            #expect(message(response)?.contains("ISO 8601") == true, "\(query)")
        }
        await bank.update { $0.scopes.removeAll { $0 == "transaction:read" } }
        #expect(await send(bank, "GET", path, query: good).status == 403)
    }

    @Test("fault rules can target the category feed alone")
    func faultsOnTheCategoryFeed() async throws {
        let fixture = Fixture()
        let bank = EmulatedBank(state: fixture.bank.state)
        await bank.injectFaults([.first(1, [.categoryFeed], .serverError(503))])
        let query = ["minTransactionTimestamp": Self.start.iso8601, "maxTransactionTimestamp": Self.start.iso8601]
        let settled = await send(
            bank, "GET", "/api/v2/feed/account/\(fixture.account)/settled-transactions-between", query: query)
        #expect(settled.status == 200)
        let path = "/api/v2/feed/account/\(fixture.account)/category/\(fixture.category)/transactions-between"
        #expect(await send(bank, "GET", path, query: query).status == 503)
        #expect(await send(bank, "GET", path, query: query).status == 200)
        #expect(await bank.injectedFaults == [InjectedFault(endpoint: .categoryFeed, fault: .serverError(503))])
    }

    // MARK: - Transfers in the feed, and the bank's clock

    @Test(
        "a transfer shows in the feed as the bank shows it, stamped with the bank's clock",
        arguments: [0, 300, -300])
    func transferFeedItem(offsetSeconds: Int64) async throws {
        let fixture = Fixture()
        let start = Self.start
        let bank = EmulatedBank(
            state: fixture.bank.state, now: { start },
            behaviour: EmulatorBehaviour(clockOffset: .seconds(offsetSeconds)))
        let response = await addMoney(
            bank, fixture.account, fixture.goal, transfer: "3f2a1b4c-0000-4000-8000-000000000004", 42)
        #expect(response.status == 200, "\(text(response))")
        let stamped = start.adding(milliseconds: offsetSeconds * 1000)

        let items = await transferItems(bank, fixture.account)
        let item = try #require(items.first)
        #expect(items.count == 1)
        #expect(item.amount == EmulatedAmount("GBP", 42))
        #expect(item.direction == "OUT")
        #expect(item.status == "SETTLED")
        #expect(item.source == "INTERNAL_TRANSFER")
        #expect(item.counterPartyType == "CATEGORY")
        #expect(item.counterPartyUid == fixture.goal)
        #expect(item.counterPartyName == "Round-ups")
        #expect(item.categoryUid == fixture.category)
        #expect(item.spendingCategory == "SAVING")
        #expect(item.transactionTime == stamped.iso8601)
        #expect(item.settlementTime == stamped.iso8601)
        #expect(item.updatedAt == stamped.iso8601)
        // Into the goal's own category too, as the bank shows a move between categories.
        let into = try #require(await bank.state.feeds[fixture.account]?.first { $0.direction == "IN" })
        #expect(into.categoryUid == fixture.goal)
        #expect(into.amount == item.amount && into.source == "INTERNAL_TRANSFER")
        #expect(into.counterPartyType == "CATEGORY" && into.counterPartyUid == fixture.category)
        #expect(into.settlementTime == stamped.iso8601)
        // The feeds serve them at the bank's instant: each category its own side, the settled
        // feed, which spans every category, both.
        #expect(try await categoryFeed(bank, fixture.account, fixture.category, from: stamped, to: stamped) == [item])
        #expect(try await categoryFeed(bank, fixture.account, fixture.goal, from: stamped, to: stamped) == [into])
        #expect(try await settledFeed(bank, fixture.account, from: stamped, to: stamped) == [item, into])
        if offsetSeconds != 0 {
            // Not at the real clock's instant: the offset moved it.
            #expect(try await categoryFeed(bank, fixture.account, fixture.category, from: start, to: start) == [])
        }
        // When the bank's clock is off, requests are still recorded on the real clock.
        #expect(await bank.requests.first?.arrived == start)
    }

    @Test("the clock offset leaves seeded data alone")
    func clockOffsetLeavesSeededDataAlone() async throws {
        let zone = TimeZone(identifier: "Europe/London")!
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: zone)
        let bank = EmulatedBank(state: state, behaviour: EmulatorBehaviour(clockOffset: .seconds(-86_400)))
        let week = Week(endingOn: LocalDate(iso: "2026-11-15")!, in: zone)
        let served = try await settledFeed(
            bank, Seed.Uid.gbpAccount, from: week.start, to: week.end.adding(milliseconds: -1))
        let seeded = (state.feeds[Seed.Uid.gbpAccount] ?? []).filter { item in
            guard let settled = item.settlementTime.flatMap({ Instant(iso8601: $0) }) else { return false }
            return week.start <= settled && settled < week.end
        }
        #expect(!seeded.isEmpty)
        #expect(served == seeded)
    }

    // MARK: - Goals that are not ACTIVE

    @Test("a new goal is CREATING for the activation delay, refuses add-money, then is ACTIVE")
    func goalActivation() async throws {
        let fixture = Fixture()
        let clock = TestClock(Self.start)
        let bank = EmulatedBank(
            state: fixture.bank.state, now: { clock.now },
            behaviour: EmulatorBehaviour(clockOffset: .seconds(-300), goalActivationDelay: .seconds(60)))
        let goal = try await createGoal(bank, fixture.account, name: "Later")
        #expect(try await servedGoals(bank, fixture.account)[goal] == "CREATING")
        let created = await bank.state.goals[fixture.account]?.first { $0.uid == goal }
        #expect(created?.createdAt == Self.start.adding(milliseconds: -300_000))

        let transfer = "3f2a1b4c-0000-4000-8000-000000000005"
        let refused = await addMoney(bank, fixture.account, goal, transfer: transfer, 25)
        #expect(refused.status == 400)
        #expect(message(refused) == "SAVINGS_GOAL_NOT_ACTIVE")
        #expect(await bank.transfers.isEmpty)
        #expect(await transferItems(bank, fixture.account).isEmpty)
        #expect(await bank.state.accounts[0].balance == 100_00)

        clock.advance(milliseconds: 59_999)
        #expect(try await servedGoals(bank, fixture.account)[goal] == "CREATING")
        #expect(await addMoney(bank, fixture.account, goal, transfer: transfer, 25).status == 400)

        clock.advance(milliseconds: 1)
        #expect(try await servedGoals(bank, fixture.account)[goal] == "ACTIVE")
        let moved = await addMoney(bank, fixture.account, goal, transfer: transfer, 25)
        #expect(moved.status == 200, "\(text(moved))")
        #expect(await bank.transfers.count == 1)
        #expect(await bank.state.accounts[0].balance == 100_00 - 25)
        // The seeded goal was ACTIVE all along.
        #expect(try await servedGoals(bank, fixture.account)[fixture.goal] == "ACTIVE")
    }

    @Test("without an activation delay a new goal is ACTIVE at once")
    func goalActiveAtOnce() async throws {
        let fixture = Fixture()
        let bank = EmulatedBank(state: fixture.bank.state, now: { Self.start })
        let goal = try await createGoal(bank, fixture.account, name: "Now")
        #expect(try await servedGoals(bank, fixture.account)[goal] == "ACTIVE")
        #expect(
            await addMoney(bank, fixture.account, goal, transfer: "3f2a1b4c-0000-4000-8000-000000000006", 5).status
                == 200)
    }

    @Test(
        "add-money into a goal that is not ACTIVE is refused and moves nothing",
        arguments: ["CREATING", "PENDING", "ARCHIVING", "ARCHIVED", "RESTORING"])
    func notActiveGoalsRefuse(goalState: String) async throws {
        var fixture = Fixture()
        let goal = "90a10000-0000-4000-8000-0000000000aa"
        fixture.bank.goal(fixture.account, name: "Other", uid: goal, state: goalState)
        let bank = EmulatedBank(state: fixture.bank.state)
        let response = await addMoney(bank, fixture.account, goal, transfer: "3f2a1b4c-0000-4000-8000-000000000007", 5)
        #expect(response.status == 400)
        #expect(message(response) == "SAVINGS_GOAL_NOT_ACTIVE")
        #expect(await bank.transfers.isEmpty)
        #expect(await bank.state.accounts[0].balance == 100_00)
        #expect(try await servedGoals(bank, fixture.account)[goal] == goalState)
    }

    @Test("every goal is served with a state, as the bank's spec requires")
    func everyGoalHasAState() async throws {
        var fixture = Fixture()
        fixture.bank.goal(fixture.account, name: "Old", uid: "90a10000-0000-4000-8000-0000000000bb", state: "ARCHIVED")
        let bank = EmulatedBank(state: fixture.bank.state)
        let served = try await servedGoals(bank, fixture.account)
        #expect(served.count == 2)
        #expect(served.values.allSatisfy { $0 != nil })
    }

    // MARK: - Deleted goals

    @Test("a deleted goal refuses add-money with 404, and its transfer stays in the feed")
    func deletedGoal() async throws {
        let fixture = Fixture()
        let bank = EmulatedBank(state: fixture.bank.state, now: { Self.start })
        let first = await addMoney(
            bank, fixture.account, fixture.goal, transfer: "3f2a1b4c-0000-4000-8000-000000000009", 30)
        #expect(first.status == 200)

        #expect(await bank.deleteGoal(accountUid: fixture.account, goalUid: fixture.goal))
        #expect(try await servedGoals(bank, fixture.account).isEmpty)
        let refused = await addMoney(
            bank, fixture.account, fixture.goal, transfer: "3f2a1b4c-0000-4000-8000-000000000010", 30)
        #expect(refused.status == 404)
        #expect(message(refused) == "UNKNOWN_SAVINGS_GOAL")
        #expect(await bank.state.accounts[0].balance == 100_00 - 30)
        #expect(await bank.transfers.count == 1)

        let items = try await categoryFeed(bank, fixture.account, fixture.category, from: Self.start, to: Self.start)
        #expect(items.count == 1)
        #expect(items.first?.counterPartyUid == fixture.goal)
        #expect(items.first?.amount == EmulatedAmount("GBP", 30))
        #expect(await bank.deleteGoal(accountUid: fixture.account, goalUid: fixture.goal) == false)
    }

    @Test("a new goal never takes the uid of a deleted goal or of one the account has")
    func newGoalUidsAreFresh() async throws {
        let fixture = Fixture()
        let bank = EmulatedBank(state: fixture.bank.state)
        let first = try await createGoal(bank, fixture.account, name: "One")
        let second = try await createGoal(bank, fixture.account, name: "Two")
        await bank.deleteGoal(accountUid: fixture.account, goalUid: first)
        let third = try await createGoal(bank, fixture.account, name: "Three")
        await bank.deleteGoal(accountUid: fixture.account, goalUid: third)
        let fourth = try await createGoal(bank, fixture.account, name: "Four")
        #expect(Set([fixture.goal, first, second, third, fourth]).count == 5)
        #expect(Set(try await servedGoals(bank, fixture.account).keys) == [fixture.goal, second, fourth])
    }
}
