import Foundation
public import Logging
public import RoundUp
public import RoundUpHost
import RoundUpLedger
public import RoundUpReports
import RoundUpVocabulary
import RoundUpWeeklyRun
import StarlingAPI

/// Where a command runs, as the program's root finds it: the environment, the file
/// locations, the wall clock, and whether a person typed the command. Nothing below the
/// root reads any of them but through this value.
public struct Surroundings: Sendable {
    public var environment: [String: String]
    public var locations: Locations
    public var clock: @Sendable () -> Instant
    /// Whether standard input is a terminal: a person typed the command. Their usage
    /// mistake (exit 64) is said and not recorded as a run; a scheduled run's is.
    public var typedByAPerson: Bool

    public init(
        environment: [String: String], locations: Locations, clock: @escaping @Sendable () -> Instant,
        typedByAPerson: Bool
    ) {
        self.environment = environment
        self.locations = locations
        self.clock = clock
        self.typedByAPerson = typedByAPerson
    }

    /// The settings `flags` ask for, with the config file they name or the default one.
    public func settings(_ flags: SettingFlags, readConfigFile: Bool = true) -> Result<LoadedSettings, SettingsError> {
        Result { () throws(SettingsError) in
            try Settings.load(
                flags: flags, environment: environment, locations: locations, readConfigFile: readConfigFile)
        }
    }

    /// The access token the settings `flags` ask for would use, when it can be read: for
    /// scrubbing it from what is said of a command line, or a setting, that could not be
    /// taken. A token of fewer than 8 characters is none a bank issues, and scrubbing it
    /// would garble the words around it: nil.
    public func token(for flags: SettingFlags) -> AccessToken? {
        let tokenFile = (try? settings(flags).get())?.settings.bank.tokenFile
        let token = try? TokenLoader(environment: environment).load(tokenFile: tokenFile).get().0
        return token.flatMap { $0.length >= 8 ? $0 : nil }
    }

    /// For a command that moves no money: libcurl is kept from writing the TLS secrets to
    /// `SSLKEYLOGFILE` by taking it out of the environment before libcurl starts. The
    /// command says so; one that moves money refuses to start instead.
    public func forgetKeyLog(_ settings: Settings) {
        if settings.bank.keyLogFile != nil { unsetenv("SSLKEYLOGFILE") }
    }
}

/// How `roundup run` (or the demo) runs, apart from its settings and week.
public struct RunOptions: Sendable {
    public var dryRun = false
    public var json = false
    public var catchUp = false
    public var style = TextStyle.plain
    /// `run --quiet`: what is shown is `CommandResult.quieted()`.
    public var quiet = false

    public init(
        dryRun: Bool = false, json: Bool = false, catchUp: Bool = false, style: TextStyle = .plain, quiet: Bool = false
    ) {
        self.dryRun = dryRun
        self.json = json
        self.catchUp = catchUp
        self.style = style
        self.quiet = quiet
    }
}

/// One `roundup run`, from its flags to the monitor's last word, as one object: its
/// settings and week, the run's row in the ledger, the signals and the stop gate, the state
/// directory's lock, the run itself (`Runner`: the weeks, the reports and the chart), and
/// the monitor and the metrics. The program's root makes one and calls `run()`.
///
/// With a console, the session shows the run's output itself, before the run's row is
/// finished and the monitor told: output that cannot be written (74) is then the exit
/// code the row, the ping, the metrics and `status` record, as the process ends with.
public struct RunSession: Sendable {
    let surroundings: Surroundings
    let flags: SettingFlags
    let endDate: LocalDate?
    let options: RunOptions
    /// False for the demo, which reads no config file.
    let readConfigFile: Bool
    let logger: Logger
    /// Where the run is shown; nil for a caller that shows the result itself (the demo,
    /// which adds to it).
    let console: Console?

