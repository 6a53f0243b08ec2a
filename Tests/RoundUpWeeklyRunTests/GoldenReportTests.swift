import Foundation
import JobTestSupport
import RoundUp
import RoundUpHost
import StarlingEmulator
import TestSupport
import Testing

/// Reports of fixed scenarios, kept byte for byte under `Golden/`: each scenario runs the
/// real job in-process, through libcurl, against the emulator, with the job's clock and the
/// bank's stopped at fixed instants, so that every run of it writes the same bytes. A change
/// to how reports are made that changes what they say (the report files, the summary on
/// stdout, the diagnostics, the exit status) shows up here, naming the file and its first
/// differing line.
///
/// When a change is meant, `ROUNDUP_RECORD_GOLDEN=1 swift test --filter GoldenReportTests`
/// writes the files anew; the diff then shows what changed.
///
/// Each step of a scenario is a folder `Golden/<scenario>/<step>/` holding `status.txt`,
/// `output.txt`, `diagnostics.txt`, `reports.txt` (the report directory's listing, links
/// with their targets) and `reports/`, the report files the step wrote.
@Suite struct GoldenReportTests {
    static let weekEnd = "2026-11-15"
    /// The first run of each scenario: the Saturday after the week, when `JobHarness.now` is.
    static let runTime = JobHarness.now
    static let token = "golden-report-token"

    static func at(_ text: String) -> Instant { Instant(iso8601: text)! }

    /// An instant in the week ending `weekEnd`, `hours` after it began (London).
    static func inWeek(_ weekEnd: String = weekEnd, hours: Int64) -> Instant {
        londonWeek(weekEnd).start.adding(milliseconds: hours * 3_600_000)
    }

    // MARK: - The seeded week

    @Test func theSeededWeekMovesThenFindsItMoved() async throws {
        let run = try GoldenRun("seeded-week")
        let state = Seed.realisticWeek(
            endingOn: LocalDate(iso: Self.weekEnd)!, timeZone: TestBank.london, token: run.token)
        try await withEmulator(state, now: run.clock.read) { server in
            try run.step("1-run", await run.job(server, endDate: Self.weekEnd))
            run.clock.set(Self.at("2026-11-21T11:00:00Z"))
            try run.step("2-rerun", await run.job(server, endDate: Self.weekEnd))
            // A payment of the week that the feed shows only after the week's transfer was made.
            await server.bank.update { state in
                var late = state.feeds[Seed.Uid.gbpAccount]![0]
                late.feedItemUid = "a1000000-0000-4000-8000-000000000099"
                late.counterPartyName = "Late Café"
                late.amount = EmulatedAmount("GBP", 4_10)
                state.feeds[Seed.Uid.gbpAccount]!.append(late)
            }
            run.clock.set(Self.at("2026-11-22T09:00:00Z"))
            try run.step("3-rerun-after-a-late-payment", await run.job(server, endDate: Self.weekEnd))
        }
    }

    @Test func theSeededWeekAsADryRun() async throws {
        let run = try GoldenRun("seeded-week-dry-run")
        let state = Seed.realisticWeek(
            endingOn: LocalDate(iso: Self.weekEnd)!, timeZone: TestBank.london, token: run.token)
        try await withEmulator(state, now: run.clock.read) { server in
            try run.step("1-dry-run", await run.job(server, endDate: Self.weekEnd, dryRun: true))
            try run.step("2-dry-run-json", await run.job(server, endDate: Self.weekEnd, dryRun: true, json: true))
        }
    }

    // MARK: - Accounts with nothing to move, and accounts left alone

