import ArgumentParser
import Foundation
import Logging
import RoundUp
import RoundUpJob
import RoundUpLedger
import RoundUpReports
import RoundUpVocabulary
import StarlingAPI

/// The composition root: the one place where the process meets the code. It holds the
/// environment, the clock and the file-system locations, and turns them with a command's
/// typed flags into what `Runner`, `Check` and `History` take. Nothing below it reads the
/// environment or the clock.
struct Composition {
    var environment: [String: String]
    var locations: Locations
    var clock: @Sendable () -> Instant
    /// Whether standard input is a terminal: a person typed the command. Their usage
    /// mistake (exit 64) is said and not recorded as a run; a scheduled run's is.
    var typedByAPerson: Bool

    /// The running process's environment and the real clock. Files the process creates
    /// from here on (state directory, ledger and its journals, lock, reports) are readable
    /// by their owner only, whatever the umask it was started with.
    static let live: Composition = {
        umask(0o077)
        // A closed standard output or error never stops a command: a write to it fails with
        // EPIPE instead, and the command finishes what it does (`finish` says how it ends).
        signal(SIGPIPE, SIG_IGN)
        let environment = ProcessInfo.processInfo.environment
        return Composition(
            environment: environment, locations: Locations(environment: environment), clock: { .now },
            typedByAPerson: isatty(STDIN_FILENO) == 1)
    }()

    /// The settings `flags` ask for, with the config file they name or the default one.
    func settings(_ flags: SettingFlags, readConfigFile: Bool = true) -> Result<LoadedSettings, SettingsError> {
        Result { () throws(SettingsError) in
            try Settings.load(
                flags: flags, environment: environment, locations: locations, readConfigFile: readConfigFile)
        }
    }

    /// `roundup run` (and the demo's run): settings, the week, the token, then the run. A
    /// real run is watched from the moment its settings are known: the ledger's run table,
    /// the monitor's pings and the metrics file hear of it however it ends.
    func run(
        _ flags: SettingFlags, endDate: LocalDate?, options: RunOptions, readConfigFile: Bool = true, logger: Logger
    ) async -> CommandResult {
        let loaded: LoadedSettings
        do throws(CommandFailure) {
            loaded = try self.settings(flags, readConfigFile: readConfigFile).mapError(\.failure).get()
        } catch {
            if !options.dryRun, !isPersonsMistake(error) {
                // The state directory and the monitor as the flags and the environment name
                // them; the default state directory only when it already has a ledger.
                await RunWatch.settingsFailed(
                    error,
                    stateDirectory: StateSettings.directory(
                        flags: flags, environment: environment, locations: locations),
                    watch: .fromEnvironment(environment), clock: clock, logger: logger)
            }
            return .failure(error)
        }
        let settings = loaded.settings
        // The week asked for is known before anything is asked of the bank, or recorded.
        let week: Result<Week, CommandFailure> = Result { () throws(CommandFailure) in
            try RunRequest.week(
                endingOn: endDate, now: clock(), in: settings.rules.timeZone, weekEndsOn: settings.rules.weekEndsOn)
        }
        if case .failure(let error) = week, options.dryRun || isPersonsMistake(error) { return .failure(error) }
        if options.dryRun { forgetKeyLog(settings) }
        let ownFiles = [loaded.configPath, settings.bank.tokenFile].compactMap { $0 }
        let watch =
            options.dryRun ? nil : RunWatch.begin(settings: settings, ownFiles: ownFiles, clock: clock, logger: logger)
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
            result = await run(
                settings: settings, week: week, options: options, logger: logger, watch: watch, progress: progress)
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
        settings: Settings, week: Result<Week, CommandFailure>, options: RunOptions, logger: Logger,
        watch: RunWatch?, progress: RunProgress
    ) async -> CommandResult {
        let request: RunRequest
        let token: AccessToken
        do throws(CommandFailure) {
            request = RunRequest(
                week: try week.get(), dryRun: options.dryRun, json: options.json, catchUp: options.catchUp,
                style: options.style)
            token = try TokenLoader(environment: environment).load(tokenFile: settings.bank.tokenFile)
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
        let result = await Runner.run(
            request, in: state, settings: settings, token: token, clock: clock, logger: logger, progress: progress)
        return withExtendedLifetime(state) { finished(result, by: watch) }
    }

    /// A usage mistake (64) a person typed at a terminal: said once, and not a run, so it
    /// neither alarms the monitor nor shows in `status` or the metrics.
    private func isPersonsMistake(_ failure: CommandFailure) -> Bool {
        failure.status == .usage && typedByAPerson
    }

    /// `result` with its row in the run table finished, and what went wrong in doing so.
    private func finished(_ result: CommandResult, by watch: RunWatch?) -> CommandResult {
        guard let watch else { return result }
        return result.adding(watchProblems: watch.finish(result))
    }

    /// `result` once the monitor and the metrics file have heard how the run ended.
    private func told(_ result: CommandResult, by watch: RunWatch?) async -> CommandResult {
        guard let watch else { return result }
        return result.adding(watchProblems: await watch.tell(result))
    }

    /// A `roundup run` whose flags could not be parsed, from a schedule (no person at a
    /// terminal): recorded, where `--state-dir` or the environment names a state directory
    /// with a ledger, and told to the monitor the environment names, as a run whose settings
    /// could not be had is. A dry run, and a person's typo, are not runs.
    func recordUnparsedRun(_ message: String, arguments: [String]) async {
        guard arguments.first == "run", !typedByAPerson, !arguments.contains("--dry-run") else { return }
        let flags = SettingFlagScan.flags(in: Array(arguments.dropFirst()))
        var logger = Logger(label: "roundup")
        logger.logLevel = .critical
        // The config's state directory and monitor when it can be read, else the environment's.
        let loaded = try? settings(flags).get().settings
        await RunWatch.settingsFailed(
            CommandFailure(.usage, message.split(separator: "\n").first.map(String.init) ?? message),
            stateDirectory: loaded?.state.directory
                ?? StateSettings.directory(flags: flags, environment: environment, locations: locations),
            watch: loaded?.watch ?? .fromEnvironment(environment), clock: clock, logger: logger)
    }

    /// `roundup check`, or with `system` the system service's files as `roundup.service`
    /// reads them (`check --system`).
    func check(_ flags: SettingFlags, system: Bool, logger: Logger, style: TextStyle) async -> CommandResult {
        let view = system ? Composition.systemService(from: self) : self
        let loaded = view.settings(flags)
        if case .success(let value) = loaded { forgetKeyLog(value.settings) }
        let lookup = Check.Lookup(
            config: Settings.configSearch(flags: flags, environment: view.environment, locations: view.locations),
            flags: flags, environment: view.environment, system: system,
            settingFlags: SettingFlagScan.flags(in:))
        return await Check.run(
            loaded: loaded, lookup: lookup, tokens: TokenLoader(environment: view.environment),
            locations: view.locations, searchPath: environment["PATH"], clock: clock, logger: logger, style: style)
    }

    /// The composition `roundup.service` runs the job with: its environment, not this
    /// user's (`SystemService`).
    static func systemService(from live: Composition) -> Composition {
        let environment = SystemService.environment(searchPath: live.environment["PATH"])
        return Composition(
            environment: environment, locations: Locations(environment: environment), clock: live.clock,
            typedByAPerson: live.typedByAPerson)
    }

    /// `roundup check --crontab`: the crontab lines for this user's config and ledger.
    func crontab(_ flags: SettingFlags) -> CommandResult {
        switch settings(flags) {
        case .failure(let error):
            return .failure(error.failure)
        case .success(let loaded):
            let executable =
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0]
            do throws(CommandFailure) {
                let lines = try Schedule.crontabEntry(
                    executable: executable, loaded: loaded, workingDirectory: FileManager.default.currentDirectoryPath)
                return CommandResult(status: .ok, output: lines, diagnostics: [])
            } catch {
                return .failure(error)
            }
        }
    }

