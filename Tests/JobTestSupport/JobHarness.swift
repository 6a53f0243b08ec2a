import Foundation
package import Logging
package import RoundUp
package import RoundUpCommands
package import RoundUpHost
package import RoundUpLedger
import RoundUpReports
import RoundUpVocabulary
import RoundUpWeeklyRun
import StarlingAPI
package import StarlingEmulator
package import TestSupport

/// Runs the real job in-process, through libcurl, against an emulator.
package struct JobHarness {
    package let directory: TemporaryDirectory
    package let token: String
    package let log = LogCapture()

    package init(token: String) throws {
        self.directory = try TemporaryDirectory()
        self.token = token
    }

    package var stateDirectory: String { directory.path + "/state" }

    /// "Now" for the tests: well after every week they use.
    package static let now = Instant(iso8601: "2026-11-21T10:00:00Z")!

    /// Retries as in production, but with millisecond waits so that tests stay quick, and
    /// a later run that may send an unanswered transfer again at once (its feed settled). The
    /// timeout stays long: on a small machine running every test at once, the emulator
    /// can be slow to answer, and a timeout would add retries the test did not ask for.
    package static let quickRetries = """
        retryFirstDelayMilliseconds: 1
        retryMaxDelaySeconds: 0
        requestTimeoutSeconds: 60
        feedRecheckSeconds: 0
        feedSettleMinutes: 0

        """

    /// Runs the job; `clock` stamps its reports and ledger entries (the real clock unless given).
    package func run(
        _ server: EmulatorServer, endDate: String, dryRun: Bool = false, json: Bool = false, catchUp: Bool = false,
        token: String? = nil, goal: String? = nil, config: String = JobHarness.quickRetries,
        clock: (@Sendable () -> Instant)? = nil
    ) async -> CommandResult {
        await run(
            baseURL: server.baseURL, endDate: endDate, dryRun: dryRun, json: json, catchUp: catchUp, token: token,
            goal: goal, config: config, clock: clock)
    }

    package func run(
        baseURL: String, endDate: String, dryRun: Bool = false, json: Bool = false, catchUp: Bool = false,
        token: String? = nil, goal: String? = nil, config: String = JobHarness.quickRetries,
        clock: (@Sendable () -> Instant)? = nil
    ) async -> CommandResult {
        do throws(CommandFailure) {
            let (settings, accessToken, logger) = try load(baseURL: baseURL, token: token, goal: goal, config: config)
            let week = try RunRequest.week(
                endingOn: LocalDate(iso: endDate), now: JobHarness.now, in: settings.rules.timeZone,
                weekEndsOn: settings.rules.weekEndsOn)
            return await Runner.run(
                RunRequest(week: week, dryRun: dryRun, catchUp: catchUp),
                printout: RunPrintout(json ? .json(array: catchUp) : .summaries(.plain)), settings: settings,
                token: accessToken, clock: clock ?? { Instant.now }, logger: logger)
        } catch {
            return .failure(error)
        }
    }

    /// `roundup resolve` for one account-week, as the command line runs it.
    package func resolve(
        _ server: EmulatorServer, _ resolution: Resolution, account: String, endDate: String, leg: Int? = nil,
        config: String = JobHarness.quickRetries, clock: (@Sendable () -> Instant)? = nil
    ) async -> CommandResult {
        do throws(CommandFailure) {
            let (settings, accessToken, logger) = try load(
                baseURL: server.baseURL, token: nil, goal: nil, config: config)
            return await Resolve.run(
                resolution, accountUid: account, weekEnd: LocalDate(iso: endDate)!, leg: leg, settings: settings,
                token: accessToken, clock: clock ?? { Instant.now }, logger: logger)
        } catch {
            return .failure(error)
        }
    }

    /// The settings, token and logger a run gets from `config` and the flags.
    private func load(baseURL: String, token: String?, goal: String?, config: String) throws(CommandFailure)
        -> (Settings, AccessToken, Logger)
    {
        let configPath = directory.path + "/config.yaml"
        try? Data(config.utf8).write(to: URL(fileURLWithPath: configPath))
        var logger = Logger(label: "test") { _ in log }
        logger.logLevel = .trace
        var environment = ["HOME": directory.path, "STARLING_ACCESS_TOKEN": token ?? self.token]
        // The emulator is on this machine: no need to keep to the real bank's pace, unless
        // the test is about that pace.
        if !config.contains("maxRequestsPerSecond") { environment["ROUNDUP_MAX_REQUESTS_PER_SECOND"] = "1000" }
        let flags = SettingFlags(
            configFile: configPath, apiBaseURL: baseURL, savingsGoal: goal, stateDirectory: stateDirectory)
        let settings: Settings
        do throws(SettingsError) {
            settings = try Settings.load(
                flags: flags, environment: environment, locations: Locations(environment: environment)
            ).settings
        } catch {
            throw error.failure
        }
        let accessToken = try TokenLoader(environment: environment).load(tokenFile: settings.bank.tokenFile)
            .mapError { CommandFailure(.configuration, $0.message) }.get().0
        return (settings, accessToken, logger)
    }

    package func ledger() throws -> Ledger { try Ledger(path: stateDirectory + "/ledger.sqlite") }
}

/// Keeps every log line, to check what the job says and that it never says the token.
package final class LogCapture: LogHandler, @unchecked Sendable {
    // Guarded by `lock`; log handlers are called from any thread.
    private let lock = NSLock()
    private var stored: [String] = []
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .trace

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        lock.withLock { stored.append("\(event.level) \(event.message)") }
    }

    package var lines: [String] { lock.withLock { stored } }
}