    @Test func nothingToMove() async throws {
        let run = try GoldenRun("nothing-to-move")
        var bank = TestBank(token: run.token)
        let whole = bank.account("GBP", name: "Whole amounts")
        bank.goal(whole, name: "Round-ups", uid: "90e00000-0000-4000-8000-000000000001")
        bank.spend(whole, 45_00, settled: Self.inWeek(hours: 10))
        bank.spend(whole, 3_00, settled: Self.inWeek(hours: 30))
        let quiet = bank.account("EUR", name: "Quiet")
        // Spent the week before and the week after: nothing in this one.
        bank.spend(quiet, 7_77, settled: Self.inWeek(hours: -2))
        bank.spend(quiet, 8_88, settled: Self.inWeek(hours: 24 * 7 + 2))
        try await withEmulator(bank.state, now: run.clock.read) { server in
            try run.step("1-run", await run.job(server, endDate: Self.weekEnd))
            run.clock.set(Self.at("2026-11-21T11:00:00Z"))
            try run.step("2-rerun", await run.job(server, endDate: Self.weekEnd))
        }
    }

    @Test func skippedAccounts() async throws {
        let run = try GoldenRun("skipped-accounts")
        var bank = TestBank(token: run.token)
        let personal = bank.account("GBP", name: "Personal")
        let loan = bank.account("GBP", name: "Loan", type: "LOAN")
        let on = bank.account("GBP", name: "Native on", nativeRoundUp: true)
        let off = bank.account("GBP", name: "Native off", type: "ADDITIONAL", nativeRoundUp: false)
        for account in [personal, loan, on, off] { bank.spend(account, 4_35, settled: Self.inWeek(hours: 40)) }
        bank.spend(on, 2_50, settled: Self.inWeek(hours: 41)) {
            $0.roundUp = .init(goalCategoryUid: "c0000000-0000-4000-8000-000000000001", amount: .init("GBP", 50))
        }
        try await withEmulator(bank.state, now: run.clock.read) { server in
            try run.step("1-dry-run", await run.job(server, endDate: Self.weekEnd, dryRun: true))
            try run.step("2-run", await run.job(server, endDate: Self.weekEnd))
        }
    }

    // MARK: - Policies

    /// 1.50 and 2.43 spent (1.07 to round up) from each GBP account, under a minimum of 101.00.
    static func minimumBalanceBank(token: String) -> TestBank {
        var bank = TestBank(token: token)
        let above = bank.account("GBP", name: "Personal", balance: 102_00)
        let below = bank.account("GBP", name: "Joint", balance: 100_50, type: "ADDITIONAL")
        let euro = bank.account("EUR", name: "Euro", balance: 5_00)
        for (index, account) in [above, below, euro].enumerated() {
            bank.goal(account, name: "Round-ups", uid: "90b00000-0000-4000-8000-00000000000\(index + 1)")
            bank.spend(account, 1_50, settled: Self.inWeek(hours: 20))
            bank.spend(account, 2_43, settled: Self.inWeek(hours: 50))
        }
        return bank
    }

    @Test func aMinimumBalanceReducesOneTransferAndHoldsBackAnother() async throws {
        let run = try GoldenRun("minimum-balance")
        let bank = Self.minimumBalanceBank(token: run.token)
        let config = JobHarness.quickRetries + "minimumBalance:\n  GBP: 101.00\n"
        try await withEmulator(bank.state, now: run.clock.read) { server in
            try run.step("1-dry-run", await run.job(server, endDate: Self.weekEnd, dryRun: true, config: config))
            try run.step("2-run", await run.job(server, endDate: Self.weekEnd, config: config))
        }
    }

    @Test func aMinimumBalanceThatSkipsTheWeek() async throws {
        let run = try GoldenRun("minimum-balance-skip")
        let bank = Self.minimumBalanceBank(token: run.token)
        let config = JobHarness.quickRetries + "minimumBalance:\n  GBP: 101.00\nbelowMinimumBalance: skip\n"
        try await withEmulator(bank.state, now: run.clock.read) { server in
            try run.step("1-run", await run.job(server, endDate: Self.weekEnd, config: config))
        }
    }

