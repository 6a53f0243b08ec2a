/// The bank's uids: UUIDs, in one spelling.
///
/// The bank describes every uid it sends (feed items, accounts, categories, goals, transfers,
/// mandates, standing orders) as `format: uuid`. A uid is read as one where it comes in from
/// the bank (`uuid`): white space around it is trimmed, and what is left must be a UUID's
/// 32 hexadecimal digits in its 8-4-4-4-12 groups, in ASCII, or it is not a uid at all. Its
/// spelling inside the job is then the parsed value in lower case, so that two uids are one
/// exactly when they name one UUID, never because Unicode calls two texts equivalent
/// (`café` written with one scalar or with two), and never two because of an invisible
/// character or a fullwidth digit.
public enum Uid {
    /// `text` as a UUID, lower-case, once white space (ASCII and Unicode) around it is
    /// trimmed; nil when what is left is not a UUID. `text` itself, not a copy, when it is
    /// already one in lower case.
    public static func uuid(_ text: String) -> String? {
        switch shape(of: text.utf8) {
        case .lowerCase: return text
        case .withCapitals:
            let lowered: String = canonical(text)
            return lowered
        case .notAUUID: break
        }
        // Rare: white space around it, or not a UUID at all. Trimmed a scalar at a time: a
        // space with a mark joined to it is not white space alone.
        var trimmed = Substring(text).unicodeScalars
        while trimmed.first?.properties.isWhitespace == true { trimmed.removeFirst() }
        while trimmed.last?.properties.isWhitespace == true { trimmed.removeLast() }
        let left = String(trimmed)
        guard left.utf8.count != text.utf8.count, shape(of: left.utf8) != .notAUUID else { return nil }
        let lowered: String = canonical(left)
        return lowered
    }

    private enum Shape { case lowerCase, withCapitals, notAUUID }

    /// Whether `bytes` are a UUID: 36 of them, hyphens at 8, 13, 18 and 23, ASCII
    /// hexadecimal digits elsewhere.
    private static func shape(of bytes: some Collection<UInt8>) -> Shape {
        guard bytes.count == 36 else { return .notAUUID }
        var capitals = false
        for (offset, byte) in bytes.enumerated() {
            switch offset {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return .notAUUID }
            default:
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): break
                case UInt8(ascii: "A")...UInt8(ascii: "F"): capitals = true
                default: return .notAUUID
                }
            }
        }
        return capitals ? .withCapitals : .lowerCase
    }

    /// A uid that is already in the job's spelling (from the ledger, or made by the job
    /// itself) with any ASCII capitals made small; `uid` itself, not a copy, when it has
    /// none. Only ASCII letters change: this never makes a uid of something that is not one.
    public static func canonical(_ uid: String) -> String {
        let isCapital = { (byte: UInt8) in byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
        guard uid.utf8.contains(where: isCapital) else { return uid }
        return String(decoding: uid.utf8.map { isCapital($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// `uid` canonical, or nil.
    public static func canonical(_ uid: String?) -> String? { uid.map { canonical($0) } }

    /// A payment's identity: its feed item uid as a UUID (`uuid`), so that `AB12…`,
    /// `ab12…` and ` ab12… ` are one payment. Empty when the bank sent no uid, or one that
    /// is not a UUID: no identity, and the payment is left out (`no-identity`).
    public static func identity(_ feedItemUid: String?) -> String {
        feedItemUid.flatMap(uuid) ?? ""
    }

    /// What the bank sent as a feed item's uid when it is not a UUID, kept to be named in
    /// the warning that leaves the payment out (at most `shownLimit` characters of it, as
    /// `shown` writes them); nil when it sent none or a UUID. `identity` is the item's
    /// (`identity`), so that a UUID is not read twice.
    public static func unreadable(_ feedItemUid: String?, identity: String) -> String? {
        guard let feedItemUid, identity.isEmpty else { return nil }
        return shown(feedItemUid)
    }

    /// What names a feed item's uid that is there but not text (a number, a list).
    public static let notText = "(not text)"

    /// How many of a text's characters `shown` keeps.
    public static let shownLimit = 40

    /// Text that should have been a uid, as a person can read it and tell apart from any
    /// other: in double quotes, each scalar outside printable ASCII written as its escape
    /// (`caf\u00e9-1` and `cafe\u0301-1` stay two), cut after `shownLimit` scalars.
    public static func shown(_ text: String) -> String {
        let kept = String(String.UnicodeScalarView(text.unicodeScalars.prefix(shownLimit)))
        let cut = text.unicodeScalars.dropFirst(shownLimit).isEmpty ? "" : "…"
        return "\"" + escaping(kept) { !(0x20..<0x7F).contains($0.value) || $0 == "\"" || $0 == "\\" } + cut + "\""
    }
}
