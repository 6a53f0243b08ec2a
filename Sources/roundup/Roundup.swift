import ArgumentParser
import Foundation
import Logging
import RoundUp
import RoundUpCommands
import RoundUpOutput
import RoundUpReports
import RoundUpVocabulary

@main
struct Roundup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roundup",
        abstract: "Rounds up a week of spending and moves the spare change into a Starling savings goal.",
        discussion: """
            Start with `roundup demo`: the real job against a local emulator of the bank.

            Every settled payment out of an account's main balance counts (spending: all, the default): \
            card payments, cash withdrawals, direct debits, transfers to others and bank fees; each report \
            says where each payment came from. For card payments only, set spending: cards in the config.

            Each account's week ends in one state, and the summary, the Markdown report, history, status \
            and resolve give it the same word: \(WeekFate.allCases.map(\.word).joined(separator: ", ")). \
            "Held back" means the balance kept the round-up and the week is settled; "held" means the week \
            waits for a person (roundup resolve). man roundup explains each.

            Examples:
              roundup demo                 # see the whole job work, against the emulator
              roundup check                # is the config, the token and each goal ready?
              roundup run --dry-run        # what last week would move; moves nothing
              roundup run --catch-up       # what cron and systemd run every Monday
              roundup history              # what has been saved, week by week
              roundup resolve              # held and unconfirmed weeks, and how to settle

            Exit codes: 0 ok, 64 usage, 65 bad data from the bank, 69 bank unavailable, 74 output could not \
            be written, 75 temporary (try again), 77 token rejected or missing scopes, 78 bad configuration \
            or a week held for a person (roundup resolve).
            """,
        version: roundupVersion,
        subcommands: [
            Run.self, Check.self, Status.self, History.self, Export.self, Resolve.self, Tell.self, Demo.self,
            Emulator.self,
            ManualSections.self,
        ]
    )

    /// Parses and runs the command. A `roundup run` whose flags cannot be parsed (a typo in
    /// the crontab's line) is recorded and told to the monitor as a failed run when no person
    /// typed it (`Composition.recordUnparsedRun`), as the mistakes found after parsing are.
    static func main() async {
        reserveStandardStreams()
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            let arguments = Array(CommandLine.arguments.dropFirst())
            if !(error is ExitCode), exitCode(for: error).rawValue == ExitStatus.usage.rawValue {
                await Composition.live.recordUnparsedRun(message(for: error), arguments: arguments)
            }
            // The parser quotes the words it could not take: a token typed among them by
            // mistake is said as `<redacted>`.
            let said = fullMessage(for: error)
            if exitCode(for: error) != .success, !said.isEmpty,
                let token = Composition.live.surroundings.token(for: SettingFlagScan.flags(in: arguments)),
                case let redacted = token.redacted(in: said), redacted != said
            {
                _ = writeAll(STDERR_FILENO, redacted + "\n")
                Foundation.exit(exitCode(for: error).rawValue)
            }
            exit(withError: error)
        }
    }

    /// A standard stream the process was started without (`>&-`) is opened on /dev/null the
    /// wrong way round before anything else opens a file, so that no file of the run takes
    /// its number and receives its output, and writing to it fails (74, "Bad file
    /// descriptor") as it would have.
    static func reserveStandardStreams() {
        for stream in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(stream, F_GETFD) == -1 && errno == EBADF
        {
            let opened = open("/dev/null", stream == STDIN_FILENO ? O_WRONLY : O_RDONLY)
            if opened >= 0, opened != stream {
                dup2(opened, stream)
                close(opened)
            }
        }
    }

    /// A bare `roundup` moves no money: it shows the help and exits 64. Moving money always
    /// takes `roundup run`.
    func run() async throws {
        _ = writeAll(STDERR_FILENO, Self.helpMessage() + "\n")
        throw ExitCode(ExitStatus.usage.rawValue)
    }
}
