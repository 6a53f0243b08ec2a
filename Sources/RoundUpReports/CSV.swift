import Foundation
import RoundUp

/// Comma-separated values as RFC 4180 writes them, safe to open in a spreadsheet: a cell
/// that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula to a
/// spreadsheet, so it is written after a `'`, which shows it as text.
package enum CSV {
    /// One line: the cells, each neutralised and quoted as needed, then CRLF.
    package static func line(_ cells: [String]) -> String {
        cells.map(cell).joined(separator: ",") + "\r\n"
    }

    /// One cell: printable, neutralised, and quoted when it holds a comma, a quote or a
    /// line break.
    package static func cell(_ text: String) -> String {
        var text = printable(text)
        if let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) {
            text = "'" + text
        }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
