public import CurlHTTP
public import Foundation
public import RoundUp
import Yams

/// Everything a run is told: resolved from flags, then `ROUNDUP_…` environment variables,
/// then the config file, then defaults. Holds no secret: the token is read separately.
public struct Settings: Sendable {
    public var apiBaseURL: String
    public var timeZone: TimeZone
    /// The name of the goal to save into, found or created per account.
    public var savingsGoalName: String
    /// Goals chosen by uid, by account uid; these win over the name.
    public var goalUids: [String: String]
    /// Targets, by currency code, for goals the job creates.
    public var newGoalTargets: [String: Money]
    public var stateDirectory: String
    public var reportDirectory: String
    public var tokenFile: String?
    public var rule: SelectionRule
    /// The types of account worked on (`PRIMARY`, `ADDITIONAL`…); others are skipped.
    public var accountTypes: [String]
    /// What to do with an account where the bank's own round-up is switched on.
    public var nativeRoundUp: NativeRoundUp
    public var policy: RoundUpPolicy
    /// Balances the week's transfer must not cut into, by currency code.
    public var minimumBalances: [String: MinimumBalance]
    /// How many requests may be in flight at once.
    public var concurrency: Int
    /// Requests a second the run keeps under, retries included.
    public var maxRequestsPerSecond: Int
    /// Requests a UTC day the bank allows the token; a catch-up stops before it passes 80 %.
    public var maxRequestsPerDay: Int
    /// How long a second run waits for a running one before giving up.
    public var lockWait: Duration
    /// How failed requests are tried again.
    public var retryPolicy: RetryPolicy
    /// How long one request may take before it counts as timed out (and is retried).
    public var requestTimeout: Duration
    /// How the job allows for the bank's clock and pace when it looks for its own transfers.
    public var waits: TransferWaits
    /// The certificate authorities to trust instead of the system's (a PEM file).
    public var caFile: String?
    /// The proxy requests go through ("" for none): from `https_proxy` or `all_proxy` for an
    /// https bank unless `no_proxy` names it; never for a bank on this machine.
    public var proxy: String = ""
    /// `SSLKEYLOGFILE`, where libcurl would write the TLS secrets that decrypt the token.
    public var keyLogFile: String?
    /// A dead man's switch to tell of every real run (`notify.pingURL`, `ROUNDUP_PING_URL`):
    /// a secret, never logged or reported in full.
    public var pingURL: String?
    /// Where a real run writes its metrics for node_exporter's textfile collector.
    public var metricsFile: String?

    public static let productionURL = "https://api.starlingbank.com"
    public static let sandboxURL = "https://api-sandbox.starlingbank.com"
    public static let defaultGoalName = "Round-ups"
    public static let defaultAccountTypes = ["PRIMARY", "ADDITIONAL"]

    /// Which bank a base URL is, by its host, however it is spelt.
    public enum Bank: Sendable {
        case live, sandbox, other
    }

    /// What to add when the sandbox refuses a token.
    static let sandboxTokenHint = "; sandbox tokens last 24 hours: make a new one in the developer portal"

    public static func bank(of baseURL: String) -> Bank {
        switch URLComponents(string: baseURL)?.host?.lowercased() {
        case "api.starlingbank.com": .live
        case "api-sandbox.starlingbank.com": .sandbox
        default: .other
        }
    }
}

/// What to do with an account where the bank's own round-up is switched on: running both
/// saves the same spending twice.
public enum NativeRoundUp: String, CaseIterable, Sendable {
    /// Skip the account, with a warning.
    case skip
    /// Go on: the payments the bank rounded up are still left out one by one.
    case allow
}

/// How long the job allows when it looks in the feed for its own transfers and waits for
/// a goal to become usable.
public struct TransferWaits: Sendable, Equatable {
    /// How far the bank's clock may be from this machine's: feed searches reach this much
    /// further back and forward.
    public var clockSkewMargin: Duration = .seconds(600)
    /// After a transfer whose outcome is unknown, how long to wait before reading the feed
    /// a second time.
    public var feedRecheck: Duration = .seconds(10)
    /// How long to wait for a goal that is being created or restored to become active.
    public var goalWait: Duration = .seconds(60)

    public init() {}

