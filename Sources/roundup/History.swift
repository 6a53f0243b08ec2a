import ArgumentParser
import Foundation
import RoundUp
import RoundUpReports
import RoundUpVocabulary

extension Roundup {
    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "Show the weeks recorded in the ledger, with a chart and totals per month and year.",
            discussion: """
                Reads the state directory only: no token, no request to the bank.

                The table lists each account-week, newest first, with its state: \
                \(WeekFate.recorded.map(\.word).joined(separator: ", ")). Held back: the balance kept the \
                round-up, and the week is settled; held: the week waits for a person (roundup resolve). Below it come bars of what \
                was saved per week (or per month), then subtotals per month and per year, each \
                per currency: a week counts in the month of its end date. Bars are Unicode \
                blocks on a terminal, and # when the output is not a terminal or NO_COLOR is set.

                Examples:
                  roundup history                    # every week, newest first, and totals
                  roundup history --weeks 4          # the last four weeks
                  roundup history --year 2026        # the weeks that ended in 2026
                  roundup history --since 2026-06-01 --moved-only --bars month
                  roundup history --csv > savings.csv  # a row per week, to reconcile
                  roundup history --json             # for scripts (schemaVersion 1)
                """
        )

        @OptionGroup var locations: LocationOptions

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Show only the newest this many weeks (1 or more).", valueName: "n")
        )
        var weeks: Int?

        @OptionGroup var period: PeriodOptions

        @Flag(help: "Show only weeks whose money arrived in the goal.")
        var movedOnly = false

        @Option(help: ArgumentHelp("Draw a bar per week, per month, or none.", valueName: "week|month|none"))
        var bars: HistoryBars = .week

        @Flag(help: "Print the history as JSON.")
        var json = false

        @Flag(
            help: ArgumentHelp(
                "Print one CSV row per account-week: "
                    + SavingsHistory.csvColumns.joined(separator: ", ") + "."))
        var csv = false

        @OptionGroup var colour: ColourOptions

        func validate() throws {
            if let weeks, weeks < 1 {
                throw ValidationError("--weeks takes a whole number of weeks, 1 or more, not \(weeks)")
            }
            if json, csv { throw ValidationError("choose one of --json and --csv") }
        }

        func run() throws {
            let query = SavingsHistory.Query(
                since: period.since, year: period.year, movedOnly: movedOnly, weeks: weeks)
            let format: SavingsHistory.Format = json ? .json : csv ? .csv : .table(bars: bars.bars)
            let result = Composition.live.history(
                locations.flags, query: query, format: format,
                style: colour.style)
            try finish(result)
        }
    }
}

/// `--bars week|month|none`.
enum HistoryBars: String, ExpressibleByArgument, CaseIterable {
    case week, month, none

    var bars: SavingsHistory.Bars {
        switch self {
        case .week: .week
        case .month: .month
        case .none: .none
        }
    }
}