    @Test func roundingToFiveUnitsWithAMultiplierAndACap() async throws {
        let run = try GoldenRun("round-to-five")
        var bank = TestBank(token: run.token)
        let gbp = bank.account("GBP", name: "Personal")
        bank.spend(gbp, 3_20, settled: Self.inWeek(hours: 12))
        bank.spend(gbp, 10_00, settled: Self.inWeek(hours: 13))
        bank.spend(gbp, 12_01, settled: Self.inWeek(hours: 14))
        let jpy = bank.account("JPY", name: "Yen")
        bank.spend(jpy, 1203, settled: Self.inWeek(hours: 15))
        let config = JobHarness.quickRetries + "roundTo: 5\nmultiplier: 2\nweeklyCap:\n  GBP: 9.00\n"
        try await withEmulator(bank.state, now: run.clock.read) { server in
            try run.step("1-run", await run.job(server, endDate: Self.weekEnd, config: config))
        }
    }

    @Test func multiplierCapExclusionsWholeAmountsGoalsByUidAndNewGoalTargets() async throws {
        let run = try GoldenRun("policies")
        var bank = TestBank(token: run.token)
        let settled = Self.inWeek(hours: 1)
        let gbp = bank.account("GBP", name: "Personal")
        bank.goal(gbp, name: "Round-ups", uid: "90c00000-0000-4000-8000-0000000000a1")
        bank.spend(gbp, 435, settled: settled)
        bank.spend(gbp, 45_00, settled: settled)
        bank.spend(gbp, 0, settled: settled)
        bank.spend(gbp, 1_01, settled: settled) { $0.source = "DIRECT_DEBIT" }
        bank.spend(gbp, 2_02, settled: settled) { $0.spendingCategory = "GAMBLING" }
        let eur = bank.account("EUR", name: "Euro")
        bank.goal(eur, name: "Round-ups", uid: "90c00000-0000-4000-8000-0000000000b1")
        bank.goal(eur, name: "Holiday", uid: "90c00000-0000-4000-8000-0000000000b2")
        bank.spend(eur, 9_90, settled: settled)
        let usd = bank.account("USD", name: "Dollar")
        bank.spend(usd, 19_75, settled: settled)
        let config =
            JobHarness.quickRetries + """
                multiplier: 3
                weeklyCap:
                  GBP: 4.00
                wholeAmountsSaveAUnit: true
                excludeSources: [DIRECT_DEBIT]
                excludeSpendingCategories: [GAMBLING]
                goals:
                  \(eur): 90c00000-0000-4000-8000-0000000000b2
                newGoalTarget:
                  USD: 250.00

                """
        try await withEmulator(bank.state, now: run.clock.read) { server in
            try run.step("1-run", await run.job(server, endDate: Self.weekEnd, config: config))
        }
    }

    // MARK: - Faults around the transfer

    /// One GBP account with a goal, 1.01 spent in the week: 0.99 to move.
    static func oneAccountBank(token: String, goal: Bool = true) -> (TestBank, String) {
        var bank = TestBank(token: token)
        let account = bank.account("GBP", name: "Personal", balance: 100_00)
        if goal { bank.goal(account, name: "Round-ups", uid: "90a00000-0000-4000-8000-0000000000aa") }
        bank.spend(account, 1_01, settled: Self.inWeek(hours: 1))
        return (bank, account)
    }

    @Test func aTransferWhoseAnswerIsLostIsFoundInTheFeed() async throws {
        let run = try GoldenRun("lost-answer-found-in-feed")
        let (bank, _) = Self.oneAccountBank(token: run.token)
        try await withEmulator(bank.state, now: run.clock.read) { server in
            await server.bank.injectFaults([.first(1, [.addMoney], .failAfterApplying(502))])
            try run.step("1-run", await run.job(server, endDate: Self.weekEnd))
            run.clock.set(Self.at("2026-11-21T11:00:00Z"))
            try run.step("2-rerun", await run.job(server, endDate: Self.weekEnd))
        }
    }

