import CurlHTTP
import Testing

/// The pacer on its own: how many requests start within a second, and a held pause.
@Suite struct RequestPacerTests {
    /// Fifteen quick requests at 10 a second: the first ten go at once, the rest wait until
    /// a second has passed since the first ones ended, and every ticket is counted.
    @Test func noMoreThanTheRateCountInAnySecond() async {
        let pacer = RequestPacer(perSecond: 10)
        let clock = ContinuousClock()
        let start = clock.now
        var starts: [Duration] = []
        for _ in 0..<15 {
            let ticket = await pacer.admit()
            starts.append(clock.now - start)
            await pacer.finished(ticket)
        }
        #expect(await pacer.sent == 15)
        #expect(starts[9] < .milliseconds(500), "the first ten need not wait")
        #expect(starts[10] >= .seconds(1), "the eleventh waits for a second after the first ended")
        for index in 10..<15 { #expect(starts[index] - starts[index - 10] >= .seconds(1)) }
    }

    /// A request under way counts until it ends: a second request at 1 a second waits for it.
    @Test func aRequestUnderWayCountsUntilItEnds() async {
        let pacer = RequestPacer(perSecond: 1)
        let clock = ContinuousClock()
        let first = await pacer.admit()
        let start = clock.now
        async let second: Int = pacer.admit()
        try? await Task.sleep(for: .milliseconds(300))
        await pacer.finished(first)
        _ = await second
        #expect(clock.now - start >= .milliseconds(1300))
    }

    @Test func retryAfterHoldsEveryRequest() async {
        let pacer = RequestPacer(perSecond: 100)
        let clock = ContinuousClock()
        await pacer.hold(for: .milliseconds(400))
        let start = clock.now
        _ = await pacer.admit()
        #expect(clock.now - start >= .milliseconds(390))
    }
}
