public import Foundation
import RoundUp
import RoundUpLedger
import RoundUpOutput
public import RoundUpReports
import RoundUpVocabulary

extension History {
    /// The history of the ledger in `stateDirectory`, as `query` selects it; dates the money
    /// moved are told in `zone`, the config's `timeZone`.
    public static func run(
        stateDirectory: String, query: Query = Query(), format: Format = .table(bars: .week),
        style: TextStyle = .plain, zone: TimeZone = .gmt
    ) -> CommandResult {
        let path = Ledger.path(in: stateDirectory)
        var entries: [LedgerEntry] = []
        if FileManager.default.fileExists(atPath: path) {
            do {
                entries = try Ledger.readOnlyCopy(of: path).entries()
            } catch {
                return .failure(
                    CommandFailure(.configuration, "cannot read the ledger \(path): \(plainDescription(error))"))
            }
        }
        let selected = query.select(entries)
        // Newest week first; within a week, accounts by name.
        let ordered = selected.sorted { a, b in
            a.weekEnd != b.weekEnd
                ? a.weekEnd > b.weekEnd : (a.accountName ?? a.accountUid) < (b.accountName ?? b.accountUid)
        }
        let savings = Savings(selected)
        let document = Document(
            stateDirectory: stateDirectory, weeks: ordered.map { row(for: $0, in: zone) }, totals: totals(of: entries),
            subtotals: subtotals(savings))
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(document)) ?? Data()
            return CommandResult(
                status: .ok, output: printableJSON(String(decoding: data, as: UTF8.self)) + "\n")
        case .csv:
            return CommandResult(status: .ok, output: csv(document))
        case .table(let bars):
            return CommandResult(
                status: .ok,
                output: table(document, savings: savings, bars: bars, style: style, ledgerHasWeeks: !entries.isEmpty))
        }
    }
}