    /// For a command that moves no money: libcurl is kept from writing the TLS secrets to
    /// `SSLKEYLOGFILE` by taking it out of the environment before libcurl starts. The
    /// command says so; one that moves money refuses to start instead.
    private func forgetKeyLog(_ settings: Settings) {
        if settings.bank.keyLogFile != nil { unsetenv("SSLKEYLOGFILE") }
    }

    /// `roundup history`.
    func history(
        _ flags: SettingFlags, query: History.Query, format: History.Format, style: TextStyle
    ) -> CommandResult {
        switch settings(flags) {
        case .success(let loaded):
            History.run(stateDirectory: loaded.settings.state.directory, query: query, format: format, style: style)
        case .failure(let error):
            .failure(error.failure)
        }
    }
}

extension Composition {
    /// `roundup resolve` with no week named: the weeks that wait for a person.
    func resolveList(_ flags: SettingFlags) -> CommandResult {
        switch settings(flags) {
        case .success(let loaded): Resolve.list(stateDirectory: loaded.settings.state.directory)
        case .failure(let error): .failure(error.failure)
        }
    }

    /// `roundup resolve --account … --end-date … --check|--retry|--redirect|--abandon`.
    func resolve(
        _ resolution: Resolution, accountUid: String, weekEnd: LocalDate, flags: SettingFlags, logger: Logger
    ) async -> CommandResult {
        let settings: Settings
        var token: AccessToken?
        do throws(CommandFailure) {
            settings = try self.settings(flags).mapError(\.failure).get().settings
            if resolution.needsBank {
                token = try TokenLoader(environment: environment).load(tokenFile: settings.bank.tokenFile)
                    .mapError { CommandFailure(.configuration, $0.message) }.get().0
            }
        } catch {
            return .failure(error)
        }
        // A signal ends it saying what it had done, once any ledger write under way is done.
        let progress = RunProgress()
        let signals = InterruptWatch(progress: progress)
        defer { signals.stop() }
        return await Resolve.run(
            resolution, accountUid: accountUid, weekEnd: weekEnd, settings: settings, token: token, clock: clock,
            logger: logger, progress: progress)
    }
}

/// How `roundup run` (or the demo) runs, apart from its settings and week.
struct RunOptions {
    var dryRun = false
    var json = false
    var catchUp = false
    var style = TextStyle.plain
}
