package import Foundation
public import RoundUp
public import RoundUpVocabulary

/// `roundup history`: the weeks in the ledger, newest first, as a table or as JSON.
/// Reads the state directory only; needs no token and never talks to the bank.
public enum SavingsHistory {
    /// One row of the history, as `--json` writes it.
    public struct Row: Encodable, Sendable, Equatable {
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
        /// The reference the transfer carries (`Round-up w/e 22 Nov 2026`), when it has one.
        public var reference: String?
        /// The local date, in the config's `timeZone`, the ledger recorded the money as
        /// arrived: for a transferred week only.
        public var movedOn: String?
        /// Where the week stands, written as the history's word for it.
        @HistoryWord public var status: WeekFate
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
        /// What the bank had scheduled before payday when the week was decided, in sum.
        public var forecast: RowForecast?
        /// For a week into several goals (`saveInto`), each of its transfers; absent for a
        /// week into one, whose goal and transfer are the row's own.
        public var legs: [RowLeg]?
    }

    /// One of the transfers of a week into several goals.
    public struct RowLeg: Encodable, Sendable, Equatable {
        public var goalName: String?
        public var goalUid: String?
        public var amount: String
        public var minorUnits: Int64
        public var transferUid: String?
        /// Where this transfer stands: `transferred`, `unconfirmed`, `held`, `abandoned`, or
        /// `nothing to move` for one a resend held back.
        public var status: String

        init(_ leg: TransferLeg, currency: String) {
            goalName = leg.goalName
            goalUid = leg.goalUid
            amount = Savings.amount(leg.minorUnits, currency)
            minorUnits = leg.minorUnits
            transferUid = leg.transferUid
            status = leg.status.transferWord
        }
    }

    /// A week's forecast as the history keeps it: the horizon, how many payments fell due,
    /// their total and the low point.
    public struct RowForecast: Encodable, Sendable, Equatable {
        public var through: String
        public var payday: String?
        public var payments: Int
        public var due: String
        public var dueMinorUnits: Int64
        public var lowPoint: String?
        public var lowPointMinorUnits: Int64?

        init(_ summary: ForecastSummary, currency: String) {
            through = summary.through.description
            payday = summary.payday?.description
            payments = summary.payments
            due = Savings.amount(summary.dueMinorUnits, currency)
            dueMinorUnits = summary.dueMinorUnits
            lowPoint = summary.lowPointMinorUnits.map { Savings.amount($0, currency) }
            lowPointMinorUnits = summary.lowPointMinorUnits
        }

        /// "before payday on 2026-12-04: 3 payments due, 940.00 GBP; low point 294.56 GBP".
        func words(_ currency: String) -> String {
            let horizon =
                payday.map { "before payday on \($0)" + ($0 == through ? "" : " (through \(through))") }
                ?? "through \(through)"
            return "\(horizon): \(payments) payment\(payments == 1 ? "" : "s") due, \(due) \(currency)"
                + (lowPoint.map { "; low point \($0) \(currency)" } ?? "")
        }
    }

    /// The JSON document, documented in `schema/history-v1.schema.json`: `schemaVersion`
    /// changes whenever a field changes meaning or goes away.
    public struct Document: Encodable, Sendable {
        public var schemaVersion = 1
        public var stateDirectory: String
        public var weeks: [Row]
        /// Moved so far, by currency, in major units.
        public var totals: [String: String]
        /// What the weeks shown moved, per month and per year and currency.
        public var subtotals: Subtotals?

        package init(stateDirectory: String, weeks: [Row], totals: [String: String], subtotals: Subtotals? = nil) {
            self.stateDirectory = stateDirectory
            self.weeks = weeks
            self.totals = totals
            self.subtotals = subtotals
        }
    }

    /// What the weeks shown moved in each month and year, per currency: a week counts in
    /// the month of its end date, and currencies are never added together.
    public struct Subtotals: Codable, Sendable, Equatable {
        public var months: [Subtotal]
        public var years: [Subtotal]
    }

    /// One period's savings in one currency.
    public struct Subtotal: Codable, Sendable, Equatable {
        /// `2026-11` for a month, `2026` for a year.
        public var period: String
        public var currency: String
        public var amount: String
        public var minorUnits: Int64
    }

