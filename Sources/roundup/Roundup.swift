import ArgumentParser
import Foundation
import Logging
import RoundUp
import RoundUpJob

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

            Exit codes: 0 ok, 64 usage, 65 bad data from the bank, 69 bank unavailable, \
            75 temporary (try again), 77 token rejected or missing scopes, 78 bad configuration.
            """,
        version: roundupVersion,
        subcommands: [Run.self, CheckCommand.self, HistoryCommand.self, Demo.self, Emulator.self],
        defaultSubcommand: Run.self
    )
}

/// Where settings come from and the ones with flags, shared by `run` and `check`.
struct SettingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Config file (YAML).", valueName: "file"), completion: .file(extensions: ["yaml", "yml"]))
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

    @Flag(help: "Log each step on stderr.")
    var verbose = false

    @OptionGroup var colour: ColourOptions

    var style: TextStyle { colour.style }
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
            choice.choice, isTerminal: isatty(STDOUT_FILENO) == 1, environment: ProcessInfo.processInfo.environment)
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

func makeLogger(verbose: Bool) -> Logger {
    var logger = Logger(label: "roundup") { label in StreamLogHandler.standardError(label: label) }
    logger.logLevel = verbose ? .info : .warning
    return logger
}

/// Prints a finished run and exits with its status.
func finish(_ result: RunResult) throws -> Never {
    for line in result.diagnostics {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
    FileHandle.standardOutput.write(Data(result.output.utf8))
    throw ExitCode(result.status.rawValue)
}
