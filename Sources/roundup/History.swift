import ArgumentParser
import Foundation
import RoundUpJob

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show the weeks recorded in the ledger: week, account, amount, goal, status.",
        discussion: """
            Reads the state directory only: no token, no request to the bank.

            Examples:
              roundup history                 # every recorded week, newest first, with totals
              roundup history --weeks 4       # the last four weeks
              roundup history --json          # for scripts (schemaVersion 1)
            """
    )

    @Option(
        help: ArgumentHelp("Config file (YAML).", valueName: "file"), completion: .file(extensions: ["yaml", "yml"]))
    var config: String?

    @Option(help: ArgumentHelp("Where the ledger lives.", valueName: "dir"), completion: .directory)
    var stateDir: String?

    @Option(
        parsing: .unconditional, help: ArgumentHelp("Show only the newest this many weeks (1 or more).", valueName: "n")
    )
    var weeks: Int?

    @Flag(help: "Print the history as JSON.")
    var json = false

    @OptionGroup var colour: ColourOptions

    func validate() throws {
        if let weeks, weeks < 1 {
            throw ValidationError("--weeks takes a whole number of weeks, 1 or more, not \(weeks)")
        }
    }

    func run() throws {
        let result = Composition.live.history(
            SettingFlags(configFile: config, stateDirectory: stateDir), json: json, weeks: weeks, style: colour.style)
        try finish(result)
    }
}