    /// Which weeks to show. Every filter given applies.
    public struct Query: Sendable {
        /// Only weeks ending on or after this day.
        public var since: LocalDate?
        /// Only weeks ending in this year.
        public var year: Int?
        /// Only weeks whose money arrived.
        public var movedOnly = false
        /// Only the newest this many weeks (after the other filters).
        public var weeks: Int?

        public init(since: LocalDate? = nil, year: Int? = nil, movedOnly: Bool = false, weeks: Int? = nil) {
            self.since = since
            self.year = year
            self.movedOnly = movedOnly
            self.weeks = weeks
        }

        /// The entries the query keeps.
        package func select(_ entries: [AccountWeek]) -> [AccountWeek] {
            var kept = entries.filter { entry in
                (since.map { entry.weekEnd >= $0 } ?? true) && (year.map { entry.weekEnd.year == $0 } ?? true)
                    && (!movedOnly || entry.status == .done)
            }
            if let weeks {
                let newest = Set(Set(kept.map(\.weekEnd)).sorted().suffix(weeks))
                kept = kept.filter { newest.contains($0.weekEnd) }
            }
            return kept
        }
    }

    /// How the history is written.
    public enum Format: Sendable {
        /// A table with notes, a chart and subtotals, for people.
        case table(bars: Bars)
        /// `schema/history-v1.schema.json`.
        case json
        /// One row per account-week, for spreadsheets.
        case csv
    }

    /// What the table's chart shows a bar for.
    public enum Bars: String, Sendable, CaseIterable {
        case week, month, none
    }

    /// The CSV columns, in order. New ones go at the end, so that a reader by position
    /// keeps working.
    public static let csvColumns = [
        "weekEnd", "account", "currency", "amount", "goal", "status", "movedOn", "reference", "transferUid", "legs",
    ]

    /// One row per account-week, newest first: week end, account (its name, else its uid),
    /// currency, amount in major units, goal and status; then, to reconcile with the bank's
    /// statement, the date the money moved, the transfer's reference and its uid; then, for a
    /// week into several goals, each transfer (`1.00 into Emergency fund (transferred); …`).
    package static func csv(_ document: Document) -> String {
        CSV.line(csvColumns)
            + document.weeks.map { row in
                CSV.line([
                    row.weekEnd, row.accountName ?? row.accountUid, row.currency, row.amount, row.goalName ?? "",
                    row.status.word, row.movedOn ?? "", row.reference ?? "",
                    row.transferUid
                        ?? row.legs?.filter { $0.status != WeekState.abandoned.transferWord }.compactMap(\.transferUid)
                        .joined(separator: " ") ?? "",
                    row.legs.map(legWords) ?? "",
                ])
            }.joined()
    }

    /// Each transfer of a week into several goals: `1.00 into Emergency fund (transferred);
    /// 1.29 into Round-ups (unconfirmed)`.
    static func legWords(_ legs: [RowLeg]) -> String {
        legs.map { "\($0.amount) into \($0.goalName ?? $0.goalUid ?? "the goal") (\($0.status))" }
            .joined(separator: "; ")
    }

    package static func subtotals(_ savings: Savings) -> Subtotals {
        func subtotals(_ periods: KeyPath<Savings.Series, [Savings.Period]>) -> [Subtotal] {
            savings.series.flatMap { series in
                series[keyPath: periods].map {
                    Subtotal(
                        period: $0.label, currency: series.currency, amount: series.amount($0.minorUnits),
                        minorUnits: $0.minorUnits)
                }
            }.sorted { ($0.period, $0.currency) < ($1.period, $1.currency) }
        }
        return Subtotals(months: subtotals(\.months), years: subtotals(\.years))
    }

