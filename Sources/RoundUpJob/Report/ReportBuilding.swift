import Foundation
import RoundUp

extension AccountReport {
    /// The plan's part of the report: counted transactions, left-out counts and the arithmetic.
    mutating func fill(from plan: RoundUpPlan) {
        transactions = plan.counted.map { counted in
            TransactionReport(
                feedItemUid: counted.uid,
                settlementTime: counted.settlementTime?.iso8601 ?? "",
                counterParty: counted.counterPartyName, amount: counted.amount.formattedAmount,
                roundUp: counted.roundUp.formattedAmount)
        }
        leftOut = Dictionary(uniqueKeysWithValues: plan.leftOut.map { ($0.key.rawValue, $0.value) })
        roundUpSum = plan.roundUpSum.formattedAmount
        multiplier = plan.multiplier
        roundTo = plan.roundTo == 1 ? nil : plan.roundTo
        capApplied = plan.capApplied?.formattedAmount
        total = plan.total.formattedAmount
        totalMinorUnits = plan.total.minorUnits
    }
}

extension AccountReport {
    /// What a minimum balance did: the balance read, the minimum, what moves and what is held back.
    mutating func fill(from outcome: MinimumBalanceOutcome?) {
        guard let outcome else { return }
        balance = outcome.balance.formattedAmount
        minimumBalance = outcome.minimum.formattedAmount
        total = outcome.move.formattedAmount
        totalMinorUnits = outcome.move.minorUnits
        if outcome.heldBack.minorUnits > 0 { heldBack = outcome.heldBack.formattedAmount }
    }
}

extension WeekReport {
    /// The week as the report shows it, in local time with offsets and in UTC.
    init(_ week: Week) {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = week.timeZone
        formatter.formatOptions = [.withInternetDateTime]
        self.init(
            startDate: week.startDate.description, endDate: week.endDate.description,
            timeZone: week.timeZone.identifier, startLocal: formatter.string(from: week.start.date),
            endLocal: formatter.string(from: week.end.date), startUTC: week.start.iso8601, endUTC: week.end.iso8601,
            hours: week.hours)
    }
}