    @Test func aTransferWhoseAnswerIsLostWhileTheFeedCannotBeReadIsFinishedByTheNextRun() async throws {
        let run = try GoldenRun("lost-answer-feed-unreadable")
        let (bank, _) = Self.oneAccountBank(token: run.token)
        try await withEmulator(bank.state, now: run.clock.read) { server in
            // The look before the transfer reads the feed; every look after it fails.
            await server.bank.injectFaults([
                .first(1, [.addMoney], .failAfterApplying(502)),
                FaultRule(endpoints: [.categoryFeed], when: .onRequests(Set(2...100)), faults: [.serverError(503)]),
            ])
            try run.step("1-run", await run.job(server, endDate: Self.weekEnd))
            await server.bank.injectFaults([])
            run.clock.set(Self.at("2026-11-21T11:00:00Z"))
            try run.step("2-dry-run", await run.job(server, endDate: Self.weekEnd, dryRun: true))
            try run.step("3-rerun", await run.job(server, endDate: Self.weekEnd))
        }
    }

    @Test func transfersThatKeepFailingAreSentByTheNextRun() async throws {
        let run = try GoldenRun("transfers-failing")
        let (bank, _) = Self.oneAccountBank(token: run.token)
        try await withEmulator(bank.state, now: run.clock.read) { server in
            await server.bank.injectFaults([
                FaultRule(endpoints: [.addMoney], when: .always, faults: [.serverError(503)])
            ])
            try run.step("1-run", await run.job(server, endDate: Self.weekEnd))
            await server.bank.injectFaults([])
            run.clock.set(Self.at("2026-11-21T11:00:00Z"))
            try run.step("2-dry-run", await run.job(server, endDate: Self.weekEnd, dryRun: true))
            try run.step("3-rerun", await run.job(server, endDate: Self.weekEnd))
        }
    }

