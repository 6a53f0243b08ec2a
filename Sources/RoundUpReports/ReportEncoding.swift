import Foundation
package import RoundUp

// The report's structures as JSON text: times in ISO 8601 (UTC, or with the week's offset
// where the key says local), amounts with their currency's decimals. `ReportJSON` writes the
// same text by hand, faster; a test holds the two to each other, and the schema to both.

extension Week {
    /// The week's first instant on its own clock, with the offset: `2026-11-09T00:00:00Z`.
    package var localStartText: String { localText(start) }
    /// The first instant after the week on its own clock, with the offset.
    package var localEndText: String { localText(end) }

    private func localText(_ instant: Instant) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = timeZone
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: instant.date)
    }

    /// Whether the clocks change during the week, so that its local times need offsets.
    package var clocksChange: Bool {
        timeZone.secondsFromGMT(for: start.date) != timeZone.secondsFromGMT(for: end.date)
    }
}

extension WeekReport {
    enum CodingKeys: String, CodingKey {
        case schemaVersion, generator, generatedAt, dryRun, week, accounts, error, exitCode, retries, requests
        case requestsPerAccountWeek, bankClockOffsetSeconds
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schemaVersion, forKey: .schemaVersion)
        try container.encode(generator, forKey: .generator)
        try container.encode(generatedAt.iso8601, forKey: .generatedAt)
        try container.encode(dryRun, forKey: .dryRun)
        try container.encode(WeekText(week), forKey: .week)
        try container.encode(accounts, forKey: .accounts)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encode(exitCode, forKey: .exitCode)
        try container.encodeIfPresent(retries, forKey: .retries)
        try container.encodeIfPresent(requests, forKey: .requests)
        try container.encodeIfPresent(requestsPerAccountWeek, forKey: .requestsPerAccountWeek)
        try container.encodeIfPresent(bankClockOffsetSeconds, forKey: .bankClockOffsetSeconds)
    }
}

/// The report's `week`: the week's dates, its zone, and its bounds in local time and UTC.
package struct WeekText: Encodable {
    let week: Week

    package init(_ week: Week) { self.week = week }

    enum CodingKeys: String, CodingKey {
        case startDate, endDate, timeZone, startLocal, endLocal, startUTC, endUTC, hours
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(week.startDate.description, forKey: .startDate)
        try container.encode(week.endDate.description, forKey: .endDate)
        try container.encode(week.timeZone.identifier, forKey: .timeZone)
        try container.encode(week.localStartText, forKey: .startLocal)
        try container.encode(week.localEndText, forKey: .endLocal)
        try container.encode(week.start.iso8601, forKey: .startUTC)
        try container.encode(week.end.iso8601, forKey: .endUTC)
        try container.encode(week.hours, forKey: .hours)
    }
}

extension AccountReport {
    enum CodingKeys: String, CodingKey {
        case accountUid, name, currency, accountType, nativeRoundUp, status, detail, transactions, countedEarlier
        case leftOut, leftOutTransactions, roundUpSum, multiplier, roundTo, capApplied, minimumBalance, balance
        case heldBack, total, totalMinorUnits, goal, transferUid, window, exitCode, forecast
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(accountUid, forKey: .accountUid)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encode(currency, forKey: .currency)
        try container.encodeIfPresent(accountType, forKey: .accountType)
        try container.encodeIfPresent(nativeRoundUp, forKey: .nativeRoundUp)
        try container.encode(status.reportJSONWord, forKey: .status)
        try container.encodeIfPresent(detail, forKey: .detail)
        try container.encode(transactions, forKey: .transactions)
        try container.encodeIfPresent(countedEarlier, forKey: .countedEarlier)
        try container.encode(leftOut, forKey: .leftOut)
        try container.encodeIfPresent(leftOutTransactions, forKey: .leftOutTransactions)
        try container.encodeIfPresent(roundUpSum?.formattedAmount, forKey: .roundUpSum)
        try container.encodeIfPresent(multiplier, forKey: .multiplier)
        try container.encodeIfPresent(roundTo, forKey: .roundTo)
        try container.encodeIfPresent(capApplied?.formattedAmount, forKey: .capApplied)
        try container.encodeIfPresent(minimumBalance?.formattedAmount, forKey: .minimumBalance)
        try container.encodeIfPresent(balance?.formattedAmount, forKey: .balance)
        try container.encodeIfPresent(heldBack?.formattedAmount, forKey: .heldBack)
        try container.encodeIfPresent(total?.formattedAmount, forKey: .total)
        try container.encodeIfPresent(totalMinorUnits, forKey: .totalMinorUnits)
        try container.encodeIfPresent(goal, forKey: .goal)
        try container.encodeIfPresent(transferUid, forKey: .transferUid)
        try container.encodeIfPresent(window, forKey: .window)
        try container.encodeIfPresent(forecast, forKey: .forecast)
        try container.encode(exitCode, forKey: .exitCode)
    }
}

