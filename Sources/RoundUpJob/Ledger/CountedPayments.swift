import RoundUp

/// A week's counted payments as the ledger's `counted` table keeps them: one line per
/// payment, `feedItemUid<TAB>round-up in minor units`, readable with `sqlite3`. A uid is the
/// bank's text, so a backslash, tab or newline in one is escaped (`\\`, `\t`, `\n`) and
/// read back exactly.
enum CountedPayments {
    static func encode(_ payments: [CountedTransaction]) -> String {
        var text = ""
        text.reserveCapacity(payments.count * 48)
        for payment in payments {
            if payment.uid.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A }) {
                for character in payment.uid {
                    switch character {
                    case "\\": text += "\\\\"
                    case "\t": text += "\\t"
                    case "\n": text += "\\n"
                    default: text.append(character)
                    }
                }
            } else {
                text += payment.uid
            }
            text += "\t"
            text += String(payment.roundUp.minorUnits)
            text += "\n"
        }
        return text
    }

    /// The payments in `text`, as `encode` wrote them: each feed item uid with its round-up
    /// in minor units (0 where the figure does not read as one).
    static func decode(_ text: String) -> [(uid: String, roundUp: Int64)] {
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
