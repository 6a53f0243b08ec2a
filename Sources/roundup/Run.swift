import ArgumentParser
import Foundation
import RoundUp
import RoundUpCommands
import RoundUpHost

extension Roundup {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Round up a finished week and move the sum into each account's savings goal.",
            discussion: """
                The token comes from STARLING_ACCESS_TOKEN, the systemd credential starling-token, or tokenFile in the config \
                file; it is never a flag.
                Settings come from flags, then ROUNDUP_* environment variables, then the config file, then defaults.

                The week: 7 local days in timeZone (default Europe/London). Scheduled weeks end on weekEndsOn (default \
                sunday): a plain run, on any day, rounds up the newest finished one. --end-date chooses any 7 days \
                instead, ending on any day: it rounds up the payments no earlier week counted, and never moves the \
                schedule. Every payment a week counted is kept in the ledger and never counted again, whatever the \
                window. A scheduled week that follows another starts where that one ended when the two lie within 26 \
                hours (after a change of timeZone), and the report says it was stretched or shortened.

                Examples:
                  roundup run                          # last week, Monday to Sunday
                  roundup run --end-date 2026-11-15    # the week 2026-11-09 to 2026-11-15
                  roundup run --end-date 2026-11-18    # any 7 days: payments not counted yet
                  roundup run --dry-run                # show what would move, move nothing
                  roundup run --catch-up               # and any weeks missed before it
                """
        )

        @Option(
            help: ArgumentHelp(
                "Last day of the week, any day; payments an earlier week counted are not counted again, and the "
                    + "schedule (weekEndsOn) stays as it is. Default: the newest finished week ending on weekEndsOn.",
                valueName: "YYYY-MM-DD"),
            transform: LocalDate.fromArgument)
        var endDate: LocalDate?

        @Flag(help: "Show what would move; write nothing to the bank or the ledger.")
        var dryRun = false

        @Flag(
            help: ArgumentHelp(
                "Also run every finished week ending on weekEndsOn since each account's newest such week in the "
                    + "ledger, oldest first (at most 8 per run), so that a machine that was off misses nothing; weeks "
                    + "run with --end-date on another day never move it."))
        var catchUp = false

        @OptionGroup var settings: SettingOptions

        @OptionGroup var files: RunFileOptions

        @Flag(
            help: ArgumentHelp(
                "Print nothing when every account-week ended done or with nothing to move, and a one-line summary "
                    + "otherwise: for cron's MAILTO, which mails only what a job prints."))
        var quiet = false

        @OptionGroup var output: OutputOptions

        func validate() throws {
            if quiet, output.json { throw ValidationError("--quiet and --json cannot be used together") }
        }

        func run() async throws {
            let flags = settings.flags(files)
            var logger = output.logging.logger
            if quiet, !output.logging.verbose, output.logging.logLevel == nil { logger.logLevel = .error }
            // The run is shown before its row is finished, so that the status it ends with,
            // 74 when its output cannot be written, is the one recorded everywhere.
            let result = await Composition.live.run(
                flags, endDate: endDate,
                options: RunOptions(
                    dryRun: dryRun, json: output.json, catchUp: catchUp, style: output.style, quiet: quiet),
                logger: logger, console: .standard)
            throw ExitCode(result.status.rawValue)
        }
    }
}
