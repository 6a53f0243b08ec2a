public import Foundation
import RoundUp

/// An HTTP date in IMF-fixdate, the form servers send in `Date` and `Retry-After`
/// (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`, to the second. Read and written
/// by hand, with `LocalDate`'s calendar arithmetic: no formatter, so no time zone
/// database, is needed to read the header of every answer.
public enum HTTPDate {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The instant `text` names, as seconds since 1970; nil when it is not an IMF-fixdate
    /// of a real day and time (its weekday is not checked: the date is what counts).
    public static func seconds(_ text: String) -> Int64? {
        let bytes = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == 0x20, bytes[7] == 0x20,
            bytes[11] == 0x20, bytes[16] == 0x20, bytes[19] == UInt8(ascii: ":"), bytes[22] == UInt8(ascii: ":"),
            bytes[25] == 0x20, String(decoding: bytes[26...], as: UTF8.self) == "GMT",
            days.contains(String(decoding: bytes[0..<3], as: UTF8.self)),
            let month = months.firstIndex(of: String(decoding: bytes[8..<11], as: UTF8.self)),
            let day = number(bytes[5..<7]), let year = number(bytes[12..<16]), let hour = number(bytes[17..<19]),
            let minute = number(bytes[20..<22]), let second = number(bytes[23..<25]),
            hour < 24, minute < 60, second < 61,
            let date = LocalDate(year: Int(year), month: month + 1, day: Int(day))
        else { return nil }
        return Int64(date.daysSinceEpoch) * 86_400 + hour * 3_600 + minute * 60 + second
    }

    /// The instant `text` names; nil when it is not an IMF-fixdate.
    public static func parse(_ text: String) -> Date? {
        seconds(text).map { Date(timeIntervalSince1970: Double($0)) }
    }

    /// The whole second `seconds` since 1970 (from year 1 to 9999) as an IMF-fixdate.
    public static func format(seconds: Int64) -> String {
        let clamped = min(max(seconds, -62_135_596_800), 253_402_300_799)
        let dayNumber = clamped >= 0 ? clamped / 86_400 : (clamped - 86_399) / 86_400
        let inDay = clamped - dayNumber * 86_400
        let date = LocalDate(daysSinceEpoch: Int(dayNumber))
        let weekday = days[Int(((dayNumber % 7) + 7) % 7)]
        return "\(weekday), \(two(Int64(date.day))) \(months[date.month - 1]) \(String(date.year).leftPadded(to: 4)) "
            + "\(two(inDay / 3_600)):\(two(inDay / 60 % 60)):\(two(inDay % 60)) GMT"
    }

    /// `date` as an IMF-fixdate, its fraction of a second dropped.
    public static func format(_ date: Date) -> String {
        format(seconds: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        for digit in digits {
            guard (0x30...0x39).contains(digit) else { return nil }
            value = value * 10 + Int64(digit - 0x30)
        }
        return value
    }

    private static func two(_ value: Int64) -> String { String(value).leftPadded(to: 2) }
}