    public init(clockSkewMargin: Duration, feedRecheck: Duration, goalWait: Duration) {
        self.clockSkewMargin = clockSkewMargin
        self.feedRecheck = feedRecheck
        self.goalWait = goalWait
    }
}

/// Settings given on the command line; nil where a flag was not given.
public struct SettingFlags: Sendable {
    public var configFile: String?
    public var apiBaseURL: String?
    public var savingsGoal: String?
    public var stateDirectory: String?
    public var reportDirectory: String?
    public var metricsFile: String?

    public init(
        configFile: String? = nil, apiBaseURL: String? = nil, savingsGoal: String? = nil,
        stateDirectory: String? = nil, reportDirectory: String? = nil, metricsFile: String? = nil
    ) {
        self.metricsFile = metricsFile
        self.configFile = configFile
        self.apiBaseURL = apiBaseURL
        self.savingsGoal = savingsGoal
        self.stateDirectory = stateDirectory
        self.reportDirectory = reportDirectory
    }
}

/// A setting that cannot be used, with where it came from.
public struct SettingsError: Error, Sendable, CustomStringConvertible {
    public enum Origin: String, Sendable {
        case flag = "command line"
        case environment
        case file = "config file"
    }

    public let origin: Origin
    public let message: String

    public var description: String { message }

    /// A bad flag is a usage error; anything else is bad configuration.
    public var exitStatus: ExitStatus { origin == .flag ? .usage : .configuration }
}

/// Settings and the config file they were read from, if any.
public struct LoadedSettings: Sendable {
    public var settings: Settings
    public var configPath: String?
}

extension Settings {
    /// Reads the config file that `flags`, `ROUNDUP_CONFIG` or `locations` name (none when
    /// `readConfigFile` is false) and resolves the settings from it, `environment` and `flags`.
    public static func load(
        flags: SettingFlags, environment: [String: String], locations: Locations, readConfigFile: Bool = true
    ) throws(SettingsError) -> LoadedSettings {
        let (text, path) =
            readConfigFile ? try configFile(flags: flags, environment: environment, locations: locations) : (nil, nil)
        let settings = try resolve(
            flags: flags, environment: environment, locations: locations, configText: text, configPath: path)
        return LoadedSettings(settings: settings, configPath: path)
    }

