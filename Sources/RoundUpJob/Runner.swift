import Foundation
public import Logging
public import RoundUp
import CurlHTTP
import StarlingAPI

/// roundup's version, sent in `User-Agent` and written in reports.
public let roundupVersion = "0.1.0"

/// What `roundup run` was asked to do.
public struct RunRequest: Sendable {
    public var endDate: String?
    public var dryRun: Bool
    public var json: Bool
    public var flags: SettingFlags
    /// Ignore any config file, even the default one (the demo uses this).
    public var ignoreConfigFile: Bool
    /// Run every finished week since the newest one in the ledger, oldest first, up to
    /// `endDate` (at most `Runner.catchUpLimit` weeks per run).
    public var catchUp: Bool
    /// How the summary is dressed for stdout.
    public var style: TextStyle

    public init(endDate: String? = nil, dryRun: Bool = false, json: Bool = false, flags: SettingFlags = SettingFlags(),
                ignoreConfigFile: Bool = false, catchUp: Bool = false, style: TextStyle = .plain) {
        self.endDate = endDate
        self.dryRun = dryRun
        self.json = json
        self.flags = flags
        self.ignoreConfigFile = ignoreConfigFile
        self.catchUp = catchUp
        self.style = style
    }
}

/// How a run ended: what to print and the exit status.
public struct RunResult: Sendable {
    public var status: ExitStatus
    /// For stdout.
    public var output: String
    /// For stderr; never contains the token.
    public var diagnostics: [String]
    public var report: RunReport?
    public var reportPath: String?
}

