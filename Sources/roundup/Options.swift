import ArgumentParser
import Foundation
import Logging
import RoundUp
import RoundUpHost
import RoundUpOutput
import RoundUpReports
import RoundUpVocabulary

/// `--config`, declared once for every command that reads the settings.
struct ConfigOption: ParsableArguments {
    @Option(
        help: ArgumentHelp("Config file (YAML).", valueName: "file"), completion: .file(extensions: ["yaml", "yml"]))
    var config: String?
}

/// What a command does in the state directory, as `--state-dir`'s help says it.
protocol StateDirectoryUse {
    static var help: String { get }
}

/// The commands that work with the bank (`run`, `check`, `resolve`): their help names the
/// lock too, which a real run and `resolve` take there.
enum LedgerAndLock: StateDirectoryUse {
    static let help = "Where the ledger and lock live."
}

/// The commands that only read the ledger: `history`, `status`.
enum LedgerOnly: StateDirectoryUse {
    static let help = "Where the ledger lives."
}

/// `--state-dir`, declared once for every command that finds the ledger.
struct StateDirectoryOption<Use: StateDirectoryUse>: ParsableArguments {
    @Option(help: ArgumentHelp(Use.help, valueName: "dir"), completion: .directory)
    var stateDir: String?
}

/// `--config` and `--state-dir`, for the commands that only read the ledger.
struct LocationOptions: ParsableArguments {
    @OptionGroup var configFile: ConfigOption
    @OptionGroup var stateDirectory: StateDirectoryOption<LedgerOnly>

    var config: String? { configFile.config }
    var stateDir: String? { stateDirectory.stateDir }
    var flags: SettingFlags { SettingFlags(configFile: config, stateDirectory: stateDir) }
}

/// Where settings come from and the ones with flags, shared by `run`, `check` and `resolve`.
struct SettingOptions: ParsableArguments {
    @OptionGroup var configFile: ConfigOption

    @Option(help: ArgumentHelp("The bank's API base URL.", valueName: "url"))
    var apiBaseURL: String?

    @Option(help: ArgumentHelp("Name of the savings goal to save into (default Round-ups).", valueName: "name"))
    var savingsGoal: String?

    @OptionGroup var stateDirectory: StateDirectoryOption<LedgerAndLock>

    var config: String? { configFile.config }
    var stateDir: String? { stateDirectory.stateDir }

    /// The settings these flags give, and a run's `files` (none for `check` and `resolve`).
    func flags(_ files: RunFileOptions? = nil) -> SettingFlags {
        SettingFlags(
            configFile: config, apiBaseURL: apiBaseURL, savingsGoal: savingsGoal, stateDirectory: stateDir,
            reportDirectory: files?.reportDir, metricsFile: files?.metricsFile)
    }
}

/// Where a run writes besides the ledger: its reports and its metrics.
struct RunFileOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Where reports are written.", valueName: "dir"), completion: .directory)
    var reportDir: String?

    @Option(
        help: ArgumentHelp(
            "Write the run's metrics here for node_exporter's textfile collector (a .prom file; metricsFile in "
                + "the config).", valueName: "file"), completion: .file(extensions: ["prom"]))
    var metricsFile: String?
}

/// The setting flags of a command line that cannot be parsed whole (a crontab's line, a run
/// whose other flags are wrong), read by the same option groups that `run` declares, so a
/// renamed flag is followed here too. A setting flag takes the word after it as its value,
/// whatever that word is (`--savings-goal -x`, `--config --quiet`), and one at the very end
/// has none; every other word is passed over, help and `--` included; a shell's `;`, `&`
/// or `|` ends the command.
struct SettingFlagScan: ParsableArguments {
    @OptionGroup var settings: SettingOptions
    @OptionGroup var files: RunFileOptions
    @Argument(parsing: .allUnrecognized) var others: [String] = []