    /// The config file's text and path: `--config`, else `ROUNDUP_CONFIG`, else the default
    /// config file when it exists.
    static func configFile(flags: SettingFlags, environment: [String: String], locations: Locations)
        throws(SettingsError) -> (String?, String?)
    {
        let explicit = flags.configFile ?? environment["ROUNDUP_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let path: String
        if let explicit {
            path = explicit
        } else {
            guard let standard = locations.configFile, FileManager.default.fileExists(atPath: standard) else {
                return (nil, nil)
            }
            path = standard
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SettingsError(
                origin: flags.configFile != nil ? .flag : .environment, message: "cannot read the config file \(path)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SettingsError(origin: .file, message: "the config file \(path) is not UTF-8 text")
        }
        return (text, path)
    }

    /// Resolves the settings. `configText` is the config file's contents, when there is one.
    public static func resolve(
        flags: SettingFlags, environment: [String: String], locations: Locations, configText: String?,
        configPath: String?
    ) throws(SettingsError) -> Settings {
        let file =
            try configText.map { text throws(SettingsError) in
                try ConfigFile.parse(text, path: configPath ?? "the config file")
            } ?? ConfigFile()
        let env = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }

        guard
            let givenState = flags.stateDirectory ?? env("ROUNDUP_STATE_DIR") ?? file.stateDir
                ?? locations.stateDirectory
        else {
            throw SettingsError(
                origin: .environment,
                message: "HOME is not set, so there is no default state directory: give one with --state-dir, "
                    + "ROUNDUP_STATE_DIR or stateDir in the config file")
        }
        let stateDirectory = locations.expand(givenState)
        let reportDirectory = locations.expand(
            flags.reportDirectory ?? env("ROUNDUP_REPORT_DIR") ?? file.reportDir
                ?? Locations.reportDirectory(in: stateDirectory))
        let baseURL = try baseURL(flag: flags.apiBaseURL, environment: env("ROUNDUP_API_BASE_URL"), file: file)
        let timeZone = try timeZone(environment: env("ROUNDUP_TIME_ZONE"), file: file)
        let goalName = flags.savingsGoal ?? env("ROUNDUP_SAVINGS_GOAL") ?? file.savingsGoal ?? defaultGoalName
        guard !goalName.trimmingCharacters(in: .whitespaces).isEmpty, goalName.count <= 255 else {
            throw SettingsError(
                origin: flags.savingsGoal != nil ? .flag : .file,
                message: "the savings goal name must have 1 to 255 characters")
        }
        let policy = try file.policy()
        let limits = try file.limits()
        return Settings(
            apiBaseURL: baseURL, timeZone: timeZone, savingsGoalName: goalName, goalUids: file.goals ?? [:],
            newGoalTargets: policy.newGoalTargets, stateDirectory: stateDirectory,
            reportDirectory: reportDirectory,
            tokenFile: (env("ROUNDUP_TOKEN_FILE") ?? file.tokenFile).map(locations.expand),
            rule: try file.selection(), accountTypes: try file.accountTypeChoice(),
            nativeRoundUp: try file.choice(file.nativeRoundUp, "nativeRoundUp", default: .skip),
            policy: policy.roundUp, minimumBalances: policy.minimumBalances,
            concurrency: limits.concurrency,
            maxRequestsPerSecond: try rate(environment: env("ROUNDUP_MAX_REQUESTS_PER_SECOND"), file: file),
            maxRequestsPerDay: try file.bounded(file.maxRequestsPerDay, "maxRequestsPerDay", 10...10_000_000) ?? 1000,
            lockWait: limits.lockWait, retryPolicy: limits.retryPolicy,
            requestTimeout: limits.requestTimeout, waits: limits.waits,
            caFile: try caFile(file: file, environment: env, locations: locations),
            proxy: proxy(for: baseURL, environment: env), keyLogFile: env("SSLKEYLOGFILE"),
            pingURL: try (env("ROUNDUP_PING_URL") ?? file.notify?.pingURL).map(checkedPingURL),
            metricsFile: (flags.metricsFile ?? file.metricsFile).map(locations.expand))
    }

    /// The flag's, else the environment's, else the file's base URL, else the bank's
    /// production (or, with `sandbox: true`, sandbox) API.
    private static func baseURL(flag: String?, environment: String?, file: ConfigFile) throws(SettingsError)
        -> String
    {
        let baseURL: String
        let origin: SettingsError.Origin
        if let flag {
            (baseURL, origin) = (flag, .flag)
        } else if let environment {
            (baseURL, origin) = (environment, .environment)
        } else if let value = file.apiBaseURL {
            (baseURL, origin) = (value, .file)
        } else {
            (baseURL, origin) = (file.sandbox == true ? sandboxURL : productionURL, .file)
        }
        try checkBaseURL(baseURL, origin: origin)
        return baseURL
    }

    private static func timeZone(environment: String?, file: ConfigFile) throws(SettingsError) -> TimeZone {
        let zoneName = environment ?? file.timeZone ?? Week.defaultTimeZoneIdentifier
        let origin: SettingsError.Origin = environment != nil ? .environment : .file
        guard let timeZone = TimeZone(identifier: zoneName) else {
            throw SettingsError(
                origin: origin,
                message: "time zone '\(zoneName)' is not a known IANA zone such as \(Week.defaultTimeZoneIdentifier)")
        }
        guard isRegionOrUTC(zoneName) else {
            // GMT+5 and Etc/GMT+5 are five hours *behind* UTC (the POSIX sign): people read
            // them both ways, and a region follows its own clock changes.
            let offset = timeZone.secondsFromGMT()
            let continents = ["Europe/", "America/", "Asia/", "Africa/", "Australia/", "Pacific/"]
            let rank = { (name: String) in continents.firstIndex { name.hasPrefix($0) } ?? continents.count }
            let alike = TimeZone.knownTimeZoneIdentifiers.filter { name in
                isRegionOrUTC(name) && name != "UTC" && TimeZone(identifier: name)?.secondsFromGMT() == offset
            }.sorted { (rank($0), $0) < (rank($1), $1) }
            throw SettingsError(
                origin: origin,
                message: "time zone '\(zoneName)' is a fixed offset or an old abbreviation, which people read "
                    + "differently; use a region name such as \(alike.first ?? Week.defaultTimeZoneIdentifier), "
                    + "or UTC")
        }
        return timeZone
    }

    /// A ping URL must be http or https with a host; it is never echoed whole.
    static func checkedPingURL(_ text: String) throws(SettingsError) -> String {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host?.isEmpty == false, url.query == nil, url.fragment == nil
        else {
            throw SettingsError(
                origin: .file,
                message: "notify.pingURL (or ROUNDUP_PING_URL) must be an http or https URL without a query or a "
                    + "#fragment, "
                    + "such as https://hc-ping.com/<uuid>")
        }
        var trimmed = text
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }

    /// The environment's, else the file's `maxRequestsPerSecond`, else 5.
    private static func rate(environment: String?, file: ConfigFile) throws(SettingsError) -> Int {
        let range = 1...10_000
        guard let environment else {
            return try file.bounded(file.maxRequestsPerSecond, "maxRequestsPerSecond", range) ?? 5
        }
        guard let value = Int(environment), range.contains(value) else {
            throw SettingsError(
                origin: .environment,
                message: "ROUNDUP_MAX_REQUESTS_PER_SECOND must be a whole number from 1 to 10000, not '\(environment)'")
        }
        return value
    }

    /// `Europe/London`, `America/Argentina/Buenos_Aires` or `UTC`; not `GMT+5`, `Etc/GMT-1`, `EST`.
    private static func isRegionOrUTC(_ name: String) -> Bool {
        name == "UTC" || name == "Etc/UTC"
            || (name.contains("/") && !name.hasPrefix("Etc/") && !name.hasPrefix("SystemV/"))
    }

    /// `caFile`, else `ROUNDUP_CA_FILE`, else libcurl's and OpenSSL's usual `CURL_CA_BUNDLE`
    /// and `SSL_CERT_FILE`; it must be readable.
    private static func caFile(file: ConfigFile, environment env: (String) -> String?, locations: Locations)
        throws(SettingsError) -> String?
    {
        let choices: [(String?, String, SettingsError.Origin)] = [
            (file.caFile, "caFile", .file), (env("ROUNDUP_CA_FILE"), "ROUNDUP_CA_FILE", .environment),
            (env("CURL_CA_BUNDLE"), "CURL_CA_BUNDLE", .environment),
            (env("SSL_CERT_FILE"), "SSL_CERT_FILE", .environment),
        ]
        guard let (value, name, origin) = choices.first(where: { $0.0 != nil }), let value else { return nil }
        let path = locations.expand(value)
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw SettingsError(
                origin: origin, message: "\(name): the certificate authorities file \(path) cannot be read")
        }
        return path
    }

