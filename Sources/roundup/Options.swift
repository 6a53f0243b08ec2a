import ArgumentParser
import Foundation
import Logging
import RoundUpJob
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

/// A command that may take the state directory's lock: `run`, `check`, `resolve`.
enum KeepsTheLock: StateDirectoryUse {
    static let help = "Where the ledger and lock live."
}

/// A command that only reads the ledger: `history`, `status`.
enum ReadsTheLedger: StateDirectoryUse {
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
    @OptionGroup var stateDirectory: StateDirectoryOption<ReadsTheLedger>

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

    @OptionGroup var stateDirectory: StateDirectoryOption<KeepsTheLock>

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
/// renamed flag is followed here too. Words no group knows are passed over; a shell's `;`,
/// `&` or `|` ends the command.
struct SettingFlagScan: ParsableArguments {
    @OptionGroup var settings: SettingOptions
    @OptionGroup var files: RunFileOptions
    @Argument(parsing: .allUnrecognized) var others: [String] = []

    static func flags(in words: [String]) -> SettingFlags {
        var words = Array(words.prefix { $0 != ";" && $0 != "&" && $0 != "|" })
        // A flag left without its value at the end is dropped, so the ones before it still count.
        while !words.isEmpty {
            if let scan = try? parse(words) { return scan.settings.flags(scan.files) }
            words.removeLast()
        }
        return SettingFlags()
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
