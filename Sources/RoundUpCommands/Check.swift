import CurlHTTP
import Foundation
public import Logging
public import RoundUp
public import RoundUpHost
import RoundUpLedger
import RoundUpNotify
import RoundUpOutput
public import RoundUpReports
import RoundUpVocabulary
import RoundUpWeek
import RoundUpWeeklyRun
import StarlingAPI

/// `roundup check`: the configuration, the token, its scopes, the accounts, their goals
/// and the state directory, checked without writing anything, each with what to fix.
public enum Check {
    /// Where `check` looked, and for whom: this user's shell, or the system service.
    public struct Lookup {
        /// Where the config file was looked for, and why there (`Settings.configSearch`).
        public var config: (path: String?, why: String)
        /// The flags and environment the settings came from, to say where the state
        /// directory came from and to compare with what cron would read.
        public var flags: SettingFlags
        public var environment: [String: String]
        /// `check --system`: the service's files, as `SystemService` names them.
        public var system: Bool
        /// `check --notify-test`: one test message to each place `notify.to` names.
        public var notifyTest = false
        /// Where the schedules that run roundup are looked for, and how a crontab line's
        /// words are read: the user running `check`, even for `--system` (root's crontab).
        public var scheduling: Scheduling.Lookup

        public init(
            config: (path: String?, why: String), flags: SettingFlags, environment: [String: String], system: Bool,
            scheduling: Scheduling.Lookup
        ) {
            self.config = config
            self.flags = flags
            self.environment = environment
            self.system = system
            self.scheduling = scheduling
        }
    }