    /// A bank that lists a goal as active and then refuses money into it (400), which holds
    /// the week for a person; and an account short of money (400 INSUFFICIENT_FUNDS), which
    /// fails and is tried again by the next run.
    @Test func aRefusedTransferIsHeldAndAShortAccountFails() async throws {
        let run = try GoldenRun("refused-and-held")
        var bank = TestBank(token: run.token)
        let refused = bank.account("GBP", name: "Personal")
        bank.goal(refused, name: "Round-ups", uid: "90d00000-0000-4000-8000-0000000000a1", state: "CREATING")
        bank.spend(refused, 2_49, settled: Self.inWeek(hours: 3))
        let short = bank.account("GBP", name: "Joint", balance: 50, type: "ADDITIONAL")
        bank.goal(short, name: "Round-ups", uid: "90d00000-0000-4000-8000-0000000000b1")
        bank.spend(short, 3_25, settled: Self.inWeek(hours: 4))
        // overdraft: allow, so that the short account's transfer reaches the bank and is refused.
        let config = JobHarness.quickRetries + "overdraft: allow\n"
        try await withEmulator(bank.state, now: run.clock.read) { server in
            await server.bank.injectFaults([
                FaultRule(
                    endpoints: [.savingsGoals], when: .always, faults: [.rewrittenBody(#""CREATING""#, #""ACTIVE""#)])
            ])
            try run.step("1-run", await run.job(server, endDate: Self.weekEnd, config: config))
            run.clock.set(Self.at("2026-11-21T11:00:00Z"))
            try run.step("2-rerun", await run.job(server, endDate: Self.weekEnd, config: config))
            run.clock.set(Self.at("2026-11-21T12:00:00Z"))
            try run.step(
                "3-abandon",
                await run.harness.resolve(
                    server, .abandon(reason: "moved by hand"), account: refused, endDate: Self.weekEnd,
                    clock: run.clock.read))
            await server.bank.update { state in state.accounts[1].balance = 10_00 }
            run.clock.set(Self.at("2026-11-21T13:00:00Z"))
            try run.step("4-rerun", await run.job(server, endDate: Self.weekEnd, config: config))
        }
    }

    /// Another state directory moved the week: this one finds a transfer it did not send,
    /// holds the week, and records it as the week's once a person names the feed item.
    @Test func aWeekMovedFromAnotherStateDirectoryIsHeldUntilAPersonAcceptsIt() async throws {
        let run = try GoldenRun("moved-by-another-state-directory")
        let other = try JobHarness(token: run.token)
        let (bank, account) = Self.oneAccountBank(token: run.token, goal: false)
        try await withEmulator(bank.state, now: run.clock.read) { server in
            try run.step(
                "1-first-state-directory",
                await other.run(server, endDate: Self.weekEnd, clock: run.clock.read), harness: other)
            run.clock.set(Self.at("2026-11-21T11:00:00Z"))
            try run.step("2-second-state-directory", await run.job(server, endDate: Self.weekEnd))
            let item = try #require(
                await server.bank.state.feeds[account]?.first {
                    $0.source == "INTERNAL_TRANSFER" && $0.direction == "OUT"
                })
            run.clock.set(Self.at("2026-11-21T12:00:00Z"))
            try run.step(
                "3-accept",
                await run.harness.resolve(
                    server, .accept(feedItem: item.feedItemUid.lowercased()), account: account,
                    endDate: Self.weekEnd, clock: run.clock.read))
            run.clock.set(Self.at("2026-11-21T13:00:00Z"))
            try run.step("4-rerun", await run.job(server, endDate: Self.weekEnd))
        }
    }

    // MARK: - Several weeks

    @Test func aCatchUpRunOverSeveralWeeks() async throws {
        let run = try GoldenRun("catch-up", at: Self.at("2026-10-26T06:00:00Z"))
        var bank = TestBank(token: run.token)
        let gbp = bank.account("GBP", name: "Personal")
        let eur = bank.account("EUR", name: "Euro")
        bank.goal(eur, name: "Round-ups", uid: "90f00000-0000-4000-8000-0000000000b1")
        for (index, end) in ["2026-10-25", "2026-11-01", "2026-11-08", "2026-11-15"].enumerated() {
            bank.spend(gbp, Int64(1_01 + 111 * index), settled: Self.inWeek(end, hours: 30))
            // The euro account spends nothing in the week ending 11-08.
            if end != "2026-11-08" { bank.spend(eur, Int64(2_20 + 7 * index), settled: Self.inWeek(end, hours: 60)) }
        }
        try await withEmulator(bank.state, now: run.clock.read) { server in
            try run.step("1-run", await run.job(server, endDate: "2026-10-25"))
            run.clock.set(Self.runTime)
            try run.step("2-catch-up", await run.job(server, endDate: Self.weekEnd, catchUp: true))
            run.clock.set(Self.at("2026-11-21T11:00:00Z"))
            try run.step("3-catch-up-again", await run.job(server, endDate: Self.weekEnd, catchUp: true))
        }
    }

    // MARK: - Runs that stop before any account

    @Test func aTokenLackingScopes() async throws {
        let run = try GoldenRun("missing-scopes")
        var state = Seed.realisticWeek(
            endingOn: LocalDate(iso: Self.weekEnd)!, timeZone: TestBank.london, token: run.token)
        state.scopes = ["account:read", "account-list:read", "transaction:read"]
        try await withEmulator(state, now: run.clock.read) { server in
            try run.step("1-run", await run.job(server, endDate: Self.weekEnd))
        }
    }

    @Test func aRejectedToken() async throws {
        let run = try GoldenRun("rejected-token")
        let state = Seed.realisticWeek(
            endingOn: LocalDate(iso: Self.weekEnd)!, timeZone: TestBank.london, token: run.token)
        try await withEmulator(state, now: run.clock.read) { server in
            try run.step("1-run", await run.job(server, endDate: Self.weekEnd, token: "a-revoked-token"))
        }
    }

    // MARK: - Data the job cannot use

    @Test func badDataInOneAccount() async throws {
        let run = try GoldenRun("bad-data")
        var bank = TestBank(token: run.token)
        let good = bank.account("GBP", name: "Personal")
        let negative = bank.account("GBP", name: "Negative")
        let unknown = bank.account("XXX", name: "Unknown")
        for account in [good, negative, unknown] { bank.spend(account, 2_50, settled: Self.inWeek(hours: 5)) }
        bank.spend(negative, -2_50, settled: Self.inWeek(hours: 6))
        try await withEmulator(bank.state, contract: .requestsOnly, now: run.clock.read) { server in
            try run.step("1-run", await run.job(server, endDate: Self.weekEnd))
        }
    }
}

/// One scenario: its state directory, its clock, and its steps, each kept under
/// `Golden/<scenario>/<step>/`.
final class GoldenRun {
    let scenario: String
    let harness: JobHarness
    let clock: StoppedClock
    let token = GoldenReportTests.token
    /// The report files earlier steps wrote, by state directory: a step keeps only its own.
    private var reportsSeen: [String: Set<String>] = [:]

    /// The binary makes every file it creates its owner's alone (`umask(0o077)` in
    /// `Composition.live`) before it runs the job; runs here do the same, or what they say
    /// about the ledger's mode would depend on the umask the tests were started with.
    private static let ownerOnlyFiles: Void = { _ = umask(0o077) }()

    init(_ scenario: String, at start: Instant = GoldenReportTests.runTime) throws {
        Self.ownerOnlyFiles
        // Recorded anew, a scenario keeps no step it no longer has.
        if Golden.recording { try? FileManager.default.removeItem(at: Golden.root.appendingPathComponent(scenario)) }
        self.scenario = scenario
        self.harness = try JobHarness(token: GoldenReportTests.token)
        self.clock = StoppedClock(start)
    }

    /// Runs the job with this scenario's state directory and clock.
    func job(
        _ server: EmulatorServer, endDate: String, dryRun: Bool = false, json: Bool = false, catchUp: Bool = false,
        token: String? = nil, config: String = JobHarness.quickRetries
    ) async -> CommandResult {
        await harness.run(
            server, endDate: endDate, dryRun: dryRun, json: json, catchUp: catchUp, token: token, config: config,
            clock: clock.read)
    }

    /// Keeps what `result` and the report directory of `harness` (this scenario's unless
    /// given) say after one step, or compares it with what was kept.
    func step(
        _ name: String, _ result: CommandResult, harness: JobHarness? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let harness = harness ?? self.harness
        var files: [String: [UInt8]] = [:]
        var counts = RequestCounts()
        files["status.txt"] = Array("\(result.status.rawValue) \(result.status)\n".utf8)
        files["output.txt"] = Array(counts.taken(from: Self.placeholders(result.output, harness)).utf8)
        let diagnostics = result.diagnostics.map { counts.taken(from: Self.placeholders($0, harness)) }
        files["diagnostics.txt"] = Array(diagnostics.map { $0 + "\n" }.joined().utf8)
        let directory = harness.stateDirectory + "/reports"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        var listing = ""
        var seen = reportsSeen[harness.directory.path] ?? []
        for name in names {
            let path = directory + "/" + name
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                listing += "\(name) -> \(target)\n"
                continue
            }
            listing += name + "\n"
            guard !seen.contains(name) else { continue }
            seen.insert(name)
            // Report files are kept as written, but for the counts of requests (`RequestCounts`).
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            files["reports/" + name] =
                name.hasSuffix(".json") || name.hasSuffix(".md")
                ? Array(counts.taken(from: String(decoding: bytes, as: UTF8.self)).utf8) : Array(bytes)
        }
        reportsSeen[harness.directory.path] = seen
        files["reports.txt"] = Array(listing.utf8)
        try Golden.keep(files, in: scenario + "/" + name, sourceLocation: sourceLocation)
        try counts.check(against: scenario + "/" + name, sourceLocation: sourceLocation)
    }

    /// The one liberty taken with what a run prints: the test's temporary directories, new
    /// for every run, stand as `<state>` (the state directory) and `<home>` (the directory
    /// holding it and the config file).
    static func placeholders(_ text: String, _ harness: JobHarness) -> String {
        text.replacingOccurrences(of: harness.stateDirectory, with: "<state>")
            .replacingOccurrences(of: harness.directory.path, with: "<home>")
    }
}

/// The requests a step's run sent to the bank, taken out of what it printed and wrote, and
/// held on their own: on a loaded machine a request may time out and be sent again, which
/// changes how many were sent and whether a line of retries is printed at all, never how
/// many the run asked for. Each count of requests stands as `<requests>` (and its share per
/// account-week as `<per account-week>`); a line of retries is left out. `counts.txt` keeps
/// the counts in the order printed; a run must ask for as many requests as were kept, and
/// may send more only as retries.
struct RequestCounts {
    /// Each count found, in the order found: "requests", "per account-week" or "retries".
    private(set) var found: [(label: String, value: Double)] = []