    public init(
        flags: SettingFlags, endDate: LocalDate?, options: RunOptions, readConfigFile: Bool = true,
        in surroundings: Surroundings, logger: Logger, console: Console? = nil
    ) {
        self.surroundings = surroundings
        self.flags = flags
        self.endDate = endDate
        self.options = options
        self.readConfigFile = readConfigFile
        self.logger = logger
        self.console = console
    }

    /// Settings, the week, the token, then the run. A real run is watched from the moment
    /// its settings are known: the ledger's run table, the monitor's pings and the metrics
    /// file hear of it however it ends.
    public func run() async -> CommandResult {
        let loaded: LoadedSettings
        do throws(CommandFailure) {
            loaded = try surroundings.settings(flags, readConfigFile: readConfigFile).mapError(\.failure).get()
        } catch {
            // A value that could not be taken is quoted back: a token typed as one is not.
            let error =
                surroundings.token(for: flags).map { CommandFailure(error.status, $0.redacted(in: error.message)) }
                ?? error
            if !options.dryRun, !isPersonsMistake(error) {
                // The state directory and the monitor as the flags and the environment name
                // them; the default state directory only when it already has a ledger.
                await RunWatch.settingsFailed(
                    error,
                    stateDirectory: StateSettings.directory(
                        flags: flags, environment: surroundings.environment, locations: surroundings.locations),
                    watch: .fromEnvironment(surroundings.environment), clock: surroundings.clock, logger: logger)
            }
            return shown(.failure(error))
        }
        let settings = loaded.settings
        // The week asked for is known before anything is asked of the bank, or recorded.
        let week: Result<Week, CommandFailure> = Result { () throws(CommandFailure) in
            try RunRequest.week(
                endingOn: endDate, now: surroundings.clock(), in: settings.rules.timeZone,
                weekEndsOn: settings.rules.weekEndsOn)
        }
        if case .failure(let error) = week, options.dryRun || isPersonsMistake(error) {
            return shown(.failure(error))
        }
        if options.dryRun { surroundings.forgetKeyLog(settings) }
        let ownFiles = [loaded.configPath, settings.bank.tokenFile].compactMap { $0 }
        let watch =
            options.dryRun
            ? nil : RunWatch.begin(settings: settings, ownFiles: ownFiles, clock: surroundings.clock, logger: logger)
        // From here to the end, a signal is recorded as the run's ending (or, once the run
        // has recorded its own, waits for it to be told).
        let progress = RunProgress()
        let signals = InterruptWatch(progress: progress) { signal, status in
            watch?.stopped(by: signal, status: status) ?? true
        }
        await watch?.announce()
        let result: CommandResult
        if let refusal = watch?.metricsRefusal {
            result = await told(finished(.failure(refusal), by: watch), by: watch)
        } else {
            result = await run(settings: settings, week: week, watch: watch, progress: progress)
        }
        // A signal recorded the run's ending: the process ends from its handler.
        if watch?.wasStopped == true { await StopGate.waitIfClosed() }
        // Recorded and told: a signal from now on has its usual effect.
        signals.stop()
        return result
    }

    /// The run with its settings in hand. A real run opens and locks the state directory
    /// once, and the runner and `watch` both write its ledger through that one value; the
    /// run's row is finished before the lock is released, so no other run can be writing
    /// the ledger meanwhile, and the monitor is told after, so that a slow one keeps no
    /// other run waiting.
    private func run(
        settings: Settings, week: Result<Week, CommandFailure>, watch: RunWatch?, progress: RunProgress
    ) async -> CommandResult {
        let request: RunRequest
        let token: AccessToken
        do throws(CommandFailure) {
            request = RunRequest(week: try week.get(), dryRun: options.dryRun, catchUp: options.catchUp)
            token = try TokenLoader(environment: surroundings.environment).load(tokenFile: settings.bank.tokenFile)
                .mapError { CommandFailure(.configuration, $0.message) }.get().0
        } catch {
            return await told(finished(.failure(error), by: watch), by: watch)
        }
        let result = await runHoldingTheState(
            request, settings: settings, token: token, logger: logger, progress: progress, watch: watch)
        return await told(result, by: watch)
    }

