import ArgumentParser
import Foundation
import RoundUp
import RoundUpJob

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Round up a finished week and move the sum into each account's savings goal.",
        discussion: """
            The token comes from STARLING_ACCESS_TOKEN, the systemd credential starling-token, or tokenFile in the config \
            file; it is never a flag.
            Settings come from flags, then ROUNDUP_* environment variables, then the config file, then defaults.

            Examples:
              roundup run                          # last week, Monday to Sunday
              roundup run --end-date 2026-11-15    # the week 2026-11-09 to 2026-11-15
              roundup run --dry-run                # show what would move, move nothing
              roundup run --catch-up               # and any weeks missed before it
            """
    )

    @Option(
        help: ArgumentHelp("Last day of the week; default yesterday.", valueName: "YYYY-MM-DD"),
        transform: LocalDate.fromArgument)
    var endDate: LocalDate?

    @Flag(help: "Show what would move; write nothing to the bank or the ledger.")
    var dryRun = false

    @Flag(
        help: ArgumentHelp(
            "Also run every finished week since the newest one in the ledger, oldest first (at most 8 per run), "
                + "so that a machine that was off misses nothing."))
    var catchUp = false

    @OptionGroup var settings: SettingOptions

    @Option(help: ArgumentHelp("Where reports are written.", valueName: "dir"), completion: .directory)
    var reportDir: String?

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let result = await Composition.live.run(
            settings.flags(reportDirectory: reportDir), endDate: endDate,
            options: RunOptions(dryRun: dryRun, json: output.json, catchUp: catchUp, style: output.style),
            logger: output.logging.logger)
        try finish(result)
    }
}
