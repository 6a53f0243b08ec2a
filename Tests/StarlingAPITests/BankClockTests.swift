import CurlHTTP
import RoundUp
import StarlingAPI
import Testing

@Suite struct BankClockTests {
    static let start = Instant(iso8601: "2026-11-28T02:00:00Z")!

    /// A `Date` header of the bank's time `offset` seconds from this machine's, for a request
    /// sent at `sent` milliseconds after `start` and answered `tripMilliseconds` later.
    static func record(_ clock: BankClock, offset: Int64, sent: Int64, trip: Int64) {
        let at = start.adding(milliseconds: sent)
        let answered = at.adding(milliseconds: trip / 2 + offset * 1000).millisecondsSince1970 / 1000
        clock.record(
            date: HTTPDate.format(seconds: answered), sent: at, received: at.adding(milliseconds: trip))
    }

    @Test func noAnswerWithADateIsNoReading() {
        let clock = BankClock()
        clock.record(date: nil, sent: Self.start, received: Self.start)
        clock.record(date: "yesterday", sent: Self.start, received: Self.start)
        #expect(clock.reading == nil)
    }

    @Test func theOffsetIsReadWithinItsError() throws {
        let clock = BankClock()
        for index in 0..<9 { Self.record(clock, offset: -900, sent: Int64(index) * 1_370, trip: 40) }
        let reading = try #require(clock.reading)
        #expect(reading.samples == 9)
        #expect(reading.error == .milliseconds(520))
        #expect(abs(reading.offset.components.seconds + 900) <= 1, "\(reading)")
    }

    /// A request that waited for a connection has a long round trip and an offset pulled its
    /// way: the quick answers decide the reading.
    @Test func slowAnswersDoNotMoveIt() throws {
        let clock = BankClock()
        for index in 0..<3 { Self.record(clock, offset: 300, sent: Int64(index) * 1_000, trip: 20) }
        for index in 0..<5 {
            // Sent, then waited 8 s before going out: the bank's time is that of the late answer.
            let at = Self.start.adding(milliseconds: 10_000 + Int64(index) * 1_000)
            let answered = at.adding(milliseconds: 8_000 + 300_000).millisecondsSince1970 / 1000
            clock.record(
                date: HTTPDate.format(seconds: answered), sent: at, received: at.adding(milliseconds: 8_020))
        }
        let reading = try #require(clock.reading)
        #expect(reading.samples == 8)
        #expect(abs(reading.offset.components.seconds - 300) <= 1, "\(reading)")
        #expect(reading.error < .seconds(1))
    }
}
