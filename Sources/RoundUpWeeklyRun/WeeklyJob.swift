import Foundation
public import Logging
public import RoundUp
public import RoundUpHost
public import RoundUpLedger
import RoundUpOutput
public import RoundUpReports
package import RoundUpTransfers
import RoundUpVocabulary
import RoundUpWeek
public import StarlingAPI
import Synchronization

/// The weekly job: preflight → accounts → settled feed per account → plan → goal →
/// ledger intent → transfer → ledger outcome → report.
///
/// Accounts are worked on concurrently; one account's failure is recorded in its part
/// of the report and does not stop the others.
public struct WeeklyJob: Sendable {
    let bank: BankClient
    let ledger: Ledger
    let rules: RuleSettings
    let logger: Logger
    let now: @Sendable () -> Instant
    let version: String
    let goals: GoalResolver
    let progress: RunProgress?
    /// One account's week, worked on (`AccountWork`), and the resolve command's decisions on
    /// one (`WeekResolver`); both send through one `TransferSender`.
    let accountWork: AccountWork
    package let resolver: WeekResolver
    /// The bank's accounts, once read: a catch-up's later weeks work from the first week's list.
    let listing = AccountListing()
    /// The bank's clock against this machine's, as the run's answers show it.
    var bankTime: BankTime { resolver.search.time }

    /// The job for `settings`' rules, goals and feed searches; the bank's own settings are
    /// already in `bank`.
    public init(
        bank: BankClient, ledger: Ledger, settings: Settings, logger: Logger, version: String,
        now: @escaping @Sendable () -> Instant, progress: RunProgress? = nil
    ) {
        self.bank = bank
        self.ledger = ledger
        self.rules = settings.rules
        self.logger = logger
        self.version = version
        self.now = now
        self.progress = progress
        let goals = GoalResolver(bank: bank, goals: settings.goals, logger: logger)
        self.goals = goals
        let search = FeedSearch(
            bank: bank, ledger: ledger, waits: settings.bank.feedSearch, requestTimeout: settings.bank.requestTimeout,
            timeZone: settings.rules.timeZone, logger: logger, now: now)
        let records = WeekRecords(ledger: ledger, now: now)
        // What the run learns of each account, for its later weeks.
        let memory = AccountMemory()
        let sender = TransferSender(
            bank: bank, ledger: ledger, rules: settings.rules, search: search, records: records, goals: goals,
            memory: memory, logger: logger, now: now)
        accountWork = AccountWork(
            bank: bank, ledger: ledger, rules: settings.rules, sender: sender, memory: memory,
            accountLockWait: settings.state.lockWait, logger: logger, now: now)
        resolver = WeekResolver(
            bank: bank, ledger: ledger, rules: settings.rules, search: search, records: records, sender: sender,
            goals: goals, accountLockWait: settings.state.lockWait, now: now)
    }

