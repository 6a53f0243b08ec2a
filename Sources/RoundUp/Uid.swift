/// The one spelling of a uid inside the job: lower-case.
///
/// The bank's uids are UUIDs, whose hex digits are the same in either case, and its own
/// pattern for them accepts both. A uid is brought to this spelling once, where it comes in
/// (the config, a flag, a ledger row, a bank answer), so that everything inside compares
/// one form. Only ASCII letters change: a uid is ASCII, and anything else in one is left
/// as it is rather than folded by rules a UUID does not have.
public enum Uid {
    /// `uid` with its ASCII capitals made small; `uid` itself, not a copy, when it has none.
    public static func canonical(_ uid: String) -> String {
        let isCapital = { (byte: UInt8) in byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
        guard uid.utf8.contains(where: isCapital) else { return uid }
        return String(decoding: uid.utf8.map { isCapital($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// `uid` canonical, or nil.
    public static func canonical(_ uid: String?) -> String? { uid.map { canonical($0) } }

    /// A payment's identity: its feed item uid without the white space around it, in the
    /// one spelling (`canonical`), so that `AB12…`, `ab12…` and ` ab12… ` are one payment.
    /// Empty when the bank sent no uid, or one of white space alone: no identity.
    public static func identity(_ feedItemUid: String?) -> String {
        guard let feedItemUid else { return "" }
        // Bytes outside ASCII's printable range, or a space, at either end: trimmed the slow way.
        let plain = { (byte: UInt8) in byte > 0x20 && byte < 0x7F }
        if let first = feedItemUid.utf8.first, let last = feedItemUid.utf8.last, plain(first), plain(last) {
            return canonical(feedItemUid)
        }
        var trimmed = Substring(feedItemUid)
        while trimmed.first?.isWhitespace == true { trimmed.removeFirst() }
        while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
        return canonical(String(trimmed))
    }
}