    /// The patterns that print a count: its label, and what stands in its place (nil: the
    /// line is left out).
    private static let patterns: [(label: String, pattern: String, placeholder: String?)] = [
        ("requests", #"(Requests to the bank: )([0-9]+)"#, "<requests>"),
        ("per account-week", #"(, )([0-9.]+)( per account-week)"#, "<per account-week>"),
        ("retries", #"(\()([0-9]+)( requests? (?:was|were) retried after transient failures\))"#, nil),
        ("requests", #"(\| Requests to the bank \| )([0-9]+)"#, "<requests>"),
        ("per account-week", #"(\| Requests per account-week \| )([0-9.]+)"#, "<per account-week>"),
        ("retries", #"(\| Requests retried \| )([0-9]+)"#, nil),
        ("requests", #"("requests" : )([0-9]+)"#, "\"<requests>\""),
        ("per account-week", #"("requestsPerAccountWeek" : )([0-9.]+)"#, "\"<per account-week>\""),
        ("retries", #"("retries" : )([0-9]+)"#, nil),
    ]

    /// `text` with each count in its placeholder's place; the counts are kept, in order.
    mutating func taken(from text: String) -> String {
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            var line: String? = line
            for (label, pattern, placeholder) in Self.patterns {
                guard let text = line else { break }
                let expression = try! NSRegularExpression(pattern: pattern)
                let range = NSRange(text.startIndex..., in: text)
                guard let match = expression.firstMatch(in: text, range: range),
                    let value = Range(match.range(at: 2), in: text).flatMap({ Double(text[$0]) })
                else { continue }
                found.append((label, value))
                line = placeholder.map {
                    expression.stringByReplacingMatches(
                        in: text, range: range, withTemplate: "$1" + $0 + (match.numberOfRanges > 3 ? "$3" : ""))
                }
            }
            if let line { lines.append(line) }
        }
        return lines.joined(separator: "\n")
    }

    /// Keeps the counts in `<folder>/counts.txt` when recording; otherwise holds them to it.
    func check(against folder: String, sourceLocation: SourceLocation) throws {
        let url = Golden.root.appendingPathComponent(folder).appendingPathComponent("counts.txt")
        if Golden.recording {
            let text = found.map { "\($0.label) \(Self.number($0.value))\n" }.joined()
            if !found.isEmpty { try text.write(to: url, atomically: true, encoding: .utf8) }
            return
        }
        let kept = ((try? String(contentsOf: url, encoding: .utf8)) ?? "").split(separator: "\n").map { line in
            let parts = line.split(separator: " ")
            return (label: parts.dropLast().joined(separator: " "), value: Double(parts.last ?? "") ?? -1)
        }
        func values(_ label: String, _ counts: [(label: String, value: Double)]) -> [Double] {
            counts.filter { $0.label == label }.map(\.value)
        }
        let (keptRequests, nowRequests) = (values("requests", kept), values("requests", found))
        let extraRetries = values("retries", found).reduce(0, +) - values("retries", kept).reduce(0, +)
        let extraRequests = zip(nowRequests, keptRequests).map { $0 - $1 }
        if nowRequests.count != keptRequests.count || extraRequests.contains(where: { $0 < 0 })
            || extraRequests.reduce(0, +) != extraRetries || extraRetries < 0
        {
            let sent =
                "\(nowRequests.map(Self.number)) requests with \(values("retries", found).map(Self.number)) retries"
            let was = "\(keptRequests.map(Self.number)) with \(values("retries", kept).map(Self.number))"
            let hint = "(ROUNDUP_RECORD_GOLDEN=1 swift test --filter GoldenReportTests records them anew if meant)"
            let message =
                "Golden/\(folder)/counts.txt: the run sent \(sent), where \(was) were kept: it asked for other "
                + "requests than those kept \(hint)"
            Issue.record("\(message)", sourceLocation: sourceLocation)
        }
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// The kept files under `Golden/`, beside this source file: tests run from the source tree.
enum Golden {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let recording = ProcessInfo.processInfo.environment["ROUNDUP_RECORD_GOLDEN"] == "1"

    /// Writes `files` into `folder` (replacing whatever was there) when recording;
    /// otherwise records an issue for each file that differs from, is missing from or is
    /// left over in `folder`.
    static func keep(_ files: [String: [UInt8]], in folder: String, sourceLocation: SourceLocation) throws {
        let base = root.appendingPathComponent(folder)
        if recording {
            try? FileManager.default.removeItem(at: base)
            for (name, bytes) in files {
                let url = base.appendingPathComponent(name)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(bytes).write(to: url)
            }
            return
        }
        let hint =
            "(ROUNDUP_RECORD_GOLDEN=1 swift test --filter GoldenReportTests records it anew if the change is meant)"
        for (name, bytes) in files.sorted(by: { $0.key < $1.key }) {
            let path = "Golden/\(folder)/\(name)"
            guard let kept = FileManager.default.contents(atPath: base.appendingPathComponent(name).path) else {
                Issue.record("\(path) is missing \(hint)", sourceLocation: sourceLocation)
                continue
            }
            if let difference = firstDifference(kept: Array(kept), now: bytes) {
                Issue.record("\(path) differs at \(difference) \(hint)", sourceLocation: sourceLocation)
            }
        }
        for name in keptFiles(in: base) where files[name] == nil && name != "counts.txt" {
            Issue.record(
                "Golden/\(folder)/\(name) was kept, and this run did not write it \(hint)",
                sourceLocation: sourceLocation)
        }
    }

    /// The files under `folder`, as paths relative to it.
    static func keptFiles(in folder: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var names: [String] = []
        while let name = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(
                atPath: folder.appendingPathComponent(name).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                names.append(name)
            }
        }
        return names.sorted()
    }

    /// Where `now` first differs from `kept`, line by line: the line's number and both
    /// versions of it; nil when they are the same bytes.
    static func firstDifference(kept: [UInt8], now: [UInt8]) -> String? {
        guard kept != now else { return nil }
        let keptLines = kept.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let nowLines = now.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let text = { (line: ArraySlice<UInt8>?) in
            line.map { "\"" + String(decoding: $0, as: UTF8.self) + "\"" } ?? "(no such line)"
        }
        for index in 0..<max(keptLines.count, nowLines.count) {
            let was = index < keptLines.count ? keptLines[index] : nil
            let isNow = index < nowLines.count ? nowLines[index] : nil
            guard was != isNow else { continue }
            return "line \(index + 1):\n  kept: \(text(was))\n  now:  \(text(isNow))\n"
        }
        return "the end"
    }
}