    /// Opens and locks the state directory, runs, and finishes the run's row; the lock goes
    /// when this returns.
    private func runHoldingTheState(
        _ request: RunRequest, settings: Settings, token: AccessToken, logger: Logger, progress: RunProgress,
        watch: RunWatch?
    ) async -> CommandResult {
        let state: StateDirectory
        do throws(CommandFailure) {
            state = try await Runner.stateDirectory(for: request, settings: settings)
        } catch {
            return finished(.failure(error), by: watch)
        }
        watch?.record(in: state)
        if let refusal = watch?.checkMetricsAgain() {
            return withExtendedLifetime(state) { finished(.failure(refusal), by: watch) }
        }
        let printout = RunPrintout(options.json ? .json(array: options.catchUp) : .summaries(options.style))
        let result = await Runner.run(
            request, printout: printout, in: state, settings: settings, token: token, clock: surroundings.clock,
            logger: logger,
            progress: progress)
        return withExtendedLifetime(state) { finished(result, by: watch) }
    }

    /// A usage mistake (64) a person typed at a terminal: said once, and not a run, so it
    /// neither alarms the monitor nor shows in `status` or the metrics.
    private func isPersonsMistake(_ failure: CommandFailure) -> Bool {
        failure.status == .usage && surroundings.typedByAPerson
    }

    /// `result` shown on the console (as `--quiet` asks), with 74 when its output could not
    /// be written.
    private func shown(_ result: CommandResult) -> CommandResult {
        guard let console else { return result }
        return console.shown(result, as: options.quiet ? result.quieted() : nil)
    }

    /// `result`, shown, with its row in the run table finished, and what went wrong in
    /// doing so, said at once.
    private func finished(_ result: CommandResult, by watch: RunWatch?) -> CommandResult {
        let result = shown(result)
        guard let watch else { return result }
        return said(result.adding(watchProblems: watch.finish(result)), since: result)
    }

    /// `result` once the monitor and the metrics file have heard how the run ended, and
    /// what went wrong in telling them, said at once.
    private func told(_ result: CommandResult, by watch: RunWatch?) async -> CommandResult {
        guard let watch else { return result }
        return said(result.adding(watchProblems: await watch.tell(result)), since: result)
    }

    /// `result`, with what it says beyond `earlier` said on the console.
    private func said(_ result: CommandResult, since earlier: CommandResult) -> CommandResult {
        console?.say(result.said.dropFirst(earlier.said.count).map(\.line))
        return result
    }
}

extension RunSession {
    /// A `roundup run` whose flags could not be parsed, from a schedule (no person at a
    /// terminal): recorded, where `--state-dir` or the environment names a state directory
    /// with a ledger, and told to the monitor the environment names, as a run whose settings
    /// could not be had is. A dry run, and a person's typo, are not runs.
    /// `settingFlags` reads the setting flags among the words after `run`, as the command
    /// line's own parser does.
    public static func recordUnparsed(
        _ message: String, arguments: [String], settingFlags: ([String]) -> SettingFlags, in surroundings: Surroundings
    ) async {
        guard arguments.first == "run", !surroundings.typedByAPerson, !arguments.contains("--dry-run") else { return }
        let flags = settingFlags(Array(arguments.dropFirst()))
        var logger = Logger(label: "roundup")
        logger.logLevel = .critical
        // The config's state directory and monitor when it can be read, else the environment's.
        let loaded = try? surroundings.settings(flags).get().settings
        // A token typed among the words by mistake is recorded and told as `<redacted>`.
        let line = message.split(separator: "\n").first.map(String.init) ?? message
        await RunWatch.settingsFailed(
            CommandFailure(.usage, surroundings.token(for: flags)?.redacted(in: line) ?? line),
            stateDirectory: loaded?.state.directory
                ?? StateSettings.directory(
                    flags: flags, environment: surroundings.environment, locations: surroundings.locations),
            watch: loaded?.watch ?? .fromEnvironment(surroundings.environment), clock: surroundings.clock,
            logger: logger)
    }
}
