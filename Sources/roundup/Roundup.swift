import ArgumentParser
import Foundation
import Logging
import RoundUp
import RoundUpJob
import RoundUpOutput
import RoundUpReports
import RoundUpVocabulary

@main
struct Roundup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roundup",
        abstract: "Rounds up a week of card spending and moves the spare change into a Starling savings goal.",
        discussion: """
            Start with `roundup demo`: the real job against a local emulator of the bank.

            Examples:
              roundup demo                 # see the whole job work, against the emulator
              roundup check                # is the config, the token and each goal ready?
              roundup run --dry-run        # what last week would move; moves nothing
              roundup run --catch-up       # what cron and systemd run every Monday
              roundup history              # what has been saved, week by week
              roundup resolve              # weeks held for a person, and how to settle them

            Exit codes: 0 ok, 64 usage, 65 bad data from the bank, 69 bank unavailable, 74 output could not \
            be written, 75 temporary (try again), 77 token rejected or missing scopes, 78 bad configuration \
            or a week held for a person (roundup resolve).
            """,
        version: roundupVersion,
        subcommands: [
            Run.self, CheckCommand.self, StatusCommand.self, HistoryCommand.self, ResolveCommand.self, Demo.self,
            Emulator.self, ManualSections.self,
        ]
    )

    /// Parses and runs the command. A `roundup run` whose flags cannot be parsed (a typo in
    /// the crontab's line) is recorded and told to the monitor as a failed run when no person
    /// typed it (`Composition.recordUnparsedRun`), as the mistakes found after parsing are.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            if !(error is ExitCode), exitCode(for: error).rawValue == ExitStatus.usage.rawValue {
                await Composition.live.recordUnparsedRun(
                    message(for: error), arguments: Array(CommandLine.arguments.dropFirst()))
            }
            exit(withError: error)
        }
    }

    /// A bare `roundup` moves no money: it shows the help and exits 64. Moving money always
    /// takes `roundup run`.
    func run() async throws {
        _ = writeAll(STDERR_FILENO, Self.helpMessage() + "\n")
        throw ExitCode(ExitStatus.usage.rawValue)
    }
}

/// Where settings come from and the ones with flags, shared by `run` and `check`.
struct SettingOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp("Config file (YAML).", valueName: "file"), completion: .file(extensions: ["yaml", "yml"]))
    var config: String?

    @Option(help: ArgumentHelp("The bank's API base URL.", valueName: "url"))
    var apiBaseURL: String?

    @Option(help: ArgumentHelp("Name of the savings goal to save into (default Round-ups).", valueName: "name"))
    var savingsGoal: String?

    @Option(help: ArgumentHelp("Where the ledger and lock live.", valueName: "dir"), completion: .directory)
    var stateDir: String?

    func flags(reportDirectory: String? = nil) -> SettingFlags {
        SettingFlags(
            configFile: config, apiBaseURL: apiBaseURL, savingsGoal: savingsGoal, stateDirectory: stateDir,
            reportDirectory: reportDirectory)
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
