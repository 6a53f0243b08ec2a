import Foundation
import RoundUp
import RoundUpReports
import StarlingAPI

extension AccountReport {
    /// The report of `account`'s week: how it ended, and what the job found on the way.
    init(account: BankAccount, outcome: AccountOutcome, findings: AccountFindings) {
        self.init(
            accountUid: account.accountUid, name: account.name, currency: account.currency, status: outcome.status)
        accountType = account.accountType
        nativeRoundUp = findings.nativeRoundUp?.rawValue
        detail = outcome.detail
        exitCode = outcome.exitCode
        if let plan = findings.plan { show(plan) }
        if let minimum = findings.balance { show(minimum) }
        if let window = findings.window, let note = window.note {
            self.window = WindowReport(
                startUTC: window.week.start.iso8601, endUTC: window.week.end.iso8601, hours: window.week.hours,
                note: note)
        }
        if let movement = findings.movement {
            total = movement.amount.formattedAmount
            totalMinorUnits = movement.amount.minorUnits
            goal = movement.goal
            transferUid = movement.transferUid
        }
    }

    /// The plan's part of the report: counted transactions, left-out counts and the arithmetic.
    private mutating func show(_ plan: RoundUpPlan) {
        let row = { (counted: CountedTransaction) in
            TransactionReport(
                feedItemUid: counted.uid,
                settlementTime: counted.settlementTime, counterParty: counted.counterPartyName,
                amount: counted.amount, roundUp: counted.roundUp)
        }
        transactions = plan.counted.map(row)
        countedEarlier = plan.countedEarlier.isEmpty ? nil : plan.countedEarlier.map(row)
        leftOut = Dictionary(uniqueKeysWithValues: plan.leftOut.map { ($0.key.rawValue, $0.value) })
        leftOutTransactions =
            plan.leftOutItems.isEmpty
            ? nil
            : plan.leftOutItems.map { item in
                LeftOutReport(
                    feedItemUid: item.uid, settlementTime: item.settlementTime,
                    counterParty: item.counterPartyName, amount: item.amount, reason: item.reason.rawValue)
            }
        roundUpSum = plan.roundUpSum.formattedAmount
        multiplier = plan.multiplier
        roundTo = plan.roundTo == 1 ? nil : plan.roundTo
        capApplied = plan.capApplied?.formattedAmount
        total = plan.total.formattedAmount
        totalMinorUnits = plan.total.minorUnits
    }

    /// What the balance did: the balance read, the minimum, what moves and what is held back.
    private mutating func show(_ minimum: BalanceOutcome) {
        balance = minimum.balance?.formattedAmount
        minimumBalance = minimum.minimum?.formattedAmount
        total = minimum.move.formattedAmount
        totalMinorUnits = minimum.move.minorUnits
        if minimum.heldBack.minorUnits > 0 { heldBack = minimum.heldBack.formattedAmount }
    }
}

extension ReportedWeek {
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
