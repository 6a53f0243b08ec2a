package import RoundUp
package import RoundUpVocabulary

/// The one line `notify.weekly` asks for: what this run saved and what the year has saved,
/// "you saved £2.98 this week, £41.20 this year", each currency on its own.
package enum SavingsNews {
    /// The line for a real run that moved `moved` (minor units by currency code) over
    /// `weeks`, with `entries` the whole ledger after it; the year is that of the run's
    /// newest week, "this year" when that is `currentYear`.
    package static func line(moved: [String: Int64], weeks: [LocalDate], entries: [AccountWeek], currentYear: Int)
        -> String?
    {
        guard let newest = weeks.max() else { return nil }
        let year = Savings(entries.filter { $0.weekEnd.year == newest.year })
        let thisYear = year.series.map { spoken($0.total, $0.currency) }
        let saved = moved.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { spoken($0.value, $0.key) }
        let span = weeks.count == 1 ? "this week" : "in \(weeks.count) weeks"
        let now = saved.isEmpty ? "nothing new was saved \(span)" : "you saved \(list(saved)) \(span)"
        let yearWords = newest.year == currentYear ? "this year" : "in \(newest.year)"
        return thisYear.isEmpty ? now : "\(now), \(list(thisYear)) \(yearWords)"
    }

    /// `£2.98`, `€1.26`, `$3.00`; `1200 JPY` for a currency without a symbol here.
    package static func spoken(_ minorUnits: Int64, _ code: String) -> String {
        let amount = Savings.amount(minorUnits, code)
        switch code {
        case "GBP": return "£" + amount
        case "EUR": return "€" + amount
        case "USD": return "$" + amount
        default: return "\(amount) \(printable(code))"
        }
    }

    private static func list(_ items: [String]) -> String {
        items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items.last!
    }
}