    /// The history's row for `entry`, its dates told in `zone`.
    package static func row(for entry: AccountWeek, in zone: TimeZone) -> Row {
        // A transferred week's row is last changed when its money is recorded as arrived.
        let movedOn =
            entry.status == .done
            ? entry.updatedAt.flatMap(Instant.init(iso8601:)).map { Week.localDate(of: $0, in: zone).description } : nil
        // A week into several goals names them all, and keeps each goal's and transfer's uid
        // with its leg.
        let legs = entry.hasSeveralLegs ? entry.legs.map { RowLeg($0, currency: entry.currency) } : nil
        let first = legs == nil ? entry.firstLeg : nil
        return Row(
            weekStart: entry.weekEnd.adding(days: -6).description, weekEnd: entry.weekEnd.description,
            accountUid: entry.accountUid, accountName: entry.accountName, currency: entry.currency,
            amount: Savings.amount(entry.minorUnits, entry.currency), minorUnits: entry.minorUnits,
            goalName: legs == nil ? entry.firstLeg.goalName : entry.legs.compactMap(\.goalName).joined(separator: ", "),
            goalUid: first?.goalUid, transferUid: first?.transferUid,
            reference: entry.firstLeg.reference, movedOn: movedOn, status: WeekFate(entry),
            lastError: entry.lastError, note: entry.note, confirmation: entry.firstLeg.confirmation?.rawValue,
            feedItemUid: entry.firstLeg.feedItemUid, reason: entry.reason, resolution: entry.resolution,
            updatedAt: entry.updatedAt, forecast: entry.forecast.map { RowForecast($0, currency: entry.currency) },
            legs: legs)
    }

    /// What the confirmed transfers add up to, per currency: the savings' totals.
    package static func totals(of entries: [AccountWeek]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: Savings(entries).series.map { ($0.currency, $0.amount($0.total)) })
    }

    private static func hint(_ status: WeekFate) -> String {
        switch status {
        case .unconfirmed: " (the next run looks in the feed, then resends it)"
        case .partlyTransferred: " (the next run finishes the transfers not yet arrived)"
        case .held: " (roundup resolve)"
        default: ""
        }
    }

    package static func table(
        _ document: Document, savings: Savings, bars: Bars = .week, style: TextStyle = .plain,
        ledgerHasWeeks: Bool = true
    ) -> String {
        guard !document.weeks.isEmpty else {
            return !ledgerHasWeeks
                ? "No weeks recorded yet in \(document.stateDirectory). A run that is not a dry run records each week.\n"
                : "No recorded week matches.\n"
        }
        let header = ["Week", "Account", "Amount", "Goal", "Status"]
        let body = document.weeks.map { row in
            [
                "\(row.weekStart) – \(row.weekEnd)", row.accountName ?? row.accountUid, "\(row.amount) \(row.currency)",
                row.goalName ?? "—",
                row.status.word + Self.hint(row.status),
            ]
        }
        var lines = TextTable.render(header: header, rows: body, rightAligned: [2]) { row, column, cell in
            column == 4 ? style.status(document.weeks[row].status, cell) : cell
        }
        let notes = document.weeks.compactMap { row in
            let forecast = row.forecast.flatMap { $0.payments > 0 ? $0.words(row.currency) : nil }
            let said = [row.reason ?? row.lastError, row.note, row.resolution.map { "resolved: \($0)" }, forecast]
                .compactMap { $0 }
            return said.isEmpty
                ? nil
                : printable("\(row.weekEnd) \(row.accountName ?? row.accountUid): " + said.joined(separator: "; "))
        }
        if !notes.isEmpty { lines += [""] + notes }
        for series in savings.series where bars != .none {
            let periods = bars == .week ? series.weeks : series.months
            lines.append("")
            lines.append(style.bold("Saved per \(bars.rawValue) in \(printable(series.currency))"))
            lines += TerminalBars.render(periods, amount: series.amount, blocks: style.blocks)
        }
        if let subtotals = document.subtotals, !subtotals.months.isEmpty {
            for (name, rows) in [("Month", subtotals.months), ("Year", subtotals.years)] {
                lines.append("")
                lines += TextTable.render(
                    header: [name, "Saved"], rows: rows.map { [$0.period, "\($0.amount) \($0.currency)"] },
                    rightAligned: [1])
            }
        }
        let totals = document.totals.sorted { $0.key < $1.key }.map { printable("\($0.value) \($0.key)") }
        if !totals.isEmpty {
            lines.append("")
            lines.append("Saved so far: " + totals.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A week's fate as the history's JSON writes it: its `historyJSONWord`.
@propertyWrapper
public struct HistoryWord: Encodable, Sendable, Equatable {
    public var wrappedValue: WeekFate

    public init(wrappedValue: WeekFate) { self.wrappedValue = wrappedValue }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        // The history holds only the fates the ledger records, and each of those has its word.
        try container.encode(wrappedValue.historyJSONWord ?? wrappedValue.word)
    }
}
