package import Foundation
package import RoundUp

/// A time the report gives in UTC (`2026-11-17T08:12:31.000Z`), on the saver's clock:
/// `2026-11-17 08:12` in the week's zone.
package final class LocalTimeText {
    package let zone: TimeZone?
    /// Each time ends with its offset from UTC: `2026-10-25 01:30 +01:00`.
    package let showingOffsets: Bool
    /// The zone's offset by quarter hour since 1970: this century every zone changes its
    /// offset on a quarter hour, and a busy week's hundred thousand payments need only a few
    /// hundred of them.
    private var offsets: [Int64: Int64] = [:]
    /// What each UTC minute reads as: a week has ten thousand of them, and a busy week's
    /// payments share them.
    private var minutes: [Int64: String] = [:]

    package init(zone: TimeZone?, showingOffsets: Bool = false) {
        self.zone = zone
        self.showingOffsets = showingOffsets
    }

    /// `instant` on the saver's clock; `fallback` when there is no instant or no zone.
    package func text(_ instant: Instant?, else fallback: String) -> String {
        guard let zone, let instant else { return fallback }
        let (minuteSince1970, _) = instant.millisecondsSince1970.dividedRoundingDown(by: 60_000)
        if let known = minutes[minuteSince1970] { return known }
        let text = self.text(minuteSince1970 * 60, in: zone)
        minutes[minuteSince1970] = text
        return text
    }

    /// The minute that begins `seconds` after 1970, in `zone`.
    private func text(_ seconds: Int64, in zone: TimeZone) -> String {
        let (quarter, _) = seconds.dividedRoundingDown(by: 900)
        let offset: Int64
        if let known = offsets[quarter] {
            offset = known
        } else {
            offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
            offsets[quarter] = offset
        }
        let (days, second) = (seconds + offset).dividedRoundingDown(by: 86_400)
        let hour = second / 3600
        let minute = second % 3600 / 60
        let time =
            "\(LocalDate(daysSinceEpoch: Int(days))) \(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute)"
        guard showingOffsets else { return time }
        let (offsetHours, offsetMinutes) = (abs(offset) / 3600, abs(offset) % 3600 / 60)
        return time + " \(offset < 0 ? "-" : "+")\(offsetHours < 10 ? "0" : "")\(offsetHours):"
            + "\(offsetMinutes < 10 ? "0" : "")\(offsetMinutes)"
    }

    /// The indices of `instants` in time order, the feed's order among equal times, each
    /// with its instant; an item without one comes last.
    package static func order(_ instants: [Instant?]) -> [(index: Int, instant: Instant?)] {
        let keys = instants.map { $0?.millisecondsSince1970 ?? .max }
        return keys.indices.sorted { (keys[$0], $0) < (keys[$1], $1) }.map { ($0, instants[$0]) }
    }
}

extension Int64 {
    /// The quotient rounded towards minus infinity, and the remainder that goes with it.
    fileprivate func dividedRoundingDown(by divisor: Int64) -> (Int64, Int64) {
        let remainder = self % divisor
        return remainder < 0 ? (self / divisor - 1, remainder + divisor) : (self / divisor, remainder)
    }
}

/// Text from the bank or the config, made safe inside a Markdown table or paragraph.
package enum Markdown {
    /// A uid from the bank as a code span, printable; escaped text instead when it holds a
    /// backtick, which would end the span.
    package static func code(_ text: String) -> String {
        let shown = printable(text)
        return shown.contains("`") ? escape(shown) : "`\(shown)`"
    }

    /// A reason a feed item was left out (`not-settled`), in words.
    package static func reason(_ code: String) -> String {
        Exclusion(rawValue: code)?.description ?? escape(code)
    }

    package static func escape(_ text: String) -> String {
        var result = ""
        escape(text, into: &result)
        return result
    }

    /// Appends `text`, escaped, to `result`; text with nothing to escape is appended whole.
    package static func escape(_ text: String, into result: inout String) {
        // The bank's text is made printable first: no control character reaches the file.
        let text = printable(text)
        if !text.utf8.contains(where: needsEscape) {
            result += text
            return
        }
        for character in text {
            switch character {
            case "|": result += "\\|"
            case "\\": result += "\\\\"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "`", "*", "_", "[", "]": result += "\\\(character)"
            case "\n", "\r", "\r\n": result += " "
            default: result.append(character)
            }
        }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "|"), UInt8(ascii: "\\"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "`"),
            UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "["), UInt8(ascii: "]"), 0x0A, 0x0D:
            true
        default: false
        }
    }
}