    /// Runs the job for `week`. A dry run reads everything and writes nothing: no goal is
    /// created, no money moves, and the ledger is not touched.
    /// `recorded`: the ledger's weeks as the run found them; nil when it could not read them.
    func run(week: Week, dryRun: Bool, recorded: RecordedWeeks?) async -> WeekRun {
        var report = WeekReport(
            generator: "roundup \(version)", generatedAt: now(), dryRun: dryRun, week: week,
            accounts: [], error: nil, exitCode: .ok)
        let scopes: Set<String>
        let accounts: [BankAccount]
        let notes: [String]
        do throws(CommandFailure) {
            (scopes, accounts, notes) = try await preflight(week: week, dryRun: dryRun)
            report.bankClockOffsetSeconds = bankTime.skewSeconds
        } catch {
            report.error = error.message
            report.exitCode = error.status
            report.bankClockOffsetSeconds = bankTime.skewSeconds
            return WeekRun(report: report, changedNothing: false)
        }
        if !dryRun { note(beginning: week, of: accounts) }
        var settledEarlier = 0
        report.accounts = await withTaskGroup(of: (Int, AccountReport, Bool).self) { group in
            var results: [(Int, AccountReport, Bool)] = []
            for (index, account) in accounts.enumerated() {
                if let reason = typeSkip(account, week: week, recorded: recorded) {
                    let skipped = AccountReport(
                        account: account, outcome: .skipped(reason), findings: AccountFindings())
                    results.append((index, skipped, false))
                    continue
                }
                group.addTask {
                    let (report, settled) = await process(account, week: week, dryRun: dryRun, scopes: scopes)
                    return (index, report, settled)
                }
            }
            for await result in group { results.append(result) }
            settledEarlier = results.count { $0.2 }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
        report.exitCode = ExitStatus.overall(report.accounts.map(\.exitCode))
        let skipped = report.accounts.count { $0.status == .skipped }
        return WeekRun(
            report: report, changedNothing: settledEarlier > 0 && settledEarlier + skipped == report.accounts.count,
            notes: notes)
    }

    /// The token's scopes and the accounts, each once, with what is to be said of the bank's
    /// list; or why the run cannot go on.
    private func preflight(week: Week, dryRun: Bool) async throws(CommandFailure)
        -> (Set<String>, [BankAccount], [String])
    {
        // Every week: a week whose token the bank no longer accepts, or whose bank cannot be
        // reached, cannot start, and stops the run with one clear word.
        let scopes = Set(
            try await preflightCall { () async throws(BankError) in try await bank.tokenIdentity().scopes })
        logger.info("token: accepted, with \(scopes.count) scope(s)")
        let missing = TokenScopes.neededScopes(rules: rules, dryRun: dryRun).filter { !scopes.contains($0) }
        guard missing.isEmpty else {
            throw CommandFailure(
                .permissionDenied,
                "the access token lacks the scopes \(missing.joined(separator: ", ")); create a token that has them")
        }
        if let missing = TokenScopes.missingOverdraftScope(rules: rules, scopes: scopes) {
            throw CommandFailure(
                .permissionDenied,
                "overdraft: avoid needs to check each transfer against the account's overdraft, and the access token "
                    + "has neither \(missing) nor \(TokenScopes.balanceScope); create a token with \(missing), or set "
                    + "overdraft: allow in the config")
        }
        if dryRun, let missing = TokenScopes.writeScopes.first(where: { !scopes.contains($0) }) {
            logger.warning("the token lacks \(missing): a real run would fail")
        }
        let listed: [BankAccount]
        if let known = listing.accounts {
            listed = known
        } else {
            listed = try await preflightCall { () async throws(BankError) in try await bank.accounts() }
            listing.remember(listed)
        }
        var (accounts, notes) = WeeklyJob.eachOnce(listed)
        // Whether a week has ended is judged on this machine's clock; the feed's times are
        // the bank's, and so is every search of it.
        let time = bankTime
        if let skew = time.skew {
            if let refusal = time.refusal, !dryRun { throw CommandFailure(.temporaryFailure, refusal) }
            let said =
                time.refusal != nil
                ? "\(skew): a real run would send nothing until the clocks agree within an hour"
                : "\(skew): the feed is searched on the bank's clock; check this machine's clock all the same "
                    + "(timedatectl status)"
            logger.warning("\(said)")
            notes.append(said)
        }
        if let unseen = WeeklyJob.unseenScheduleNote(rules: rules, scopes: scopes) {
            logger.warning("\(unseen)")
            notes.append(unseen)
        }
        logger.info("week \(week)\(dryRun ? ", dry run" : ""): \(accounts.count) account(s)")
        // A goal configured for an account the token cannot see is a mistake: stop before
        // any transfer rather than save that account's money into the default goal.
        let known = Set(accounts.map(\.accountUid))
        if let stray = goals.configured.goalUids.keys.sorted().first(where: { !known.contains($0) }) {
            throw CommandFailure(
                .configuration,
                "goals: in the config names the account \(stray), which is not one of this token's accounts; "
                    + "correct it (roundup check lists the accounts)")
        }
        return (scopes, accounts, notes)
    }

    /// What a run under `rules` says when the token with `scopes` cannot see all of what
    /// the bank has scheduled before payday, or nil when it can (or nothing reads it).
    public static func unseenScheduleNote(rules: RuleSettings, scopes: Set<String>) -> String? {
        let unseen = ForecastReader.unseen(scopes: scopes)
        guard rules.readsSchedule, !unseen.isEmpty else { return nil }
        return "the access token cannot see \(unseen.joined(separator: ", ")): what they take before payday is not "
            + "counted, and the week is measured as before; a token with those scopes counts them"
    }

    /// The bank's list of accounts with each account once, as the bank first lists it, and
    /// what to say of an account it lists more than once: worked on twice, its week would
    /// be reported twice, the second time as moved by an earlier run.
    package static func eachOnce(_ listed: [BankAccount]) -> ([BankAccount], [String]) {
        var seen: [String: BankAccount] = [:]
        var accounts: [BankAccount] = []
        var repeated: [String] = []
        var named = Set<String>()
        for account in listed {
            guard let first = seen[account.accountUid] else {
                seen[account.accountUid] = account
                accounts.append(account)
                continue
            }
            // Each account named once, however many times the bank lists it.
            guard named.insert(account.accountUid).inserted else { continue }
            let differs = first == account ? "" : " (its second entry differs; the first is used)"
            repeated.append("\(first.account.label) \(account.accountUid)\(differs)")
        }
        let notes =
            repeated.isEmpty
            ? []
            : ["the bank listed an account more than once: \(repeated.joined(separator: "; ")); each is worked on once"]
        return (accounts, notes)
    }

    /// `body`'s result, or why the run cannot start: the bank's error, with a hint when the
    /// base URL is not the bank's API or the sandbox refused its short-lived token.
    private func preflightCall<T>(_ body: () async throws(BankError) -> T) async throws(CommandFailure) -> T {
        do {
            return try await body()
        } catch {
            var message = error.description
            if case .refused(let endpoint, 404, _) = error.underlying, endpoint.hasSuffix("/identity/token") {
                message += "; is \(bank.baseURL) the bank's API? (apiBaseURL, --api-base-url)"
            }
            let status = ExitStatus(error)
            if status == .permissionDenied, BankAddress.bank(of: bank.baseURL) == .sandbox {
                message += BankAddress.sandboxTokenHint
            }
            throw CommandFailure(status, message)
        }
    }

    /// Notes in the ledger that this scheduled week begins for the accounts it works on, so
    /// that one it never records (the run killed, stopped, or failing) is caught up from it;
    /// forgets those never recorded that the bank no longer lists. A failure to write this
    /// only loses that help, and is logged.
    private func note(beginning week: Week, of accounts: [BankAccount]) {
        do {
            try ledger.forgetUnrecorded(notIn: Set(accounts.map(\.accountUid)))
            guard week.endDate.weekday == rules.weekEndsOn else { return }
            let worked = accounts.filter { WeeklyJob.typeSkip($0.accountType, accountTypes: rules.accountTypes) == nil }
            try ledger.begin(weekEnd: week.endDate, for: worked.map(\.accountUid))
        } catch {
            logger.warning("could not note the week's accounts in the ledger: \(plainDescription(error))")
        }
    }

    // MARK: - One account

    /// Why an account of `type` is not worked on, or nil when `accountTypes` includes it.
    package static func typeSkip(_ type: String?, accountTypes: [String]) -> String? {
        let chosen = accountTypes.joined(separator: ", ")
        guard let type else {
            return "skipped: the bank did not say what type of account this is; accountTypes is \(chosen)"
        }
        return accountTypes.contains(type) ? nil : "skipped: a \(type) account; accountTypes is \(chosen)"
    }

    /// Why the account is left alone because of its type, or nil to work on it. Nothing is
    /// asked of the bank about such an account, and no goal is made in it; but a week the
    /// ledger already has for it (an unconfirmed transfer, say) is finished as any other.
    /// This look, before the account's lock, only ever leaves an account alone; an account
    /// it lets through has its week read, once, with the lock held (`work`). The look takes
    /// the run's reading of the ledger: no other process writes it meanwhile (the run holds
    /// the state directory's lock), and only this account's work on this week records it.
    private func typeSkip(_ bankAccount: BankAccount, week: Week, recorded: RecordedWeeks?) -> String? {
        guard let reason = WeeklyJob.typeSkip(bankAccount.accountType, accountTypes: rules.accountTypes),
            recorded?.has(AccountWeekKey(accountUid: bankAccount.accountUid, weekEnd: week.endDate)) != true
        else { return nil }
        logger.info("\(bankAccount.account.label): \(reason)")
        return reason
    }

    /// The account's part of the report, and whether an earlier run had settled its week.
    private func process(_ bankAccount: BankAccount, week: Week, dryRun: Bool, scopes: Set<String>) async
        -> (AccountReport, Bool)
    {
        let label = "\(bankAccount.account.label), week ending \(week.endDate)"
        progress?.started(label)
        defer { progress?.finished(label) }
        let (outcome, findings) = await accountWork.work(
            on: bankAccount.account, week: week, dryRun: dryRun, scopes: scopes)
        // An account left alone (Starling's own round-up is on) has no week to catch up.
        if outcome.fate == .skipped, !dryRun { try? ledger.forgetUnrecorded(bankAccount.accountUid) }
        return (AccountReport(account: bankAccount, outcome: outcome, findings: findings), findings.settledEarlier)
    }
}

/// One week of a run: its report, and whether the run changed nothing of it because
/// earlier runs had settled every account's week. Such a rerun writes no report: the
/// week's report stays the one of the run that settled it.
public struct WeekRun: Sendable {
    public var report: WeekReport
    public var changedNothing: Bool
    /// What is to be said on stderr of the week besides its report: the bank's odd answers.
    public var notes: [String] = []
}

/// The bank's list of accounts, kept from a run's first week for the rest: an account the
/// bank lists only later in the run is caught up by the next run, as any week a run did not
/// reach.
final class AccountListing: Sendable {
    private let known = Mutex<[BankAccount]?>(nil)

    /// The accounts the run's first week read, or nil before it has.
    var accounts: [BankAccount]? { known.withLock { $0 } }

    func remember(_ accounts: [BankAccount]) { known.withLock { $0 = $0 ?? accounts } }
}
