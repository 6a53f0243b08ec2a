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
}
