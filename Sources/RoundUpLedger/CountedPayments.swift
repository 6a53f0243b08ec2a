import RoundUp

/// A week's counted payments as v9's `counted` table kept them: one line per payment,
/// `feedItemUid<TAB>round-up in minor units`, a backslash, tab or newline in a uid escaped
/// (`\\`, `\t`, `\n`). Read once, by migration v12, which moves them to a row each.
package enum CountedPayments {
    /// The payments in `text`, as v9 wrote them: each feed item uid with its round-up
    /// in minor units (0 where the figure does not read as one).
    package static func decode(_ text: String) -> [(uid: String, roundUp: Int64)] {
        text.split(separator: "\n", omittingEmptySubsequences: true).map { line in
            let uid = line.prefix { $0 != "\t" }
            let roundUp = Int64(line.dropFirst(uid.count + 1)) ?? 0
            guard uid.contains("\\") else { return (String(uid), roundUp) }
            var plain = ""
            var escaped = false
            for character in uid {
                if escaped {
                    plain.append(character == "t" ? "\t" : character == "n" ? "\n" : character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else {
                    plain.append(character)
                }
            }
            return (plain, roundUp)
        }
    }
}
