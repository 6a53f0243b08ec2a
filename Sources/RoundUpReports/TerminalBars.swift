/// Horizontal bars for a terminal: Unicode blocks in eighths of a cell, or `#` where the
/// output is not a terminal or `NO_COLOR` asks for plain text.
package enum TerminalBars {
    /// The widest bar, in cells.
    package static let width = 32

    private static let eighths = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]

    /// A line per period: its label, a bar in proportion to the largest amount, and the
    /// amount in major units.
    package static func render(_ periods: [Savings.Period], amount: (Int64) -> String, blocks: Bool) -> [String] {
        let largest = periods.map(\.minorUnits).max() ?? 0
        let labelWidth = periods.map(\.label.count).max() ?? 0
        let amounts = periods.map { amount($0.minorUnits) }
        let amountWidth = amounts.map(\.count).max() ?? 0
        return zip(periods, amounts).map { period, amount in
            let bar = Self.bar(period.minorUnits, of: largest, blocks: blocks)
            let label = period.label + String(repeating: " ", count: labelWidth - period.label.count)
            let padding = String(repeating: " ", count: width - bar.count + amountWidth - amount.count)
            return "\(label)  \(bar)\(padding)  \(amount)"
        }
    }

    /// A bar of `value` where `largest` fills `width` cells; any amount above zero shows at
    /// least its first sliver.
    package static func bar(_ value: Int64, of largest: Int64, blocks: Bool) -> String {
        guard largest > 0, value > 0 else { return "" }
        let steps = blocks ? 8 : 1
        let scaled = Double(value) / Double(largest) * Double(width * steps)
        let units = max(1, Int(scaled.rounded()))
        guard blocks else { return String(repeating: "#", count: units) }
        return String(repeating: "█", count: units / 8) + eighths[units % 8]
    }
}
