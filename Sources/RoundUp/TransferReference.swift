/// The reference a week's transfer carries, as the saver sees it in the bank's app:
/// `Round-up w/e 22 Nov 2026`, naming the week by its last day. No ids, and well under the
/// 100 characters the bank takes.
public enum TransferReference {
    private static let prefix = "Round-up w/e "
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The bank's limit on a transfer's reference, in characters.
    public static let maximumLength = 100

    /// The reference for the week ending on `weekEnd`.
    public static func forWeek(endingOn weekEnd: LocalDate) -> String {
        "\(prefix)\(weekEnd.day) \(months[weekEnd.month - 1]) \(weekEnd.year)"
    }

    /// The week end a reference names, when it is one this job writes; nil for any other
    /// text, such as a reference the saver gave a transfer made by hand.
    public static func weekEnd(namedBy reference: String) -> LocalDate? {
        guard reference.hasPrefix(prefix) else { return nil }
        let words = reference.dropFirst(prefix.count).split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 3, let day = Int(words[0]), let month = months.firstIndex(of: String(words[1])),
            let year = Int(words[2]), words[0].count <= 2, words[2].count == 4,
            let date = LocalDate(year: year, month: month + 1, day: day),
            forWeek(endingOn: date) == reference
        else { return nil }
        return date
    }
}
