import Foundation
public import Logging
public import RoundUp
public import StarlingAPI

/// The weekly job: preflight → accounts → settled feed per account → plan → goal →
/// ledger intent → transfer → ledger outcome → report.
///
/// Accounts are worked on concurrently; one account's failure is recorded in its part
/// of the report and does not stop the others.
public struct RoundUpJob: Sendable {
    /// Scopes every run needs.
    public static let readScopes = ["account:read", "account-list:read", "transaction:read", "savings-goal:read"]
    /// Scopes a real run needs on top of the read scopes.
    public static let writeScopes = ["savings-goal-transfer:create"]
    /// Needed only when a goal has to be created.
    public static let createGoalScope = "savings-goal:create"
    /// Needed only when a minimum balance is configured.
    public static let balanceScope = "balance:read"

    /// The scopes a run with `settings` cannot do without.
    public static func neededScopes(settings: Settings, dryRun: Bool) -> [String] {
        readScopes + (settings.minimumBalances.isEmpty ? [] : [balanceScope]) + (dryRun ? [] : writeScopes)
    }

    let bank: BankClient
    let ledger: Ledger
    let settings: Settings
    let logger: Logger
    let now: @Sendable () -> Instant
    let version: String
    let goals: GoalResolver
    let progress: RunProgress?

    public init(
        bank: BankClient, ledger: Ledger, settings: Settings, logger: Logger, version: String,
        now: @escaping @Sendable () -> Instant, progress: RunProgress? = nil
    ) {
        self.bank = bank
        self.ledger = ledger
        self.settings = settings
        self.logger = logger
        self.version = version
        self.now = now
        self.goals = GoalResolver(bank: bank, settings: settings, logger: logger)
        self.progress = progress
    }

    /// Runs the job for `week`. A dry run reads everything and writes nothing: no goal is
    /// created, no money moves, and the ledger is not touched.
    public func run(week: Week, dryRun: Bool) async -> RunReport {
        var report = RunReport(
            generator: "roundup \(version)", generatedAt: now().iso8601, dryRun: dryRun, week: WeekReport(week),
            accounts: [], error: nil, exitCode: .ok)
        guard let (scopes, accounts) = await preflight(week: week, dryRun: dryRun, report: &report) else {
            return report
        }
        report.accounts = await withTaskGroup(of: (Int, AccountReport).self) { group in
            var results: [(Int, AccountReport)] = []
            for (index, account) in accounts.enumerated() {
                if let skipped = skippedByType(account, week: week) {
                    results.append((index, skipped))
                    continue
                }
                group.addTask {
                    (index, await process(account, week: week, dryRun: dryRun, scopes: scopes))
                }
            }
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
        report.exitCode = ExitStatus.overall(report.accounts.map(\.exitCode))
        return report
    }

    /// The token, its scopes and the accounts, or nil with the report saying why the run
    /// cannot go on.
    private func preflight(week: Week, dryRun: Bool, report: inout RunReport) async
        -> (Set<String>, [BankAccount])?
    {
        let scopes: Set<String>
        let accounts: [BankAccount]
        do {
            scopes = Set(try await bank.tokenIdentity().scopes)
            logger.info("token: accepted, with \(scopes.count) scope(s)")
            let needed = RoundUpJob.neededScopes(settings: settings, dryRun: dryRun)
            let missing = needed.filter { !scopes.contains($0) }
            guard missing.isEmpty else {
                report.error =
                    "the access token lacks the scopes \(missing.joined(separator: ", ")); "
                    + "create a token that has them"
                report.exitCode = .permissionDenied
                return nil
            }
            if dryRun, let missing = RoundUpJob.writeScopes.first(where: { !scopes.contains($0) }) {
                logger.warning("the token lacks \(missing): a real run would fail")
            }
            accounts = try await bank.accounts()
            logger.info("week \(week)\(dryRun ? ", dry run" : ""): \(accounts.count) account(s)")
            // A goal configured for an account the token cannot see is a mistake: stop before
            // any transfer rather than save that account's money into the default goal.
            let known = Set(accounts.map { $0.accountUid.lowercased() })
            if let stray = settings.goalUids.keys.sorted().first(where: { !known.contains($0.lowercased()) }) {
                report.error =
                    "goals: in the config names the account \(stray), which is not one of this token's accounts; "
                    + "correct it (roundup check lists the accounts)"
                report.exitCode = .configuration
                return nil
            }
        } catch {
            report.error = error.description
            if case .refused(let endpoint, 404, _) = error.underlying, endpoint.hasSuffix("/identity/token") {
                report.error! += "; is \(bank.baseURL) the bank's API? (apiBaseURL, --api-base-url)"
            }
            report.exitCode = ExitStatus(error)
            if report.exitCode == .permissionDenied, Settings.bank(of: bank.baseURL) == .sandbox {
                report.error! += Settings.sandboxTokenHint
            }
            return nil
        }
        return (scopes, accounts)
    }

    // MARK: - One account

    /// Why an account of `type` is not worked on, or nil when `accountTypes` includes it.
    static func typeSkip(_ type: String?, accountTypes: [String]) -> String? {
        let chosen = accountTypes.joined(separator: ", ")
        guard let type else {
            return "skipped: the bank did not say what type of account this is; accountTypes is \(chosen)"
        }
        return accountTypes.contains(type) ? nil : "skipped: a \(type) account; accountTypes is \(chosen)"
    }

    /// The report of an account whose type is not one of `accountTypes`, or nil to work on it.
    /// Nothing is asked of the bank about it, and no goal is made in it; but a week the
    /// ledger already has for it (an unconfirmed transfer, say) is finished as any other.
    private func skippedByType(_ bankAccount: BankAccount, week: Week) -> AccountReport? {
        guard let reason = RoundUpJob.typeSkip(bankAccount.accountType, accountTypes: settings.accountTypes),
            (try? ledger.entry(accountUid: bankAccount.accountUid, weekEnd: week.endDate)) ?? nil == nil
        else { return nil }
        let account = bankAccount.account
        var report = AccountReport(
            accountUid: account.uid, name: account.name, currency: account.currencyCode, status: .skipped)
        report.accountType = bankAccount.accountType
        report.detail = reason
        logger.info("\(account.label): \(reason)")
        return report
    }

    private func process(_ bankAccount: BankAccount, week: Week, dryRun: Bool, scopes: Set<String>) async
        -> AccountReport
    {
        let account = bankAccount.account
        var report = AccountReport(
            accountUid: account.uid, name: account.name, currency: account.currencyCode, status: .failed)
        report.accountType = bankAccount.accountType
        let label = "\(account.label), week ending \(week.endDate)"
        progress?.started(label)
        defer { progress?.finished(label) }
        do throws(AccountFailure) {
            try await work(on: account, week: week, dryRun: dryRun, scopes: scopes, report: &report)
        } catch {
            report.status = error.held ? .held : .failed
            report.detail = error.message
            report.exitCode = error.status
            logger.error("\(account.label): \(error.message)")
        }
        return report
    }
}
