/// Text from the bank or from a merchant (an account's, a goal's or a counterparty's name,
/// an error message) as it may be shown on a terminal, in a log line, in `history` or
/// `status`, or in the Markdown report: every character that could move the cursor, end a
/// line, retitle a window or reorder what is shown is written as its escape (`\u001b`),
/// never emitted. Those are the C0 and C1 controls (U+0000–001F, U+007F–009F), the
/// bidirectional controls and marks (U+061C, U+200E–200F, U+202A–202E, U+2066–2069) and
/// the line and paragraph separators (U+2028–2029). Everything else is kept as it is.
///
/// This is the one function that makes bank text printable; the JSON report keeps the exact
/// text instead, JSON-escaped.
public func printable(_ text: String) -> String {
    // Nearly every name has none of them: the bytes that can start one are looked for first.
    guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2 }),
        text.unicodeScalars.contains(where: isControl)
    else { return text }
    return escaping(text) { isControl($0) }
}

/// `text` with each scalar `escaped` picks written as `\uXXXX`. Built as UTF-8 bytes: one
/// pass, however many there are (appending to a `String.UnicodeScalarView` one scalar at a
/// time costs time in proportion to its length, which a hostile name can make large).
func escaping(_ text: String, _ escaped: (Unicode.Scalar) -> Bool) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count + 64)
    for scalar in text.unicodeScalars {
        guard escaped(scalar) else {
            UTF8.encode(scalar) { bytes.append($0) }
            continue
        }
        let digits = Array(String(scalar.value, radix: 16).utf8)
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, 4 - digits.count)))
        bytes.append(contentsOf: digits)
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Whether `scalar` is one that `printable` escapes.
public func isControl(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E...0x200F, 0x2028...0x202E, 0x2066...0x2069: true
    default: false
    }
}

/// JSON text (from an encoder, which escapes only what JSON requires) with every other
/// character `printable` escapes written as a JSON escape too (`\u009b`, `\u202e`): such
/// characters can stand only inside strings, where the escape reads back as the very same
/// text, so the document means what it meant, and a terminal showing it is driven by none.
public func printableJSON(_ json: String) -> String {
    guard json.utf8.contains(where: { $0 == 0x7F || $0 == 0xC2 || $0 == 0xD8 || $0 == 0xE2 }) else { return json }
    return escaping(json) { $0.value >= 0x7F && isControl($0) }
}
