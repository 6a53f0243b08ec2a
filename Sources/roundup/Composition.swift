import ArgumentParser
import Foundation
import Logging
import RoundUp
import RoundUpCommands
import RoundUpHost
import RoundUpReports
import RoundUpVocabulary
import StarlingAPI

/// The composition root: the one place where the process meets the code. It holds the
/// environment, the clock and the file-system locations, hands them down as one
/// `Surroundings` value, and gives each command what its home in the library takes
/// (`RunSession`, `Check`, `SavingsHistory`, `Resolve`). Nothing below it reads the environment or
/// the clock.
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

    /// What the job's commands take of it.
    var surroundings: Surroundings {
        Surroundings(environment: environment, locations: locations, clock: clock, typedByAPerson: typedByAPerson)
    }

    /// The settings `flags` ask for, with the config file they name or the default one.
    func settings(_ flags: SettingFlags, readConfigFile: Bool = true) -> Result<LoadedSettings, SettingsError> {
        surroundings.settings(flags, readConfigFile: readConfigFile)
    }

    /// `roundup run` (and the demo's run). With `console`, the run is shown there before its
    /// row is finished; without, the caller shows the result.
    func run(
        _ flags: SettingFlags, endDate: LocalDate?, options: RunOptions, readConfigFile: Bool = true, logger: Logger,
        console: Console? = nil
    ) async -> CommandResult {
        await RunSession(
            flags: flags, endDate: endDate, options: options, readConfigFile: readConfigFile, in: surroundings,
            logger: logger, console: console
        ).run()
    }

    /// A `roundup run` whose flags could not be parsed, from a schedule: recorded as a run
    /// (`RunSession.recordUnparsed`).
    func recordUnparsedRun(_ message: String, arguments: [String]) async {
        await RunSession.recordUnparsed(
            message, arguments: arguments, settingFlags: SettingFlagScan.flags(in:), in: surroundings)
    }

    /// `roundup check`, or with `system` the system service's files as `roundup.service`
    /// reads them (`check --system`).
    func check(_ flags: SettingFlags, system: Bool, notifyTest: Bool, logger: Logger, style: TextStyle) async
        -> CommandResult
    {
        let view = system ? Composition.systemService(from: self) : self
        let loaded = view.settings(flags)
        if case .success(let value) = loaded { surroundings.forgetKeyLog(value.settings) }
        var lookup = Check.Lookup(
            config: Settings.configSearch(flags: flags, environment: view.environment, locations: view.locations),
            flags: flags, environment: view.environment, system: system,
            scheduling: schedulingLookup)
        lookup.notifyTest = notifyTest
        return await Check.run(
            loaded: loaded, lookup: lookup, tokens: TokenLoader(environment: view.environment),
            locations: view.locations, clock: clock, logger: logger, style: style)
    }

    /// The composition `roundup.service` runs the job with: its environment, not this
    /// user's (`SystemService`).
    static func systemService(from live: Composition) -> Composition {
        let environment = SystemService.environment(searchPath: live.environment["PATH"])
        return Composition(
            environment: environment, locations: Locations(environment: environment), clock: live.clock,
            typedByAPerson: live.typedByAPerson)
    }

    /// This program's full path, as the kernel knows it: for lines a person or cron runs later.
    var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// `roundup check --crontab`: the crontab lines for this user's config and ledger.
    func crontab(_ flags: SettingFlags) -> CommandResult {
        switch settings(flags) {
        case .failure(let error):
            return .failure(error.failure)
        case .success(let loaded):
            do throws(CommandFailure) {
                let lines = try Crontab.crontabEntry(
                    executable: executable, loaded: loaded, workingDirectory: FileManager.default.currentDirectoryPath)
                return CommandResult(status: .ok, output: lines)
            } catch {
                return .failure(error)
            }
        }
    }

    /// `roundup history`.
    func history(
        _ flags: SettingFlags, query: SavingsHistory.Query, format: SavingsHistory.Format, style: TextStyle
    ) -> CommandResult {
        switch settings(flags) {
        case .success(let loaded):
            SavingsHistory.run(
                stateDirectory: loaded.settings.state.directory, query: query, format: format, style: style,
                zone: loaded.settings.rules.timeZone)
        case .failure(let error):
            .failure(error.failure)
        }
    }
}

extension Composition {
    /// `roundup export`: the transfers whose money arrived, for the saver's books.
    func export(_ flags: SettingFlags, query: SavingsHistory.Query, format: BookExport.Format, output: String?)
        -> CommandResult
    {
        switch settings(flags) {
        case .success(let loaded):
            BookExport.run(
                stateDirectory: loaded.settings.state.directory, query: query, format: format,
                zone: loaded.settings.rules.timeZone, now: clock(), output: output)
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
        _ resolution: Resolution, accountUid: String, weekEnd: LocalDate, leg: Int? = nil, flags: SettingFlags,
        logger: Logger
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
            resolution, accountUid: accountUid, weekEnd: weekEnd, leg: leg, settings: settings, token: token,
            clock: clock, logger: logger, progress: progress, scheduling: schedulingLookup)
    }

    /// Where `check`, `status` and `resolve` look for what runs the job: this user's
    /// commands, crontab and HOME.
    var schedulingLookup: Scheduling.Lookup {
        Scheduling.Lookup(
            searchPath: environment["PATH"], home: locations.home, settingFlags: SettingFlagScan.flags(in:),
            runsTheJob: Composition.runsTheJob)
    }

    /// Whether `roundup run` with `arguments` runs the job: its parser takes them, and they
    /// ask for neither a dry run nor help.
    static func runsTheJob(_ arguments: [String]) -> Bool {
        guard let run = try? Roundup.Run.parse(arguments) else { return false }
        return !run.dryRun
    }
}
