public import Foundation

extension Instant {
    /// The current time, from the system clock. Only the edges of the program call this;
    /// the domain takes `now` as an argument.
    public static var now: Instant {
        Instant(Date())
    }

    /// The millisecond `date` falls in.
    public init(_ date: Date) {
        self.init(millisecondsSince1970: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// This instant as a Foundation `Date`.
    public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }
}
