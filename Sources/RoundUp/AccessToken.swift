import Foundation

/// The holder's access token. It can be put in an `Authorization` header and nowhere
/// else: printing, interpolating, dumping or reflecting it shows only `<redacted>`, and it
/// is neither `Codable` nor `Equatable`, so it cannot slip into a report, a state file or
/// a log line.
public struct AccessToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let secret: String
    /// The secret's bytes, for searching large texts.
    private let secretBytes: [UInt8]

    /// Wraps `value`, trimmed of surrounding white space (a token file usually ends in a
    /// newline). Nil when it is no token a header can carry (`problem(with:)` says why).
    public init?(_ value: String) {
        guard Self.problem(with: value) == nil else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        self.secret = trimmed
        self.secretBytes = Array(trimmed.utf8)
    }

    /// Why `value`, trimmed of surrounding white space, is no access token, in words that
    /// finish "STARLING_ACCESS_TOKEN …" or "the token file … ": what to remove, and where,
    /// never the token itself. Nil for a token. A bearer token is letters, digits and
    /// `-._~+/`, with `=` only at its end (RFC 6750); anything else was pasted with it.
    /// Quotes around it, or the header's `Bearer ` before it, are the usual slips: sent as
    /// they are, the bank answers that the token is invalid or expired, and a new token
    /// pasted the same way fails the same way.
    public static func problem(with value: String) -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        let scalars = Array(trimmed.unicodeScalars)
        guard let first = scalars.first, let last = scalars.last else { return "is empty" }
        let pairs: [Unicode.Scalar: Unicode.Scalar] = [
            "\"": "\"", "'": "'", "`": "`", "\u{201C}": "\u{201D}", "\u{2018}": "\u{2019}", "\u{00AB}": "\u{00BB}",
            "\u{201E}": "\u{201C}", "<": ">",
        ]
        if scalars.count >= 2, pairs[first] == last {
            guard scalars.count > 2 else {
                return "holds only a pair of quotes (\(first)\(last)): the token is missing"
            }
            return "has quotes (\(first) \(last)) around it: remove the one at its start and the one at its end"
        }
        let lower = trimmed.lowercased()
        if lower == "bearer" { return "is only the word Bearer: the token itself is missing" }
        if lower.hasPrefix("bearer"), !isTokenCharacter(scalars[6]) {
            return "begins with the word Bearer: remove it, and what separates it from the token; roundup adds it "
                + "itself"
        }
        if scalars.allSatisfy({ $0 == "=" }) { return "holds only = signs: the token itself is missing" }
        if lower.hasPrefix("starling_access_token=") || lower.hasPrefix("export starling_access_token=") {
            return "begins with STARLING_ACCESS_TOKEN=: it holds the token alone, with nothing before it"
        }
        let padding = scalars.reversed().prefix { $0 == "=" }.count
        let bad = scalars.dropLast(padding).enumerated().filter { !isTokenCharacter($0.element) }
        guard let (index, scalar) = bad.first else { return nil }
        let what =
            switch scalar.value {
            case 0x20: "a space"
            case 0x09: "a tab"
            case 0x0A, 0x0D: "a line break"
            case ..<0x20, 0x7F: "a control character (U+\(hex(scalar)))"
            case 0x80...: "a character outside ASCII (U+\(hex(scalar)))"
            default: "\(scalar)"
            }
        let more = bad.count > 1 ? ", and \(bad.count - 1) more such character(s) after it" : ""
        return "holds \(what) at character \(index + 1) of \(scalars.count)\(more), which no access token has: "
            + "copy the token again, alone"
    }

    /// A character of RFC 6750's `b64token`, but its closing `=`.
    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", ".", "_", "~", "+", "/": true
        default: false
        }
    }

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    package var authorizationValue: String { "Bearer \(secret)" }

    /// How many bytes the token has (not what they are).
    public var length: Int { secretBytes.count }

    /// `text` with every occurrence of the token replaced by `<redacted>`: for text that
    /// came from elsewhere (a bank that echoes the token in an error message, say). Text
    /// without the token, nearly always, is only searched (a byte search, fast on reports
    /// of many megabytes) and returned as it is.
    public func redacted(in text: String) -> String {
        var text = text
        let found = text.withUTF8 { occurs(in: UnsafeRawBufferPointer($0)) }
        return found ? text.replacingOccurrences(of: secret, with: "<redacted>") : text
    }

    /// `bytes` (UTF-8 text) with every occurrence of the token replaced by `<redacted>`;
    /// the same array, uncopied, when the token is not in it.
    public func redacted(inUTF8 bytes: [UInt8]) -> [UInt8] {
        let found = bytes.withUnsafeBytes { occurs(in: $0) }
        guard found else { return bytes }
        return Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: secret, with: "<redacted>").utf8)
    }

    /// Whether the token's bytes occur in `bytes`.
    func occurs(in bytes: UnsafeRawBufferPointer) -> Bool {
        let needle = secretBytes
        guard let haystack = bytes.baseAddress, bytes.count >= needle.count, let firstByte = needle.first else {
            return false
        }
        return needle.withUnsafeBytes { pattern -> Bool in
            // memchr finds each candidate first byte at machine speed; memcmp checks the rest.
            var offset = 0
            while bytes.count - offset >= pattern.count {
                let window = bytes.count - offset - pattern.count + 1
                guard let hit = memchr(haystack + offset, Int32(firstByte), window) else { return false }
                if memcmp(hit, pattern.baseAddress!, pattern.count) == 0 { return true }
                offset = haystack.distance(to: UnsafeRawPointer(hit)) + 1
            }
            return false
        }
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: []) }
}
