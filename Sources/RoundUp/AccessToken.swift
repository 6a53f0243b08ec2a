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
    /// newline). Nil when nothing is left or it holds characters a header cannot carry.
    public init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty,
            trimmed.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { return nil }
        self.secret = trimmed
        self.secretBytes = Array(trimmed.utf8)
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