    /// The setting flags' names, as the groups declare them (read off their help).
    static let names: Set<String> = Set(
        helpMessage(columns: 1000).split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count > 1, words[0].hasPrefix("--"), words[1].hasPrefix("<") else { return nil }
            return String(words[0])
        })

    /// The `SettingFlags` value each setting flag gives, found by letting the parser read
    /// the flag alone with a marker for its value: a flag renamed in its group is followed.
    static var values: [String: WritableKeyPath<SettingFlags, String?>] {
        let marker = "roundup-setting-flag-scan"
        return Dictionary(
            uniqueKeysWithValues: names.compactMap { name in
                guard let scan = try? parse(["\(name)=\(marker)"]) else { return nil }
                let flags = scan.settings.flags(scan.files)
                return SettingFlags.values.first { flags[keyPath: $0] == marker }.map { (name, $0) }
            })
    }

    /// The setting flags among `words`: `--name value` and `--name=value`, the value being
    /// the next word whatever it looks like, even empty or a shell's `;`; a flag given
    /// twice counts as given last, and one with no value left clears it. Any other word is
    /// passed over, and a shell's `;`, `&` or `|` ends the command.
    static func flags(in words: [String]) -> SettingFlags {
        let values = values
        var flags = SettingFlags()
        var words = words[...]
        while let word = words.popFirst() {
            guard word != ";", word != "&", word != "|" else { break }
            let (name, inline) =
                word.hasPrefix("--") && word.contains("=")
                ? (String(word.prefix { $0 != "=" }), String(word.drop { $0 != "=" }.dropFirst())) : (word, nil)
            guard let value = values[name] else { continue }
            flags[keyPath: value] = inline ?? words.popFirst()
        }
        return flags
    }
}

/// Options shared by `run` and `demo`.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the report as JSON instead of the summary.")
    var json = false

    @OptionGroup var logging: LoggingOptions

    @OptionGroup var colour: ColourOptions

    var style: TextStyle { colour.style }
}

/// `--verbose` and `--log-level`, for every command that talks to the bank.
struct LoggingOptions: ParsableArguments {
    @Flag(help: "Log each step on stderr (the same as --log-level info).")
    var verbose = false

    @Option(
        help: ArgumentHelp(
            "Log at this level and above on stderr: debug adds one line per HTTP request; default warning, or "
                + "ROUNDUP_LOG_LEVEL.",
            valueName: "level"))
    var logLevel: LogLevel?

    func validate() throws {
        if logLevel == nil, let text = Composition.live.environment.nonEmpty("ROUNDUP_LOG_LEVEL"),
            LogLevel(rawValue: text) == nil
        {
            throw ValidationError(
                "ROUNDUP_LOG_LEVEL '\(text)' is not one of \(LogLevel.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
    }

    var level: Logger.Level {
        if let logLevel { return logLevel.level }
        if verbose { return .info }
        let environment = Composition.live.environment["ROUNDUP_LOG_LEVEL"] ?? ""
        return LogLevel(rawValue: environment)?.level ?? .warning
    }

    var logger: Logger { makeLogger(level: level) }
}

/// The levels `--log-level` takes.
enum LogLevel: String, ExpressibleByArgument, CaseIterable {
    case trace, debug, info, notice, warning, error, critical

    var level: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}

/// `--color`, for every command that prints tables.
struct ColourOptions: ParsableArguments {
    @Option(
        name: .customLong("color"),
        help: ArgumentHelp(
            "Colour the summary: auto (only on a terminal, and not when NO_COLOR is set), always or never.",
            valueName: "when"))
    var choice: ColourChoice = .auto

    /// The style for stdout.
    var style: TextStyle {
        TextStyle.choose(
            choice.choice, isTerminal: isatty(STDOUT_FILENO) == 1, environment: Composition.live.environment)
    }
}

/// `--color auto|always|never`.
enum ColourChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never

    var choice: TextStyle.Choice {
        switch self {
        case .auto: .auto
        case .always: .always
        case .never: .never
        }
    }
}

func makeLogger(level: Logger.Level) -> Logger {
    var logger = Logger(label: "roundup") { label in PrintableLogHandler(StreamLogHandler.standardError(label: label)) }
    logger.logLevel = level
    return logger
}

/// `--since` and `--year`: the weeks a reading of the ledger keeps (`history`, `export`).
struct PeriodOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp("Only weeks that ended on or after this day.", valueName: "YYYY-MM-DD"),
        transform: LocalDate.fromArgument)
    var since: LocalDate?

    @Option(help: ArgumentHelp("Only weeks that ended in this year.", valueName: "YYYY"))
    var year: Int?

    func validate() throws {
        if let year, !LocalDate.arguableYears.contains(year) {
            throw ValidationError(
                "--year takes a year from \(LocalDate.arguableYears.lowerBound) to "
                    + "\(LocalDate.arguableYears.upperBound), not \(year)")
        }
    }
}
