import Foundation
import RoundUp

/// `roundup history`: the weeks in the ledger, newest first, as a table or as JSON.
/// Reads the state directory only; needs no token and never talks to the bank.
public enum History {
    /// Where a week stands, as the history says it.
    public enum Standing: String, Codable, Sendable {
        case transferred
        case nothingToMove = "nothing to move"
        /// A minimum balance kept all of the round-up.
        case heldBack = "held back"
        /// Sent, or about to be, with no answer yet: the next run looks for it in the feed
        /// and resends it only if it is not there.
        case unconfirmed
        /// Waits for a person (`roundup resolve`).
        case held
        /// A person decided not to move this week's money.
        case abandoned

        init(_ entry: LedgerEntry) {
            switch entry.status {
            case .done: self = .transferred
            case .nothing: self = entry.note == nil ? .nothingToMove : .heldBack
            case .pending: self = .unconfirmed
            case .held: self = .held
            case .abandoned: self = .abandoned
            }
        }

        /// The colour it shows in, as the run's own statuses do.
        var colour: AccountStatus {
            switch self {
            case .transferred: .transferred
            case .nothingToMove, .heldBack: .nothingToDo
            case .unconfirmed: .failed
            case .held: .held
            case .abandoned: .abandoned
            }
        }
    }

    /// One row of the history, as `--json` writes it.
    public struct Row: Codable, Sendable, Equatable {
        public var weekStart: String
        public var weekEnd: String
        public var accountUid: String
        public var accountName: String?
        public var currency: String
        /// The amount moved (or to be moved), in major units: `2.98`.
        public var amount: String
        public var minorUnits: Int64
        public var goalName: String?
        public var goalUid: String?
        public var transferUid: String?
        public var status: Standing
        /// Why an unconfirmed transfer has not been confirmed yet.
        public var lastError: String?
        /// Why less than the week's round-up moved (a minimum balance).
        public var note: String?
        /// How a transferred week's arrival was established: `bank` (its answer) or `feed`.
        public var confirmation: String?
        /// The feed item that shows the transfer, when the feed confirmed it.
        public var feedItemUid: String?
        /// Why the week is held, or why a person abandoned it.
        public var reason: String?
        /// What a person decided with `roundup resolve`.
        public var resolution: String?
        public var updatedAt: String?
    }

    /// The JSON document, documented in `schema/history-v1.schema.json`: `schemaVersion`
    /// changes whenever a field changes meaning or goes away.
    public struct Document: Codable, Sendable {
        public var schemaVersion = 1
        public var stateDirectory: String
        public var weeks: [Row]
        /// Moved so far, by currency, in major units.
        public var totals: [String: String]
    }

    /// The history of the ledger in `stateDirectory`; `weeks` limits it to the newest weeks.
    public static func run(stateDirectory: String, json: Bool, weeks: Int?, style: TextStyle = .plain) -> CommandResult
    {
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
        // Newest week first; within a week, accounts by name.
        let ordered = entries.sorted { a, b in
            a.weekEnd != b.weekEnd
                ? a.weekEnd > b.weekEnd : (a.accountName ?? a.accountUid) < (b.accountName ?? b.accountUid)
        }
        var rows = ordered.map(row(for:))
        if let weeks {
            let newest = Array(Set(rows.map(\.weekEnd)).sorted().suffix(weeks))
            rows = rows.filter { newest.contains($0.weekEnd) }
        }
        let document = Document(stateDirectory: stateDirectory, weeks: rows, totals: totals(of: entries))
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(document)) ?? Data()
            return CommandResult(
                status: .ok, output: printableJSON(String(decoding: data, as: UTF8.self)) + "\n", diagnostics: [])
        }
        return CommandResult(status: .ok, output: table(document, style: style), diagnostics: [])
    }

    static func row(for entry: LedgerEntry) -> Row {
        let money = Currency(code: entry.currency).map { Money(minorUnits: entry.minorUnits, currency: $0) }
        return Row(
            weekStart: entry.weekEnd.adding(days: -6).description, weekEnd: entry.weekEnd.description,
            accountUid: entry.accountUid, accountName: entry.accountName, currency: entry.currency,
            amount: money?.formattedAmount ?? "\(entry.minorUnits) minor units", minorUnits: entry.minorUnits,
            goalName: entry.goalName, goalUid: entry.goalUid, transferUid: entry.transferUid, status: Standing(entry),
            lastError: entry.lastError, note: entry.note, confirmation: entry.confirmation?.rawValue,
            feedItemUid: entry.feedItemUid, reason: entry.reason, resolution: entry.resolution,
            updatedAt: entry.updatedAt)
    }

    /// What the confirmed transfers add up to, per currency.
    static func totals(of entries: [LedgerEntry]) -> [String: String] {
        var sums: [String: Int64] = [:]
        for entry in entries where entry.status == .done {
            sums[entry.currency, default: 0] &+= entry.minorUnits
        }
        return sums.reduce(into: [:]) { result, pair in
            result[pair.key] =
                Currency(code: pair.key).map { Money(minorUnits: pair.value, currency: $0).formattedAmount }
                ?? "\(pair.value) minor units"
        }
    }

    private static func hint(_ status: Standing) -> String {
        switch status {
        case .unconfirmed: " (the next run looks in the feed, then resends it)"
        case .held: " (roundup resolve)"
        default: ""
        }
    }

    static func table(_ document: Document, style: TextStyle = .plain) -> String {
        guard !document.weeks.isEmpty else {
            return
                "No weeks recorded yet in \(document.stateDirectory). A run that is not a dry run records each week.\n"
        }
        let header = ["Week", "Account", "Amount", "Goal", "Status"]
        let body = document.weeks.map { row in
            [
                "\(row.weekStart) – \(row.weekEnd)", row.accountName ?? row.accountUid, "\(row.amount) \(row.currency)",
                row.goalName ?? "—",
                row.status.rawValue + Self.hint(row.status),
            ]
        }
        var lines = TextTable.render(header: header, rows: body, rightAligned: [2]) { row, column, cell in
            column == 4 ? style.status(document.weeks[row].status.colour, cell) : cell
        }
        let notes = document.weeks.compactMap { row in
            let said = [row.reason ?? row.lastError, row.note, row.resolution.map { "resolved: \($0)" }]
                .compactMap { $0 }
            return said.isEmpty
                ? nil
                : printable("\(row.weekEnd) \(row.accountName ?? row.accountUid): " + said.joined(separator: "; "))
        }
        if !notes.isEmpty { lines += [""] + notes }
        let totals = document.totals.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
        if !totals.isEmpty {
            lines.append("")
            lines.append("Saved so far: " + totals.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
