public import RoundUp
import RoundUpReports
import RoundUpVocabulary
public import StarlingAPI

/// This machine's instants on the bank's clock, and how far either may be off: what every
/// comparison of a feed item's time with a moment of this run goes by. The feed stamps
/// transfers on the bank's clock; the run knows its own moments on this machine's.
public struct BankTime: Sendable, Equatable {
    /// How far the bank's clock is ahead of this machine's (negative: behind); zero when
    /// no answer said.
    public var offset: Duration
    /// How far an instant converted may still be from the bank's own stamp of it.
    public var margin: Duration
    /// Whether the offset was read from the bank's answers.
    public var measured: Bool

    /// A skew this large is said in the summary, the report and `check`.
    public static let worthSaying: Duration = .seconds(120)
    /// A skew this large sends nothing: the run cannot trust either clock.
    public static let tooFar: Duration = .seconds(WeekReport.clocksTooFarSeconds)

    public init(offset: Duration, margin: Duration, measured: Bool) {
        self.offset = offset
        self.margin = margin
        self.measured = measured
    }

    /// From the bank's clock as read so far, with the configured margin
    /// (`clockSkewMarginSeconds`) as the least: with no reading, no offset and that margin.
    /// With one, the margin also covers the reading's error and the offset itself, so that
    /// a window around an instant on the bank's clock holds it on this machine's too: the
    /// `Date` header and the feed's stamps may come from different clocks of the bank's (or
    /// a proxy's), and a transfer is looked for wherever either puts it.
    public init(_ reading: BankClock.Reading?, floor: Duration) {
        guard let reading else {
            self.init(offset: .zero, margin: floor, measured: false)
            return
        }
        let distance = reading.offset < .zero ? .zero - reading.offset : reading.offset
        self.init(offset: reading.offset, margin: max(floor, reading.error, distance), measured: true)
    }

    /// `local`, an instant on this machine's clock, on the bank's.
    public func bank(_ local: Instant) -> Instant { local.adding(offset) }

    /// How far apart the clocks are, either way.
    var distance: Duration { offset < .zero ? .zero - offset : offset }

    /// How far off the bank's clock is, in whole seconds, when that is worth saying.
    public var skewSeconds: Int64? {
        guard measured, distance >= Self.worthSaying else { return nil }
        return offset.components.seconds
    }

    /// How far off the bank's clock is, in words, when that is worth saying; nil otherwise.
    public var skew: String? {
        skewSeconds.map { "the bank's clock is \(WeekReport.clockSkew($0))" }
    }

    /// Why the clocks cannot be trusted, when they are an hour or more apart.
    public var tooFar: String? {
        guard distance >= Self.tooFar, let skew else { return nil }
        return "\(skew): with clocks an hour or more apart the feed cannot be read for this run's own transfers"
    }

    /// Why nothing may be sent: the clocks are an hour or more apart.
    public var refusal: String? {
        tooFar.map {
            "\($0), so nothing was sent; check this machine's clock (timedatectl status) and any proxy between it and the bank, then run again"
        }
    }
}

extension AccountWeek {
    /// Where the feed is searched for this week's own transfer: its first send, on the
    /// bank's clock; for a week sent before sends were recorded, its intent, converted.
    package func firstSend(_ time: BankTime) -> Instant? { firstSentAt ?? recordedAt.map(time.bank) }

    /// When the bank confirmed the transfer, on its clock; for a week confirmed before that
    /// was recorded, its last change, converted.
    package func confirmation(_ time: BankTime) -> Instant? {
        confirmedAt ?? updatedAt.flatMap(Instant.init(iso8601:)).map(time.bank)
    }
}
