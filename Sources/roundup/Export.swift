import ArgumentParser
import Foundation
import RoundUp
import RoundUpReports

extension Roundup {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the transfers into savings goals for your books: hledger, ledger-cli, Beancount, OFX.",
            discussion: """
                Reads the state directory only: no token, no request to the bank. Writes each transfer whose \
                money arrived (not held back, held, unconfirmed or abandoned), oldest first, as a move from \
                the account's main balance to its goal, dated the day the money moved (in timeZone) and \
                described by its reference. ledger (or hledger): a journal hledger and ledger-cli read, its accounts and \
                commodities declared. beancount: a file bean-check accepts, names made valid, the originals \
                kept as metadata. ofx: OFX 2.2 for Actual, GnuCash, Moneydance or another OFX importer, one \
                statement per account, each transfer's FITID its transfer uid, so importing twice adds nothing.

                Examples:
                  roundup export --format ledger > savings.journal
                  roundup export --format hledger | hledger -f - balance
                  roundup export --format beancount --year 2026 --output savings.beancount
                  roundup export --format ofx --since 2026-06-01 --output roundup.ofx
                """
        )

        @OptionGroup var locations: LocationOptions

        @Option(
            help: ArgumentHelp(
                "What to write: ledger (hledger is a name for it), beancount or ofx.",
                valueName: "ledger|hledger|beancount|ofx"))
        var format: Format

        @OptionGroup var period: PeriodOptions

        @Option(
            help: ArgumentHelp("Write it to this file (whole, or not at all) instead of stdout.", valueName: "file"))
        var output: String?

        func run() throws {
            let query = SavingsHistory.Query(since: period.since, year: period.year)
            try finish(Composition.live.export(locations.flags, query: query, format: format.format, output: output))
        }
    }
}

/// `--format ledger|hledger|beancount|ofx`: hledger reads the ledger journal, so its name
/// gives the same.
extension Roundup.Export {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case ledger, hledger, beancount, ofx

        var format: BookExport.Format {
            switch self {
            case .ledger, .hledger: .ledger
            case .beancount: .beancount
            case .ofx: .ofx
            }
        }
    }
}
