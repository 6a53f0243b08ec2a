/// The reference a week's transfer carries, as the saver sees it in the bank's app:
/// `Round-up w/e 22 Nov 2026`, naming the week by its last day. No ids, and well under the
/// 100 characters the bank takes.
public enum TransferReference {
    private static let prefix = "Round-up w/e "
    private static let months = LocalDate.monthNames

    /// The bank's limit on a transfer's reference, in characters.
    public static let maximumLength = 100

    /// The reference for the week ending on `weekEnd`.
    public static func forWeek(endingOn weekEnd: LocalDate) -> String {
        "\(prefix)\(weekEnd.day) \(months[weekEnd.month - 1]) \(weekEnd.year)"
    }

    /// The week end a reference names; nil for text that names none, such as a reference
    /// the saver gave a transfer made by hand. Read where a bank may put it: this job's
    /// wording anywhere in the text (with a prefix or a suffix of the bank's around it), in
    /// any letter case and spacing, the hyphen written as a space or left out, the month in
    /// full; else a date written `YYYY-MM-DD` anywhere in it. A reference cut before its
    /// year (`Round-up w/e 22 Nov 20`) names the last such day on or before `madeOn`, the
    /// day the transfer was made (a day later, for a clock ahead): a week ends before its
    /// transfer is made, and within a year only one day has that day and month. Without
    /// `madeOn`, a cut reference names none.
    public static func weekEnd(namedBy reference: String, madeOn: LocalDate? = nil) -> LocalDate? {
        let words = words(of: reference)
        var index = 0
        while index < words.count {
            defer { index += 1 }
            var next = index
            if words[index] == "roundup" {
                next += 1
            } else if words[index] == "round", index + 1 < words.count, words[index + 1] == "up" {
                next += 2
            } else {
                continue
            }
            guard next + 2 < words.count, words[next] == "w/e", let day = number(words[next + 1], digits: 1...2),
                let month = month(words[next + 2])
            else { continue }
            guard next + 3 < words.count, let year = number(words[next + 3], digits: 4...4) else {
                // Cut before its year, or within it: the last part is the end of the text.
                let rest = next + 3 < words.count ? words[next + 3] : ""
                let cut = next + 3 >= words.count - 1 && rest.count < 4 && rest.allSatisfy { $0.isASCII && $0.isNumber }
                guard cut, let madeOn else { continue }
                return lastDay(day, month, onOrBefore: madeOn.adding(days: 1))
            }
            if let date = LocalDate(year: year, month: month, day: day) { return date }
        }
        return isoDate(in: reference)
    }

    /// The text's words, in lower case: runs of letters and digits, and `w/e`, apart; every
    /// other character (white space, punctuation, a hyphen) separates them.
    private static func words(of text: String) -> [String] {
        var words: [String] = []
        var word = ""
        let scalars = Array(text.lowercased().unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            let slashInWE =
                scalar == "/" && word == "w" && index + 1 < scalars.count && scalars[index + 1] == "e"
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || slashInWE {
                word.unicodeScalars.append(scalar)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }

    /// `word` as a number of so many ASCII digits, not starting with 0 unless it is one digit.
    private static func number(_ word: String, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(word.count), word.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(word)
    }

    /// The month `word` names, by its first three letters or in full (1 to 12).
    private static func month(_ word: String) -> Int? {
        let names = [
            "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
            "november", "december",
        ]
        return names.firstIndex { $0 == word || $0.prefix(3) == word }.map { $0 + 1 }
    }

    /// The last date on or before `limit` that falls on `day` of `month`.
    private static func lastDay(_ day: Int, _ month: Int, onOrBefore limit: LocalDate) -> LocalDate? {
        for year in stride(from: limit.year, through: max(1, limit.year - 8), by: -1) {
            if let date = LocalDate(year: year, month: month, day: day), date <= limit { return date }
        }
        return nil
    }

    /// The first `YYYY-MM-DD` in `text` that is a date and stands apart from other digits.
    private static func isoDate(in text: String) -> LocalDate? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 10 else { return nil }
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        for start in 0...(bytes.count - 10) {
            guard start == 0 || !isDigit(bytes[start - 1]), start + 10 == bytes.count || !isDigit(bytes[start + 10]),
                let date = LocalDate(iso: String(decoding: bytes[start..<(start + 10)], as: UTF8.self))
            else { continue }
            return date
        }
        return nil
    }
}