extension ForecastReport: Encodable {
    enum CodingKeys: String, CodingKey {
        case complete, due, dueTotal, lowPoint, payday, through, today, unplaced, unseen
    }

    private struct Due: Encodable {
        let amount: String
        let date: String
        let dateReckoned: Bool
        let label: String
        let lastAmount: Bool
        let source: String
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(unplaced.isEmpty, forKey: .complete)
        try container.encode(
            due.map {
                Due(
                    amount: $0.amount.formattedAmount, date: $0.date.description, dateReckoned: $0.dateReckoned,
                    label: $0.label,
                    lastAmount: $0.lastAmount, source: $0.source.rawValue)
            }, forKey: .due)
        try container.encode(dueTotal.formattedAmount, forKey: .dueTotal)
        try container.encodeIfPresent(lowPoint?.formattedAmount, forKey: .lowPoint)
        try container.encodeIfPresent(payday?.description, forKey: .payday)
        try container.encode(through.description, forKey: .through)
        try container.encode(today.description, forKey: .today)
        try container.encode(unplaced, forKey: .unplaced)
        try container.encode(unseen, forKey: .unseen)
    }
}

extension WindowReport {
    enum CodingKeys: String, CodingKey { case startUTC, endUTC, hours, note }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(start.iso8601, forKey: .startUTC)
        try container.encode(end.iso8601, forKey: .endUTC)
        try container.encode(hours, forKey: .hours)
        try container.encode(note, forKey: .note)
    }
}

extension GoalReport {
    enum CodingKeys: String, CodingKey {
        case uid, name, created, wouldCreate, saved, savedMinorUnits, target, targetMinorUnits
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(uid, forKey: .uid)
        try container.encode(name, forKey: .name)
        try container.encode(created, forKey: .created)
        try container.encode(wouldCreate, forKey: .wouldCreate)
        try container.encodeIfPresent(saved?.formattedAmount, forKey: .saved)
        try container.encodeIfPresent(saved?.minorUnits, forKey: .savedMinorUnits)
        try container.encodeIfPresent(target?.formattedAmount, forKey: .target)
        try container.encodeIfPresent(target?.minorUnits, forKey: .targetMinorUnits)
    }
}

extension TransactionReport {
    enum CodingKeys: String, CodingKey { case feedItemUid, settlementTime, counterParty, amount, roundUp, source }

    /// A counted payment always has a time; one without is written "".
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(feedItemUid, forKey: .feedItemUid)
        try container.encode(settlementTime?.iso8601 ?? "", forKey: .settlementTime)
        try container.encodeIfPresent(counterParty, forKey: .counterParty)
        try container.encode(amount.formattedAmount, forKey: .amount)
        try container.encode(roundUp.formattedAmount, forKey: .roundUp)
        try container.encodeIfPresent(source, forKey: .source)
    }
}

extension LeftOutReport {
    enum CodingKeys: String, CodingKey { case feedItemUid, settlementTime, counterParty, amount, reason, source }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(feedItemUid, forKey: .feedItemUid)
        try container.encodeIfPresent(settlementTime?.iso8601, forKey: .settlementTime)
        try container.encodeIfPresent(counterParty, forKey: .counterParty)
        try container.encode(amount.formattedAmount, forKey: .amount)
        try container.encode(reason, forKey: .reason)
        try container.encodeIfPresent(source, forKey: .source)
    }
}