/// Turns a request, the environment and the clock into a finished run: settings, token,
/// week, state directory, lock, ledger, HTTP client, the job, the report.
public enum Runner {
    public static func run(_ request: RunRequest, environment: [String: String], now: Instant, logger: Logger) async
        -> RunResult
    {
        func fail(_ status: ExitStatus, _ message: String) -> RunResult {
            RunResult(status: status, output: "", diagnostics: ["roundup: \(message)"])
        }

        let settings: Settings
        do {
            (settings, _) = try resolveSettings(request, environment: environment)
        } catch {
            return fail(error.exitStatus, error.message)
        }

        let week: Week
        if let text = request.endDate {
            guard let endDate = LocalDate(iso: text) else {
                return fail(.usage, "--end-date '\(text)' is not a date of the form YYYY-MM-DD")
            }
            week = Week(endingOn: endDate, in: settings.timeZone)
            guard week.hasEnded(at: now) else {
                let today = Week.localDate(of: now, in: settings.timeZone)
                return fail(
                    .usage,
                    "the week ending \(endDate) has not ended yet (today is \(today) in \(settings.timeZone.identifier)); "
                        + "give an end date before today")
            }
        } else {
            week = Week.endingYesterday(now: now, in: settings.timeZone)
        }

        let token: AccessToken
        switch loadToken(settings: settings, environment: environment) {
        case .success(let value): token = value.0
        case .failure(let error): return fail(.configuration, error.message)
        }
        // From here on every log line passes through a filter that removes the token.
        let logger = redacting(logger, token: token)

        do {
            try FileManager.default.createDirectory(
                atPath: settings.stateDirectory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            return fail(.configuration, "cannot create the state directory \(settings.stateDirectory): \(error.localizedDescription)")
        }
        var lock: RunLock?
        if !request.dryRun {
            do {
                lock = try await RunLock.acquire(in: settings.stateDirectory, wait: settings.lockWait)
            } catch {
                return fail(.configuration, "cannot lock the state directory \(settings.stateDirectory): \(error.localizedDescription)")
            }
            guard lock != nil else {
                return fail(.temporaryFailure, "another roundup run is using \(settings.stateDirectory); try again when it has finished")
            }
        }
        defer { withExtendedLifetime(lock) {} }

        let ledger: Ledger
        do {
            ledger = try Ledger(path: settings.stateDirectory + "/ledger.sqlite")
        } catch {
            return fail(.configuration, "cannot open the ledger in \(settings.stateDirectory): \(error)")
        }
        let client: CurlHTTPClient
        do {
            client = try CurlHTTPClient(
                configuration: CurlHTTPConfiguration(
                    requestTimeout: settings.requestTimeout, lanes: settings.concurrency,
                    userAgent: "roundup/\(roundupVersion)"))
        } catch {
            return fail(.unavailable, error.message)
        }
        let retrier = Retrier(policy: settings.retryPolicy)
        let job = RoundUpJob(
            bank: BankClient(
                baseURL: settings.apiBaseURL, token: token, transport: client, retrier: retrier, logger: logger),
            ledger: ledger,
            settings: settings, logger: logger, version: roundupVersion, now: { Instant.now })
        var weeks = [week]
        var notes: [String] = []
        if request.catchUp {
            do {
                (weeks, notes) = try catchUpWeeks(ledger: ledger, through: week)
            } catch {
                return fail(.configuration, "cannot read the ledger in \(settings.stateDirectory): \(error)")
            }
        }

        var result = RunResult(status: .ok, output: "", diagnostics: [], report: nil)
        var reports: [RunReport] = []
        var summaries: [String] = []
        for week in weeks {
            let retriesBefore = retrier.budget.retries
            var report = await job.run(week: week, dryRun: request.dryRun)
            let retries = retrier.budget.retries - retriesBefore
            if retries > 0 { report.retries = retries }
            result.report = report
            // Kept for --json only: a busy week's report is large.
            if request.json { reports.append(report) }
            if result.status == .ok { result.status = report.exitCode }
            do {
                result.reportPath = try ReportWriter.write(report, to: settings.reportDirectory, token: token)
            } catch {
                result.diagnostics.append(
                    "roundup: could not write the report to \(settings.reportDirectory): \(error.localizedDescription)")
                if result.status == .ok { result.status = .configuration }
            }
            if let error = report.error { result.diagnostics.append("roundup: \(error)") }
            for account in report.accounts where account.status == .failed {
                result.diagnostics.append(
                    "roundup: \(account.name ?? account.accountUid) (\(account.currency)): \(account.detail ?? "failed")")
            }
            summaries.append(report.summary(reportPath: result.reportPath, style: request.style))
            // Weeks go in order: after a failure the later ones wait for the next run.
            if result.status != .ok {
                if week != weeks.last {
                    notes.append("stopped after the week ending \(week.endDate); the next --catch-up run continues from it")
                }
                break
            }
        }
        result.diagnostics += notes.map { "roundup: \($0)" }
        if request.json {
            let bytes = request.catchUp ? ReportJSON.encode(reports) : reports.first.map(ReportJSON.encode) ?? []
            result.output = bytes.isEmpty ? "" : String(decoding: bytes, as: UTF8.self) + "\n"
        } else {
            result.output = summaries.joined(separator: "\n")
        }
        // Defence in depth: nothing the run prints may contain the token.
        let scrub = token.redacted(in:)
        result.output = scrub(result.output)
        result.diagnostics = result.diagnostics.map(scrub)
        return result
    }

    /// Weeks a catch-up run covers at most; a longer gap is closed over several runs.
    public static let catchUpLimit = 8

    /// The weeks a catch-up run covers: any week with an unconfirmed transfer, then each week
    /// after the newest one in the ledger, seven days apart so that none overlaps it, up to
    /// `target`; oldest first, at most `catchUpLimit`. An empty ledger gives just `target`.
    static func catchUpWeeks(ledger: Ledger, through target: Week) throws -> ([Week], [String]) {
        let entries = try ledger.entries()
        guard let newest = entries.map(\.weekEnd).max() else { return ([target], []) }
        var ends = Set(entries.filter { $0.status == .pending }.map(\.weekEnd))
        var next = newest.adding(days: 7)
        while next <= target.endDate {
            ends.insert(next)
            next = next.adding(days: 7)
        }
        var notes: [String] = []
        if ends.isEmpty {
            notes.append("nothing to catch up: the ledger already has the week ending \(newest)")
        } else if next.adding(days: -7) != target.endDate, target.endDate > newest {
            notes.append(
                "the week ending \(target.endDate) shares days with the week ending \(next.adding(days: -7)); "
                    + "catch-up keeps to weeks seven days apart from \(newest)")
        }
        let sorted = ends.sorted()
        if sorted.count > catchUpLimit {
            notes.append(
                "\(sorted.count) weeks to catch up; this run does the oldest \(catchUpLimit), the next run continues")
        }
        return (sorted.prefix(catchUpLimit).map { Week(endingOn: $0, in: target.timeZone) }, notes)
    }

    /// The settings for `request` and `environment`, and the path of the config file read, if any.
    static func resolveSettings(_ request: RunRequest, environment: [String: String]) throws(SettingsError)
        -> (Settings, configPath: String?)
    {
        let (text, path) = try configFile(request, environment: environment)
        let settings = try Settings.resolve(
            flags: request.flags, environment: environment, configText: text, configPath: path)
        return (settings, path)
    }

    /// The config file's text and path: `--config`, else `ROUNDUP_CONFIG`, else
    /// `$XDG_CONFIG_HOME/roundup/config.yaml` when it exists.
    static func configFile(_ request: RunRequest, environment: [String: String]) throws(SettingsError)
        -> (String?, String?)
    {
        if request.ignoreConfigFile { return (nil, nil) }
        let explicit = request.flags.configFile ?? environment["ROUNDUP_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let path: String
        if let explicit {
            path = explicit
        } else {
            let home = environment["HOME"] ?? "/root"
            let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.config"
            path = "\(configHome)/roundup/config.yaml"
            guard FileManager.default.fileExists(atPath: path) else { return (nil, nil) }
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SettingsError(
                origin: request.flags.configFile != nil ? .flag : .environment,
                message: "cannot read the config file \(path)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SettingsError(origin: .file, message: "the config file \(path) is not UTF-8 text")
        }
        return (text, path)
    }

    struct TokenError: Error { let message: String }

    /// The name of the systemd credential that holds the token (`LoadCredential=starling-token:…`).
    public static let tokenCredential = "starling-token"

    /// Where the token came from, in words for `roundup check`.
    enum TokenSource: Equatable {
        case environment
        case credential(path: String)
        case file(path: String)

        var description: String {
            switch self {
            case .environment: "STARLING_ACCESS_TOKEN"
            case .credential(let path): "the systemd credential \(tokenCredential) (\(path))"
            case .file(let path): path
            }
        }
    }

    /// `STARLING_ACCESS_TOKEN`; else the systemd credential `starling-token` when systemd
    /// passed one in `$CREDENTIALS_DIRECTORY`; else the config's `tokenFile`. A file must be
    /// readable by its owner only.
    static func loadToken(settings: Settings, environment: [String: String])
        -> Result<(AccessToken, TokenSource), TokenError>
    {
        if let value = environment["STARLING_ACCESS_TOKEN"], !value.isEmpty {
            guard let token = AccessToken(value) else {
                return .failure(TokenError(message: "STARLING_ACCESS_TOKEN holds characters an access token cannot have"))
            }
            return .success((token, .environment))
        }
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            let path = directory + "/" + tokenCredential
            if FileManager.default.fileExists(atPath: path) {
                return readTokenFile(path).map { ($0, .credential(path: path)) }
            }
        }
        guard let path = settings.tokenFile else {
            return .failure(
                TokenError(
                    message: "no access token: set STARLING_ACCESS_TOKEN, or tokenFile in the config file "
                        + "(see config/roundup.example.yaml), or pass the systemd credential \(tokenCredential)"))
        }
        return readTokenFile(path).map { ($0, .file(path: path)) }
    }

    private static func readTokenFile(_ path: String) -> Result<AccessToken, TokenError> {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return .failure(TokenError(message: "cannot read the token file \(path): it does not exist or is not accessible"))
        }
        guard info.st_mode & 0o077 == 0 else {
            return .failure(
                TokenError(
                    message: "the token file \(path) is readable by group or others; run: chmod 600 \(path)"))
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8),
            let token = AccessToken(text)
        else {
            return .failure(TokenError(message: "the token file \(path) does not hold an access token"))
        }
        return .success(token)
    }
}

/// `logger` with the token removed from every message and metadata value it passes on.
func redacting(_ logger: Logger, token: AccessToken) -> Logger {
    var redacting = Logger(label: logger.label) { _ in RedactingLogHandler(inner: logger.handler, token: token) }
    redacting.logLevel = logger.logLevel
    return redacting
}

/// Passes log events on with the token removed from their messages and metadata.
struct RedactingLogHandler: LogHandler {
    var inner: any LogHandler
    let token: AccessToken

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: token.redacted(in: event.message.description))
        event.metadata = event.metadata?.mapValues { .string(token.redacted(in: $0.description)) }
        inner.log(event: event)
    }
}
