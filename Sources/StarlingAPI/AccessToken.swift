import Foundation

/// The holder's access token. It can be put in an `Authorization` header and nowhere
/// else: printing, interpolating, dumping or reflecting it shows only `<redacted>`, and it
/// is neither `Codable` nor `Equatable`, so it cannot slip into a report, a state file or
/// a log line.
public struct AccessToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let secret: String

    /// Wraps `value`, trimmed of surrounding white space (a token file usually ends in a
    /// newline). Nil when nothing is left or it holds characters a header cannot carry.
    public init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty,
            trimmed.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { return nil }
        self.secret = trimmed
    }

    var authorizationValue: String { "Bearer \(secret)" }

    /// `text` with every occurrence of the token replaced by `<redacted>`: for text that
    /// came from elsewhere (a bank that echoes the token in an error message, say).
    public func redacted(in text: String) -> String {
        text.contains(secret) ? text.replacingOccurrences(of: secret, with: "<redacted>") : text
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: []) }
}