    /// The proxy for `baseURL`: none for a bank on this machine (a token sent over plain
    /// http must not pass through anything), else `https_proxy`, `HTTPS_PROXY`, `all_proxy`
    /// or `ALL_PROXY` unless `no_proxy` (or `NO_PROXY`) names the bank's host.
    static func proxy(for baseURL: String, environment env: (String) -> String?) -> String {
        guard let host = URLComponents(string: baseURL)?.host?.lowercased(), !isLoopback(host),
            baseURL.lowercased().hasPrefix("https:")
        else { return "" }
        let bypass = (env("no_proxy") ?? env("NO_PROXY") ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        for entry in bypass where !entry.isEmpty {
            let name = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            if entry == "*" || host == name || host.hasSuffix("." + name) { return "" }
        }
        return env("https_proxy") ?? env("HTTPS_PROXY") ?? env("all_proxy") ?? env("ALL_PROXY") ?? ""
    }

    /// Plain http is allowed only to this machine; anything else must be https.
    static func checkBaseURL(_ text: String, origin: SettingsError.Origin) throws(SettingsError) {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else {
            throw SettingsError(origin: origin, message: "API base URL '\(text)' is not a URL like \(productionURL)")
        }
        switch scheme {
        case "https":
            return
        case "http" where isLoopback(host):
            return
        case "http":
            throw SettingsError(
                origin: origin,
                message: "API base URL '\(text)': https is required (plain http is allowed only to a loopback host)")
        default:
            throw SettingsError(origin: origin, message: "API base URL '\(text)' must start with https://")
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
