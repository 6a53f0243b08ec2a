package import RoundUp
package import RoundUpVocabulary

/// What the ledger says was saved, one series per currency: per week, per month and per
/// year. Only weeks whose money arrived count, and amounts of two currencies are never
/// added together. A week counts in the month and year of its end date.
package struct Savings: Sendable, Equatable {
    /// An amount saved in one period: a week (`2026-11-15`, its end date), a month
    /// (`2026-11`) or a year (`2026`).
    package struct Period: Sendable, Equatable {
        package var label: String
        package var minorUnits: Int64
    }

    /// One currency's savings, oldest period first.
    package struct Series: Sendable, Equatable {
        package var currency: String
        package var weeks: [Period]
        package var months: [Period]
        package var years: [Period]
        /// Every period added up.
        package var total: Int64

        /// `minorUnits` of this series' currency in major units: `2.98`, or `298 minor units`
        /// for a code the job cannot place.
        package func amount(_ minorUnits: Int64) -> String { Savings.amount(minorUnits, currency) }

        /// The total after each week, oldest first.
        package var runningTotal: [Period] {
            var sum: Int64 = 0
            return weeks.map { week in
                sum = Savings.add(sum, week.minorUnits)
                return Period(label: week.label, minorUnits: sum)
            }
        }
    }

    package var series: [Series]

    /// The savings in `entries`, by currency code in alphabetical order.
    package init(_ entries: [AccountWeek]) {
        let moved = entries.filter { $0.status == .done }
        let byCurrency = Dictionary(grouping: moved, by: \.currency)
        series = byCurrency.keys.sorted().map { code in
            let entries = byCurrency[code] ?? []
            return Series(
                currency: code,
                weeks: Savings.add(entries) { $0.weekEnd.description },
                months: Savings.add(entries) { Savings.month(of: $0.weekEnd) },
                years: Savings.add(entries) { String($0.weekEnd.year) },
                total: entries.reduce(0) { Savings.add($0, $1.minorUnits) })
        }
    }

    /// `saved` as a whole percentage of `target`, rounded down and at most 999,999; nil
    /// without a target above zero. Exact in integers, and never a trap, whatever the bank
    /// says a goal holds.
    package static func percent(_ saved: Int64, of target: Int64?) -> Int? {
        guard let target, target > 0 else { return nil }
        guard saved > 0 else { return 0 }
        let (hundredfold, overflow) = saved.multipliedReportingOverflow(by: 100)
        let percent = overflow ? Int64.max : hundredfold / target
        return Int(min(percent, 999_999))
    }

    /// `a + b`, held at the largest or smallest amount rather than wrapping round: a
    /// damaged ledger never shows a negative total.
    package static func add(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return sum }
        return b > 0 ? .max : .min
    }

    /// `a + b`, or nil when it does not fit.
    package static func exactSum(_ a: Int64, _ b: Int64) -> Int64? {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? nil : sum
    }

    /// `2026-11` for any day of November 2026.
    package static func month(of date: LocalDate) -> String {
        String(date.description.prefix(7))
    }

    /// `minorUnits` of `code` in major units with its own decimals.
    package static func amount(_ minorUnits: Int64, _ code: String) -> String {
        Currency(code: code).map { Money(minorUnits: minorUnits, currency: $0).formattedAmount }
            ?? "\(minorUnits) minor units"
    }

    /// The entries' amounts added up per `period`, in the periods' order (ISO labels sort
    /// as time does).
    private static func add(_ entries: [AccountWeek], by period: (AccountWeek) -> String) -> [Period] {
        var sums: [String: Int64] = [:]
        for entry in entries {
            sums[period(entry), default: 0] = Savings.add(sums[period(entry), default: 0], entry.minorUnits)
        }
        return sums.keys.sorted().map { Period(label: $0, minorUnits: sums[$0] ?? 0) }
    }
}
