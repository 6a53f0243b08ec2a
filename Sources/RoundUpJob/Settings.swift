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
    public var policy: RoundUpPolicy
    /// Balances the week's transfer must not cut into, by currency code.
    public var minimumBalances: [String: MinimumBalance]
    /// How many requests may be in flight at once.
    public var concurrency: Int
    /// How long a second run waits for a running one before giving up.
    public var lockWait: Duration
    /// How failed requests are tried again.
    public var retryPolicy: RetryPolicy
    /// How long one request may take before it counts as timed out (and is retried).
    public var requestTimeout: Duration

    public static let productionURL = "https://api.starlingbank.com"
    public static let sandboxURL = "https://api-sandbox.starlingbank.com"
    public static let defaultGoalName = "Round-ups"
}

/// Settings given on the command line; nil where a flag was not given.
public struct SettingFlags: Sendable {
    public var configFile: String?
    public var apiBaseURL: String?
    public var savingsGoal: String?
    public var stateDirectory: String?
    public var reportDirectory: String?

    public init(configFile: String? = nil, apiBaseURL: String? = nil, savingsGoal: String? = nil,
                stateDirectory: String? = nil, reportDirectory: String? = nil) {
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

extension Settings {
    /// Resolves the settings. `configText` is the config file's contents, when there is one.
    public static func resolve(
        flags: SettingFlags, environment: [String: String], configText: String?, configPath: String?
    ) throws(SettingsError) -> Settings {
        let file: ConfigFile
        if let configText {
            file = try ConfigFile.parse(configText, path: configPath ?? "the config file")
        } else {
            file = ConfigFile()
        }
        func env(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }

        let home = env("HOME") ?? "/root"
        let stateHome = env("XDG_STATE_HOME") ?? "\(home)/.local/state"
        let stateDirectory = expand(
            flags.stateDirectory ?? env("ROUNDUP_STATE_DIR") ?? file.stateDir ?? "\(stateHome)/roundup", home: home)
        let reportDirectory = expand(
            flags.reportDirectory ?? env("ROUNDUP_REPORT_DIR") ?? file.reportDir ?? "\(stateDirectory)/reports",
            home: home)

        let baseURL: String
        let baseOrigin: SettingsError.Origin
        if let flag = flags.apiBaseURL {
            (baseURL, baseOrigin) = (flag, .flag)
        } else if let value = env("ROUNDUP_API_BASE_URL") {
            (baseURL, baseOrigin) = (value, .environment)
        } else if let value = file.apiBaseURL {
            (baseURL, baseOrigin) = (value, .file)
        } else {
            (baseURL, baseOrigin) = (file.sandbox == true ? sandboxURL : productionURL, .file)
        }
        try checkBaseURL(baseURL, origin: baseOrigin)

        let zoneName = env("ROUNDUP_TIME_ZONE") ?? file.timeZone ?? "Europe/London"
        guard let timeZone = TimeZone(identifier: zoneName) else {
            throw SettingsError(
                origin: env("ROUNDUP_TIME_ZONE") != nil ? .environment : .file,
                message: "time zone '\(zoneName)' is not a known IANA zone such as Europe/London")
        }

        let goalName = flags.savingsGoal ?? env("ROUNDUP_SAVINGS_GOAL") ?? file.savingsGoal ?? defaultGoalName
        guard !goalName.trimmingCharacters(in: .whitespaces).isEmpty, goalName.count <= 255 else {
            throw SettingsError(origin: flags.savingsGoal != nil ? .flag : .file,
                                message: "the savings goal name must have 1 to 255 characters")
        }

        /// Amounts by currency code, each an ISO 4217 code and an amount that currency can hold.
        func amounts(_ key: String, _ written: [String: ExactAmount]?) throws(SettingsError) -> [String: Money] {
            var result: [String: Money] = [:]
            for (code, amount) in (written ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard let currency = Currency(code: code) else {
                    throw SettingsError(origin: .file, message: "\(key): '\(code)' is not an ISO 4217 currency code")
                }
                do {
                    result[code] = try Money(amount: amount.value, currency: currency)
                } catch {
                    throw SettingsError(origin: .file, message: "\(key) for \(code): \(error.description)")
                }
            }
            return result
        }
        let weeklyCaps = try amounts("weeklyCap", file.weeklyCap)
        let newGoalTargets = try amounts("newGoalTarget", file.newGoalTarget)
        let minimums = try amounts("minimumBalance", file.minimumBalance)
        let policy: RoundUpPolicy
        do {
            policy = try RoundUpPolicy(
                multiplier: file.multiplier ?? 1, weeklyCaps: weeklyCaps.mapValues(\.amount),
                wholeAmountsSaveAUnit: file.wholeAmountsSaveAUnit ?? false)
        } catch {
            throw SettingsError(origin: .file, message: error.description)
        }
        var whenBelow = BelowMinimum.reduce
        if let text = file.belowMinimumBalance {
            guard let value = BelowMinimum(rawValue: text) else {
                throw SettingsError(
                    origin: .file, message: "belowMinimumBalance must be 'reduce' or 'skip', not '\(text)'")
            }
            whenBelow = value
        }
        func bounded(_ value: Int?, _ key: String, _ range: ClosedRange<Int>) throws(SettingsError) -> Int? {
            guard let value else { return nil }
            guard range.contains(value) else {
                throw SettingsError(
                    origin: .file,
                    message: "\(key) must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
            }
            return value
        }
        let concurrency = try bounded(file.concurrency, "concurrency", 1...32) ?? 4
        let standard = RetryPolicy.standard
        let retryPolicy = RetryPolicy(
            maxAttempts: try bounded(file.retryAttempts, "retryAttempts", 1...20) ?? standard.maxAttempts,
            initialDelay: try bounded(file.retryFirstDelayMilliseconds, "retryFirstDelayMilliseconds", 0...60_000)
                .map { .milliseconds($0) } ?? standard.initialDelay,
            maxDelay: try bounded(file.retryMaxDelaySeconds, "retryMaxDelaySeconds", 0...3600)
                .map { .seconds($0) } ?? standard.maxDelay,
            maxRetryAfter: try bounded(file.retryAfterLimitSeconds, "retryAfterLimitSeconds", 0...3600)
                .map { .seconds($0) } ?? standard.maxRetryAfter,
            runRetries: standard.runRetries, runWait: standard.runWait)
        let requestTimeout = try bounded(file.requestTimeoutSeconds, "requestTimeoutSeconds", 1...600) ?? 60
        let lockWait = try bounded(file.lockWaitSeconds, "lockWaitSeconds", 0...3600) ?? 10
        return Settings(
            apiBaseURL: baseURL, timeZone: timeZone, savingsGoalName: goalName, goalUids: file.goals ?? [:],
            newGoalTargets: newGoalTargets, stateDirectory: stateDirectory,
            reportDirectory: reportDirectory,
            tokenFile: (env("ROUNDUP_TOKEN_FILE") ?? file.tokenFile).map { expand($0, home: home) },
            rule: SelectionRule(
                excludedSources: Set(file.excludeSources ?? []),
                excludedSpendingCategories: Set(file.excludeSpendingCategories ?? [])),
            policy: policy,
            minimumBalances: minimums.mapValues { MinimumBalance(minimum: $0, whenBelow: whenBelow) },
            concurrency: concurrency, lockWait: .seconds(lockWait), retryPolicy: retryPolicy,
            requestTimeout: .seconds(requestTimeout))
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

    static func expand(_ path: String, home: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst(1) }
        return path
    }
}

/// The config file as written. Every key is optional; an unknown key is an error, so a
/// misspelt setting is never silently ignored.
struct ConfigFile: Decodable {
    var apiBaseURL: String?
    var sandbox: Bool?
    var tokenFile: String?
    var timeZone: String?
    var savingsGoal: String?
    var goals: [String: String]?
    var newGoalTarget: [String: ExactAmount]?
    var stateDir: String?
    var reportDir: String?
    var multiplier: Int?
    var weeklyCap: [String: ExactAmount]?
    var excludeSources: [String]?
    var excludeSpendingCategories: [String]?
    var wholeAmountsSaveAUnit: Bool?
    var minimumBalance: [String: ExactAmount]?
    var belowMinimumBalance: String?
    var concurrency: Int?
    var lockWaitSeconds: Int?
    var retryAttempts: Int?
    var retryFirstDelayMilliseconds: Int?
    var retryMaxDelaySeconds: Int?
    var retryAfterLimitSeconds: Int?
    var requestTimeoutSeconds: Int?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case apiBaseURL, sandbox, tokenFile, timeZone, savingsGoal, goals, newGoalTarget, stateDir, reportDir
        case multiplier, weeklyCap, excludeSources, excludeSpendingCategories, wholeAmountsSaveAUnit
        case minimumBalance, belowMinimumBalance, concurrency, lockWaitSeconds
        case retryAttempts, retryFirstDelayMilliseconds, retryMaxDelaySeconds, retryAfterLimitSeconds
        case requestTimeoutSeconds
    }

    init() {}

    static func parse(_ text: String, path: String) throws(SettingsError) -> ConfigFile {
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch {
            throw SettingsError(origin: .file, message: "\(path) is not valid YAML: \(error)")
        }
        guard let node else { return ConfigFile() }
        guard let mapping = node.mapping else {
            throw SettingsError(origin: .file, message: "\(path) must be a mapping of settings (key: value)")
        }
        let known = Set(CodingKeys.allCases.map(\.rawValue))
        for key in mapping.keys {
            let name = key.string ?? "\(key)"
            guard known.contains(name) else {
                let hint = known.min { distance($0, name) < distance($1, name) }
                    .flatMap { distance($0, name) <= 3 ? " (did you mean '\($0)'?)" : nil } ?? ""
                throw SettingsError(origin: .file, message: "\(path): unknown setting '\(name)'\(hint)")
            }
        }
        do {
            return try YAMLDecoder().decode(ConfigFile.self, from: node)
        } catch let error as DecodingError {
            throw SettingsError(origin: .file, message: "\(path): \(describe(error))")
        } catch {
            throw SettingsError(origin: .file, message: "\(path): \(error)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func name(_ path: [any CodingKey]) -> String { path.map(\.stringValue).joined(separator: ".") }
        switch error {
        case .typeMismatch(let type, let context):
            return "'\(name(context.codingPath))' must be \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "'\(name(context.codingPath))' must be \(typeName(type)), not empty"
        case .dataCorrupted(let context):
            return "'\(name(context.codingPath))': \(context.debugDescription)"
        case .keyNotFound(let key, _):
            return "'\(key.stringValue)' is missing"
        @unknown default:
            return "\(error)"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: "a whole number"
        case is Bool.Type: "true or false"
        case is String.Type: "text"
        case is ExactAmount.Type: "an amount such as 20 or 12.50"
        case is [String].Type: "a list"
        default:
            if type == [String: String].self || type == [String: ExactAmount].self || "\(type)".hasSuffix("Mapping") {
                "a mapping (key: value on lines of their own)"
            } else if "\(type)".hasSuffix("Scalar") {
                "a single value, not a list or a mapping"
            } else if "\(type)".hasSuffix("Sequence") {
                "a list"
            } else {
                "a value of another kind"
            }
        }
    }

    /// Edit distance, for suggesting the setting a typo meant.
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}

/// An amount of money written in a config file, read from its text so that `12.10` is
/// exactly 12.10 and never a binary fraction near it.
struct ExactAmount: Decodable {
    let value: Decimal

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self).trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not an amount such as 20 or 12.50")
        }
        self.value = value
    }
}
