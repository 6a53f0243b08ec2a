/// A point in time, exact to the millisecond: the bank's timestamps carry milliseconds,
/// and comparing integers keeps the week's boundaries exact.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public let millisecondsSince1970: Int64

    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// This instant moved by `count` milliseconds.
    public func adding(milliseconds count: Int64) -> Instant {
        Instant(millisecondsSince1970: millisecondsSince1970 + count)
    }

    /// This instant moved by `duration` (whole milliseconds; a negative one moves it back).
    public func adding(_ duration: Duration) -> Instant {
        let (seconds, attoseconds) = duration.components
        return adding(milliseconds: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    /// Parses an ISO 8601 timestamp as the bank writes them: `2019-10-25T22:37:51.094Z`.
    /// Fractional seconds are optional and may have any number of digits (digits past the
    /// millisecond are dropped, which keeps comparisons with whole-millisecond boundaries
    /// exact); the zone is `Z` or `±HH:MM`. Anything else gives nil.
    public init?(iso8601 text: some StringProtocol) {
        var parser = TimestampParser(bytes: Array(text.utf8))
        guard let value = parser.parse() else { return nil }
        self.millisecondsSince1970 = value
    }

    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, the form the bank's query parameters take.
    public var iso8601: String {
        let ms = millisecondsSince1970
        let days = Int((ms >= 0 ? ms : ms - 86_399_999) / 86_400_000)
        let msOfDay = Int(ms - Int64(days) * 86_400_000)
        let date = LocalDate(daysSinceEpoch: days)
        let hours = msOfDay / 3_600_000
        let minutes = msOfDay / 60_000 % 60
        let seconds = msOfDay / 1000 % 60
        let millis = msOfDay % 1000
        return "\(date)T\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(seconds, 2)).\(pad(millis, 3))Z"
    }

    public var description: String { iso8601 }
}

private struct TimestampParser {
    let bytes: [UInt8]
    var index = 0

    mutating func digits(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for _ in 0..<count {
            let digit = Int(bytes[index]) - 48
            guard (0...9).contains(digit) else { return nil }
            value = value * 10 + digit
            index += 1
        }
        return value
    }

    mutating func expect(_ ascii: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: ascii) else { return false }
        index += 1
        return true
    }

    mutating func parse() -> Int64? {
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"),
            let day = digits(2), expect("T") || expect("t"),
            let hour = digits(2), expect(":"), let minute = digits(2), expect(":"),
            let second = digits(2),
            let date = LocalDate(year: year, month: month, day: day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var millis = 0
        if expect(".") {
            var count = 0
            while index < bytes.count, (48...57).contains(bytes[index]) {
                if count < 3 { millis = millis * 10 + Int(bytes[index]) - 48 }
                count += 1
                index += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<max(count, 3) { millis *= 10 }
        }
        var offsetSeconds = 0
        if expect("Z") || expect("z") {
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = digits(2), expect(":"), let minutes = digits(2), hours < 24, minutes < 60 else {
                return nil
            }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let secondsOfDay = hour * 3600 + minute * 60 + min(second, 59)
        let seconds = Int64(date.daysSinceEpoch) * 86_400 + Int64(secondsOfDay - offsetSeconds)
        return seconds * 1000 + Int64(millis)
    }
}
