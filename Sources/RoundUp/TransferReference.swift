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

    /// The week end a reference names, when it is one this job writes; nil for any other
    /// text, such as a reference the saver gave a transfer made by hand. Read as a bank may
    /// show it: in any letter case, with any white space between its words.
    public static func weekEnd(namedBy reference: String) -> LocalDate? {
        let words = reference.lowercased().split(whereSeparator: \.isWhitespace)
        let digits = { (word: Substring) in word.allSatisfy { $0.isASCII && $0.isNumber } }
        guard words.count == 5, words[0] == "round-up", words[1] == "w/e", digits(words[2]), words[2].count <= 2,
            digits(words[4]), words[4].count == 4, let day = Int(words[2]), let year = Int(words[4]),
            let month = months.firstIndex(where: { $0.lowercased() == words[3] }),
            let date = LocalDate(year: year, month: month + 1, day: day)
        else { return nil }
        return date
    }

    /// The week end a reference mentions, wherever a bank may have put it, for holding a
    /// week over another ledger's transfer (never for telling this ledger's own transfers
    /// apart: a reading this loose could take one for another week's). This job's wording
    /// anywhere in the text (with a prefix or a suffix of the bank's around it), in any
    /// letter case and spacing, the hyphen written as a space or left out, the month in full;
    /// else a date written `YYYY-MM-DD` anywhere in it. A reference cut before or within its
    /// year (`Round-up w/e 22 Nov 20`) mentions a day and month only, which the caller places
    /// among the weeks it could be (`MentionedWeek.date(within:)`).
    public static func weekMentioned(in reference: String) -> MentionedWeek? {
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
                guard cut, LocalDate(year: 2000, month: month, day: day) != nil else { continue }
                return .dayAndMonth(day: day, month: month)
            }
            if let date = LocalDate(year: year, month: month, day: day) { return .date(date) }
        }
        return isoDate(in: reference).map { .date($0) }
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

    /// `word` as a number of so many ASCII digits (leading zeros and all), or nil.
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

/// A week's end as a reference mentions it: a whole date, or a day and month alone when
/// the reference was cut before its year.
public enum MentionedWeek: Hashable, Sendable {
    case date(LocalDate)
    case dayAndMonth(day: Int, month: Int)

    /// The date it names among `candidates`: a whole date when it is one of them, a day
    /// and month when exactly one of them falls on it; else nil.
    public func date(within candidates: ClosedRange<LocalDate>) -> LocalDate? {
        switch self {
        case .date(let date):
            return candidates.contains(date) ? date : nil
        case .dayAndMonth(let day, let month):
            let matches = (candidates.lowerBound.year...candidates.upperBound.year).compactMap { year in
                LocalDate(year: year, month: month, day: day).flatMap { candidates.contains($0) ? $0 : nil }
            }
            return matches.count == 1 ? matches[0] : nil
        }
    }
}
