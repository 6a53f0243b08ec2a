public import Foundation
public import RoundUp
public import RoundUpHost
import RoundUpLedger
import RoundUpOutput
public import RoundUpReports
import RoundUpVocabulary

extension SavingsHistory {
    /// The history of the ledger in `stateDirectory`, as `query` selects it; dates the money
    /// moved are told in `zone`, the config's `timeZone`.
    public static func run(
        stateDirectory: String, query: Query = Query(), format: Format = .table(bars: .week),
        style: TextStyle = .plain, zone: TimeZone = .gmt
    ) -> CommandResult {
        let entries: [AccountWeek]
        do throws(CommandFailure) {
            entries = try ledgerEntries(in: stateDirectory)
        } catch {
            return .failure(error)
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

    /// Every week the ledger in `stateDirectory` holds, read from a copy; none without a ledger.
    static func ledgerEntries(in stateDirectory: String) throws(CommandFailure) -> [AccountWeek] {
        let path = Ledger.path(in: stateDirectory)
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        do {
            return try Ledger.readOnlyCopy(of: path).accountWeeks()
        } catch {
            throw CommandFailure(.configuration, "cannot read the ledger \(path): \(plainDescription(error))")
        }
    }
}

extension BookExport {
    /// `roundup export`: the transfers of the ledger in `stateDirectory` that `query`
    /// selects, in `format`, dated in `zone`; to stdout, or written whole to `output`.
    public static func run(
        stateDirectory: String, query: SavingsHistory.Query, format: Format, zone: TimeZone, now: Instant,
        output: String?
    ) -> CommandResult {
        // No ledger (a mistyped --state-dir, say) is said, never an empty export that could
        // replace a good one.
        guard FileManager.default.fileExists(atPath: Ledger.path(in: stateDirectory)) else {
            return .failure(
                CommandFailure(
                    .usage,
                    "no ledger in \(stateDirectory): there is nothing to export (a run that is not a dry run records "
                        + "each week; --state-dir names another ledger)"))
        }
        let entries: [AccountWeek]
        do throws(CommandFailure) {
            entries = try SavingsHistory.ledgerEntries(in: stateDirectory)
        } catch {
            return .failure(error)
        }
        let rows = query.select(entries).map { SavingsHistory.row(for: $0, in: zone) }
        let booked = BookExport.book(rows)
        let text = BookExport.text(booked.transfers, format: format, now: now)
        // A week that moved money but cannot be booked is named, never left out unsaid.
        let said = booked.leftOut.map { Diagnostic(.note, $0) }
        guard let output, output != "-" else { return CommandResult(status: .ok, output: text, said: said) }
        do throws(FileRefusal) {
            try write(text, to: output, stateDirectory: stateDirectory)
        } catch {
            return .failure(CommandFailure(.ioError, "could not write the export to \(output): \(error)"))
        }
        return CommandResult(status: .ok, output: "", said: said)
    }

    /// Writes `text` to `path` whole (a temporary name, then a rename), mode 0600, through
    /// `WriteDirectory`: a link at its name is replaced, never written through. Never in
    /// the state directory, where it would replace the ledger.
    static func write(_ text: String, to path: String, stateDirectory: String) throws(FileRefusal) {
        let url = URL(fileURLWithPath: path)
        // What the name leads to must be a plain file, or nothing yet: never a device such
        // as /dev/stdout, which the rename would replace (leave --output out for stdout).
        var target = stat()
        if stat(path, &target) == 0, target.st_mode & S_IFMT != S_IFREG {
            throw FileRefusal(
                .refused, "it is not a plain file; leave --output out (or give -) to write to standard output")
        }
        let directory = try WriteDirectory(url.deletingLastPathComponent().path, sharing: .shared, create: false)
        if directory.isSame(as: stateDirectory) {
            throw FileRefusal(
                .refused, "it is in the state directory \(stateDirectory), where it could replace the ledger")
        }
        let file = try directory.create(url.lastPathComponent, mode: 0o600)
        try file.write(text)
        try file.commit()
    }
}
