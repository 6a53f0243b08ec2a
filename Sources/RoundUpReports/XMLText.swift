/// Text as XML (and HTML) character data or an attribute's value: markup escaped, and the
/// two characters XML 1.0 forbids that a name can hold (U+FFFE and U+FFFF, which are no
/// controls for `printable`) left out, so no name makes the savings chart or an OFX file
/// unreadable. Controls are the caller's to make printable first.
package enum XMLText {
    package static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\u{FFFE}", "\u{FFFF}": continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
