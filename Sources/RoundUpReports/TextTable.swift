import Foundation
import RoundUp

/// Plain-text tables with aligned columns, for terminals and logs alike.
package enum TextTable {
    /// The header, a rule, and the rows; `rightAligned` are the indices of number columns.
    /// `decorate` dresses a padded cell (row index, column index), after the widths are
    /// set, so that colour codes never upset the alignment.
    package static func render(
        header: [String], rows: [[String]], rightAligned: Set<Int> = [],
        decorate: (_ row: Int, _ column: Int, _ cell: String) -> String = { $2 }
    ) -> [String] {
        // A cell may hold the bank's text: shown printable, so that it neither drives the
        // terminal nor breaks the table.
        let rows = rows.map { $0.map(printable) }
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String], row: Int?) -> String {
            cells.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                let padded = rightAligned.contains(column) ? padding + cell : cell + padding
                let last = column == cells.count - 1
                let trimmed = last ? padded.trimmingTrailingSpaces() : padded
                return row.map { decorate($0, column, trimmed) } ?? trimmed
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        return [line(header, row: nil), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
            + rows.enumerated().map { line($1, row: $0) }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
