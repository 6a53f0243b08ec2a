import CurlHTTP
public import RoundUp
import Synchronization

/// The bank's clock, as the `Date` headers of its answers show it against this machine's.
///
/// Each answer with a readable `Date` is a sample: the header names a whole second, so the
/// bank's time at the answer lies in that second, and the answer was made somewhere
/// between the request leaving and the answer arriving. The sample's offset is taken at
/// the middle of both, and its error is half the round trip plus half a second. A request
/// that waited for a connection, or an answer that waited to be read, has a long round
/// trip and an offset pulled its way, so the reading takes the best samples, those whose
/// error is within a second of the smallest: their median offset, so that one odd answer
/// does not move it, and the largest of their errors.
public final class BankClock: Sendable {
    /// What the answers so far say of the bank's clock.
    public struct Reading: Sendable, Equatable {
        /// How far the bank's clock is ahead of this machine's (negative: behind).
        public var offset: Duration
        /// How far the true offset may be from `offset`.
        public var error: Duration
        /// How many answers it was read from.
        public var samples: Int

        public init(offset: Duration, error: Duration, samples: Int) {
            self.offset = offset
            self.error = error
            self.samples = samples
        }
    }

    /// The most samples kept: the first ones of a run, which are as good as any later.
    static let keptSamples = 1_001
    private let samples = Mutex<[(offset: Int64, error: Int64)]>([])

    public init() {}

    /// Records the answer to a request sent at `sent` and answered at `received` (both on
    /// this machine's clock), whose `Date` header is `date`. A header that is not an HTTP
    /// date is no sample.
    public func record(date: String?, sent: Instant, received: Instant) {
        guard let date, let seconds = HTTPDate.seconds(date), received >= sent else { return }
        let (bankMiddle, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return }
        let middle = sent.millisecondsSince1970 / 2 + received.millisecondsSince1970 / 2
        let sample = (
            offset: bankMiddle + 500 - middle,
            error: (received.millisecondsSince1970 - sent.millisecondsSince1970 + 1) / 2 + 500
        )
        samples.withLock { samples in
            if samples.count < Self.keptSamples { samples.append(sample) }
        }
    }

    /// The bank's clock as read so far; nil when no answer carried a readable `Date`.
    public var reading: Reading? {
        let kept = samples.withLock { $0 }
        guard let least = kept.map(\.error).min() else { return nil }
        let best = kept.filter { $0.error <= least + 1000 }
        let offsets = best.map(\.offset).sorted()
        return Reading(
            offset: .milliseconds(offsets[offsets.count / 2]), error: .milliseconds(best.map(\.error).max() ?? least),
            samples: kept.count)
    }
}
