import Foundation
import RoundUpOutput
public import RoundUpVocabulary

/// Everything a run is told, in groups, each resolved on its own from flags, then
/// `ROUNDUP_…` environment variables, then the config file, then defaults. Holds no
/// secret: the token is read separately.
public struct Settings: Sendable {
    /// Where the bank is and how it is talked to.
    public var bank: BankSettings
    /// Which payments count and how much of their round-up moves.
    public var rules: RuleSettings
    /// Which goal each account saves into.
    public var goals: GoalSettings
    /// Where the ledger and the reports are.
    public var state: StateSettings
    /// Who hears of each real run.
    public var watch: WatchSettings
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

    /// The values that are paths.
    public static var paths: [WritableKeyPath<SettingFlags, String?>] {
        [\.configFile, \.stateDirectory, \.reportDirectory, \.metricsFile]
    }

    /// Each of the values, for a reader that finds them by flag name.
    public static var values: [WritableKeyPath<SettingFlags, String?>] {
        [\.configFile, \.apiBaseURL, \.savingsGoal, \.stateDirectory, \.reportDirectory, \.metricsFile]
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
    /// Whether the problem is this machine's, not a setting's: its time zone data. `check`
    /// then names no config file as its cause.
    public var ofTheMachine = false

    public var description: String { message }

    /// A bad flag is a usage error; anything else is bad configuration.
    public var exitStatus: ExitStatus { origin == .flag ? .usage : .configuration }
}

/// Settings and the config file they were read from, if any.
public struct LoadedSettings: Sendable {
    public var settings: Settings
    public var configPath: String?
}

/// Where a setting's value may come from, in the order they win: a flag, the environment,
/// the config file. Each group's resolver asks it for the settings of its own.
package struct SettingSources {
    let flags: SettingFlags
    let file: ConfigFile
    package let variables: [String: String]
    let locations: Locations

    /// The environment variable `name`; an empty one counts as unset.
    func environment(_ name: String) -> String? { variables.nonEmpty(name) }

    /// The flag's, else the environment variable `variable`'s, else the file's value, with
    /// where it came from; nil when none is given.
    func first(flag: String? = nil, environment variable: String? = nil, file: String?)
        -> (value: String, origin: SettingsError.Origin)?
    {
        if let flag { return (flag, .flag) }
        if let variable, let value = environment(variable) { return (value, .environment) }
        return file.map { ($0, .file) }
    }
}

extension [String: String] {
    /// The value of `name`, or nil when it is unset or empty: an empty environment variable
    /// is taken as unset everywhere.
    public func nonEmpty(_ name: String) -> String? { self[name].flatMap { $0.isEmpty ? nil : $0 } }
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

    /// Where the config file was looked for, in words for `roundup check`: the file
    /// `--config` or `ROUNDUP_CONFIG` names, else the one default place,
    /// `$XDG_CONFIG_HOME/roundup/config.yaml` (`~/.config/roundup/config.yaml`).
    public static func configSearch(flags: SettingFlags, environment: [String: String], locations: Locations)
        -> (path: String?, why: String)
    {
        if let named = flags.configFile { return (named, "named by --config") }
        if let named = environment.nonEmpty("ROUNDUP_CONFIG") { return (named, "named by ROUNDUP_CONFIG") }
        let rule = environment.nonEmpty("XDG_CONFIG_HOME")?.hasPrefix("/") == true ? "$XDG_CONFIG_HOME" : "~/.config"
        guard let standard = locations.configFile else {
            return (nil, "there is no default place, as neither HOME nor XDG_CONFIG_HOME is set")
        }
        return (
            standard,
            "the one default place, \(rule)/roundup/config.yaml, as neither --config nor ROUNDUP_CONFIG is set"
        )
    }

    /// Where the state directory comes from, in words for `roundup check`.
    public static func stateSearch(
        flags: SettingFlags, environment: [String: String], directory: String, locations: Locations
    ) -> String {
        if flags.stateDirectory != nil { return "named by --state-dir" }
        if environment.nonEmpty("ROUNDUP_STATE_DIR") != nil { return "named by ROUNDUP_STATE_DIR" }
        if directory != locations.stateDirectory { return "named by stateDir in the config" }
        let rule = environment.nonEmpty("XDG_STATE_HOME")?.hasPrefix("/") == true ? "$XDG_STATE_HOME" : "~/.local/state"
        return "the default, \(rule)/roundup"
    }

    /// The config file's text and path: `--config`, else `ROUNDUP_CONFIG`, else the default
    /// config file when it exists.
    static func configFile(flags: SettingFlags, environment: [String: String], locations: Locations)
        throws(SettingsError) -> (String?, String?)
    {
        let path: String
        if let explicit = flags.configFile ?? environment.nonEmpty("ROUNDUP_CONFIG") {
            path = explicit
        } else {
            guard let standard = locations.configFile, FileManager.default.fileExists(atPath: standard) else {
                return (nil, nil)
            }
            path = standard
        }
        let text = try readConfig(path, origin: flags.configFile != nil ? .flag : .environment)
        return (text, path)
    }

    /// The most of a config file that is read: a config is a few kilobytes.
    static let configFileLimit = 1024 * 1024

    /// The text of the config file at `path`, once it is known that no other user could
    /// have written it (`TrustedFile`): whoever can rewrite the config can point
    /// `apiBaseURL` at a listener of theirs, which would then be sent the token. `origin`
    /// is where the path came from, for a file that cannot be opened at all.
    static func readConfig(_ path: String, origin: SettingsError.Origin) throws(SettingsError) -> String {
        switch TrustedFile.read("the config file", at: path, limit: configFileLimit) {
        case .failure(.unopenable):
            throw SettingsError(origin: origin, message: "cannot read the config file \(path)")
        case .failure(.notPlain):
            throw SettingsError(origin: .file, message: "the config file \(path) is not a plain file")
        case .failure(.refused(let why)):
            throw SettingsError(origin: .file, message: why)
        case .failure(.tooLarge(let size)):
            throw SettingsError(
                origin: .file,
                message: "the config file \(path) holds \(size) bytes, more than the \(configFileLimit / 1024) KiB a "
                    + "config file may; is it the right file?")
        case .failure(.unreadable(let why)):
            throw SettingsError(origin: .file, message: "cannot read the config file \(path): \(why)")
        case .success(let bytes):
            guard let text = String(bytes: bytes, encoding: .utf8) else {
                throw SettingsError(origin: .file, message: "the config file \(path) is not UTF-8 text")
            }
            return text
        }
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
        let sources = SettingSources(flags: flags, file: file, variables: environment, locations: locations)
        let bank = try BankSettings.resolve(sources)
        return Settings(
            bank: bank, rules: try RuleSettings.resolve(sources), goals: try GoalSettings.resolve(sources),
            state: try StateSettings.resolve(sources), watch: try WatchSettings.resolve(sources, caFile: bank.caFile))
    }
}