    /// Checks `loaded` (or reports why the settings could not be had), the token `tokens`
    /// finds, and what the bank says of it.
    public static func run(
        loaded: Result<LoadedSettings, SettingsError>, lookup: Lookup, tokens: TokenLoader, locations: Locations,
        clock: @escaping @Sendable () -> Instant, logger: Logger, style: TextStyle = .plain
    ) async -> CommandResult {
        var list = Checklist(style: style)
        if lookup.system {
            list.ok(
                "as roundup.service runs: config \(SystemService.configFile), token \(SystemService.tokenFile), state "
                    + "\(SystemService.stateDirectory), environment file \(SystemService.environmentFile)")
            if let problem = SystemService.environmentFileProblem() {
                list.problem(.configuration, "environment file: \(problem)")
                return list.result
            }
        }
        let settings: Settings
        let configPath: String?
        switch loaded {
        case .success(let value):
            (settings, configPath) = (value.settings, value.configPath)
            if let path = value.configPath {
                list.ok("config: \(path) (\(lookup.config.why))")
            } else {
                list.ok(
                    "config: none at \(lookup.config.path ?? "any place") (\(lookup.config.why)), so the defaults")
            }
        case .failure(let error) where error.ofTheMachine:
            list.problem(error.exitStatus, "time zone data: \(error.message)")
            return list.result
        case .failure(let error):
            list.problem(error.exitStatus, "config: \(error.message) (\(lookup.config.why))")
            return list.result
        }
        list.ok("bank: \(settings.bank.apiBaseURL) (\(bankKind(settings.bank.apiBaseURL)))")
        let cronStateDirectory = checkFiles(
            settings, configPath: configPath, lookup: lookup, locations: locations,
            now: clock(), in: &list)
        await checkNotify(settings.watch, test: lookup.notifyTest, logger: logger, in: &list)

        let token: AccessToken
        switch tokens.load(tokenFile: settings.bank.tokenFile) {
        case .success(let (value, source)):
            token = value
            list.redact = value.redacted(in:)
            list.ok("token: from \(source.description)")
        case .failure(let error):
            list.problem(.configuration, "token: \(error.message)")
            return list.result
        }
        let logger = redacting(logger, token: token)
        let bank: BankClient
        do throws(CommandFailure) {
            if let warning = try BankClient.guardKeyLog(settings.bank, movesMoney: false) { list.warn(warning) }
            bank = try BankClient.connect(
                bank: settings.bank, token: token, lanes: 1,
                retryPolicy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(300)), clock: clock, logger: logger
            )
        } catch {
            list.problem(error.status, "libcurl: \(error.message)")
            return list.result
        }
        guard let (scopes, accounts) = await checkToken(bank, settings: settings, in: &list) else { return list.result }
        let labels = Dictionary(accounts.map { ($0.accountUid, $0.account.label) }) { first, _ in first }
        for warning in OtherLedgers.warnings(
            stateDirectory: settings.state.directory,
            candidates: OtherLedgers.candidates(locations: locations, cronStateDirectory: cronStateDirectory),
            accounts: labels)
        {
            list.warn(warning)
        }
        list.ok(safeToSave(settings.rules, today: Week.localDate(of: clock(), in: settings.rules.timeZone)))
        await checkGoals(
            of: accounts, scopes: scopes, rules: settings.rules,
            resolver: GoalResolver(bank: bank, goals: settings.goals, logger: logger),
            in: &list)
        return list.result
    }

    /// The places `notify.to` names, each as output may show it, and who tells them of a
    /// failure; with `test`, one test message to each, and a problem (69) for each that
    /// does not take it. Nothing is sent without `test`.
    static func checkNotify(_ watch: WatchSettings, test: Bool, logger: Logger, in list: inout Checklist) async {
        guard let notifier = Notifier(watch, logger: logger) else {
            if test { list.problem(.configuration, "notify: --notify-test, and notify.to names no place to tell") }
            return
        }
        let failures =
            watch.failures == .eachRun
            ? "each failed run tells them itself"
            : "failures are told by roundup-tell@.service, once systemd has given up (notify.failures: on-failure-unit)"
        let places = notifier.targets.map(\.shown).joined(separator: ", ")
        list.ok("notify: \(places); \(failures)")
        guard test else { return }
        for target in notifier.targets {
            if let problem = await notifier.send(.test(to: target), to: target) {
                list.problem(.unavailable, "notify: \(problem)")
            } else {
                list.ok("notify: \(target.shown) took the test message")
            }
        }
    }

    /// What a run today measures each week against: the horizon before payday, or why it
    /// does not look ahead; and what the forecast cannot see.
    static func safeToSave(_ rules: RuleSettings, today: LocalDate) -> String {
        guard rules.readsSchedule else {
            return rules.upcomingPayments == .ignore
                ? "upcoming payments: not counted (upcomingPayments: ignore)"
                : "upcoming payments: not counted (overdraft: allow, and no minimumBalance)"
        }
        let horizon = Horizon(today: today, payday: rules.payday)
        let through =
            horizon.payday.map { payday in
                "before the next payday, \(payday.weekdayDayAndMonth)"
                    + (horizon.paydayOnAClosedDay
                        ? " (a weekend or bank holiday: through \(horizon.end.weekdayDayAndMonth))" : "")
            } ?? "through \(horizon.end.weekdayDayAndMonth) (the next 7 days; set payday to look to it)"
        return "upcoming payments: a run today counts standing orders, direct debits and goals' recurring transfers "
            + "\(through); it cannot see card subscriptions, one-off future payments to payees, or bills the bank was "
            + "never told about"
    }

    /// The token's scopes and the accounts it sees, or nil when the bank could not say.
    private static func checkToken(_ bank: BankClient, settings: Settings, in list: inout Checklist) async
        -> (Set<String>, [BankAccount])?
    {
        do throws(BankError) {
            let identity = try await bank.tokenIdentity()
            let scopes = Set(identity.scopes)
            var missing = TokenScopes.neededScopes(rules: settings.rules, dryRun: false).filter { !scopes.contains($0) }
            if let overdraft = TokenScopes.missingOverdraftScope(rules: settings.rules, scopes: scopes) {
                missing.append(
                    "\(overdraft) (or \(TokenScopes.balanceScope)) for overdraft: avoid, or set overdraft: allow")
            }
            if missing.isEmpty {
                list.ok(
                    "scopes: everything a run needs" + (identity.expiresAt.map { "; the token expires at \($0)" } ?? "")
                )
            } else {
                list.problem(
                    .permissionDenied,
                    "scopes: the token lacks \(missing.joined(separator: ", ")); create a token that has them")
            }
            if let unseen = WeeklyJob.unseenScheduleNote(rules: settings.rules, scopes: scopes) { list.warn(unseen) }
            // Each account once, as a run works on it, and the bank's repeats said.
            let (accounts, notes) = WeeklyJob.eachOnce(try await bank.accounts())
            list.ok("accounts: \(accounts.count)")
            for note in notes { list.warn(note) }
            checkClock(bank, settings: settings, in: &list)
            return (scopes, accounts)
        } catch {
            let status = ExitStatus(error)
            let sandbox =
                status == .permissionDenied && BankAddress.bank(of: settings.bank.apiBaseURL) == .sandbox
                ? BankAddress.sandboxTokenHint : ""
            list.problem(status, "bank: \(error.description)\(sandbox)")
            return nil
        }
    }

    /// The bank's clock against this machine's: said when 2 minutes or more apart, a problem
    /// (75, a run would send nothing) from an hour.
    private static func checkClock(_ bank: BankClient, settings: Settings, in list: inout Checklist) {
        let time = BankTime(bank.clock.reading, floor: settings.bank.feedSearch.clockSkewMargin)
        guard time.measured else {
            list.warn(
                "clock: the bank's answers carry no Date header, so feed searches allow "
                    + "\(settings.bank.feedSearch.clockSkewMargin.components.seconds) s either way "
                    + "(clockSkewMarginSeconds)")
            return
        }
        if let tooFar = time.tooFar {
            list.problem(
                .temporaryFailure,
                "clock: \(tooFar), so a run sends nothing; check this machine's clock (timedatectl status) and any proxy between it and the bank"
            )
        } else if let skew = time.skew {
            list.warn(
                "clock: \(skew); feed searches go by the bank's clock, but check this machine's clock (timedatectl status)"
            )
        } else {
            list.ok("clock: within 2 minutes of the bank's")
        }
    }

    /// Which bank `baseURL` is: Starling's live API, its sandbox, or something else.
    private static func bankKind(_ baseURL: String) -> String {
        switch BankAddress.bank(of: baseURL) {
        case .live: "the live bank: real money"
        case .sandbox: "Starling's sandbox: test money; its tokens last 24 hours"
        case .other: "not Starling's own API: an emulator or a test bank"
        }
    }

    /// Each account's type, the bank's own round-up and goal, and goals configured for
    /// accounts the token cannot see.
    private static func checkGoals(
        of accounts: [BankAccount], scopes: Set<String>, rules: RuleSettings, resolver: GoalResolver,
        in list: inout Checklist
    ) async {
        for bankAccount in accounts {
            let account = bankAccount.account
            if let skip = WeeklyJob.typeSkip(bankAccount.accountType, accountTypes: rules.accountTypes) {
                list.ok("\(account.label): \(skip)")
                continue
            }
            guard Currency(code: account.currencyCode) != nil else {
                list.problem(
                    .dataError, "\(account.label): the currency is not one the job can place; it will be skipped")
                continue
            }
            guard
                let native = await checkNativeRoundUp(
                    of: account, bank: resolver.bank, rules: rules, in: &list)
            else { continue }
            let goal = await resolver.describe(for: account, scopes: scopes)
            if goal.ok {
                list.ok("\(account.label) \(goal.text); Starling's own round-up: \(native)")
            } else {
                list.problem(.configuration, "\(account.label): \(goal.text)")
            }
        }
        for (accountUid, goalUid) in resolver.configured.goalUids.sorted(by: { $0.key < $1.key })
        where !accounts.contains(where: { $0.accountUid == accountUid }) {
            list.problem(
                .configuration,
                "goals: the config names account \(accountUid) (goal \(goalUid)), which the token cannot see")
        }
    }

    /// The state of the bank's own round-up for `account` ("off", or "on" with a warning),
    /// or nil when runs skip the account for it or it could not be read.
    private static func checkNativeRoundUp(
        of account: Account, bank: BankClient, rules: RuleSettings, in list: inout Checklist
    ) async -> String? {
        let state: NativeRoundUpState
        do throws(BankError) {
            state = try await bank.nativeRoundUp(accountUid: account.uid)
        } catch {
            list.problem(ExitStatus(error), "\(account.label): the bank's own round-up: \(error.description)")
            return nil
        }
        switch state {
        case .inactive: return "off"
        case .unknown:
            list.warn(
                "\(account.label): the bank's answer does not say whether Starling's own round-up is on; runs leave "
                    + "out the payments its feed shows as rounded up by Starling")
            return nil
        case .active: break
        }
        if rules.nativeRoundUp == .skip {
            list.warn(
                "\(account.label): Starling's own round-up is on, so runs skip this account (nativeRoundUp: skip); "
                    + "switch it off in the app to save with roundup, or set nativeRoundUp: allow")
            return nil
        }
        list.warn(
            "\(account.label): Starling's own round-up is on too (nativeRoundUp: allow); runs leave out the "
                + "payments the bank has rounded up")
        return "on"
    }

}

/// The lines of `roundup check`, each ok or FIX, and the status of the first problem.
struct Checklist {
    let style: TextStyle
    var lines: [String] = []
    var status = ExitStatus.ok
    /// Removes the token from the output, once there is one.
    var redact: (String) -> String = { $0 }

    mutating func ok(_ text: String) { lines.append(style.status(.transferred, "ok") + "    \(printable(text))") }

    /// Something to look at that does not stop a run.
    mutating func warn(_ text: String) { lines.append(style.status(.nothingToMove, "WARN") + "  \(printable(text))") }

    mutating func problem(_ code: ExitStatus, _ text: String) {
        lines.append(style.status(.failed, "FIX") + "   \(printable(text))")
        if status == .ok { status = code }
    }

    var result: CommandResult {
        CommandResult(status: status, output: redact(lines.joined(separator: "\n") + "\n"))
    }
}
