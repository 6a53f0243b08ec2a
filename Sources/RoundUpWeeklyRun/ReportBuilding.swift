import Foundation
import RoundUp
import RoundUpReports
import RoundUpVocabulary
import RoundUpWeek
import StarlingAPI

extension AccountReport {
    /// The report of `account`'s week: how it ended, and what the job found on the way.
    init(account: BankAccount, outcome: AccountOutcome, findings: AccountFindings) {
        self.init(
            accountUid: account.accountUid, name: account.name, currency: account.currency,
            accountType: account.accountType, outcome: outcome, findings: findings)
    }

    /// The report of an account's week, named by its uid, name, currency and type (as the
    /// bank gave them to the run, or the ledger kept them for a report written later).
    init(
        accountUid: String, name: String?, currency: String, accountType: String?, outcome: AccountOutcome,
        findings: AccountFindings
    ) {
        self.init(accountUid: accountUid, name: name, currency: currency, status: outcome.fate)
        self.accountType = accountType
        nativeRoundUp = findings.nativeRoundUp?.rawValue
        detail = outcome.detail
        exitCode = outcome.exitCode
        if let plan = findings.plan { show(plan) }
        if let recorded = findings.recorded {
            transactions = recorded.payments
            roundUpSum = recorded.roundUpSum
        }
        if let minimum = findings.balance { show(minimum) }
        if let forecast = findings.forecast, let currency = Currency(code: currency) {
            self.forecast = ForecastReport(forecast, currency: currency, lowPoint: findings.balance?.lowPoint)
        }
        if let window = findings.window, let note = window.note {
            self.window = WindowReport(
                start: window.week.start, end: window.week.end, hours: window.week.hours, note: note)
        }
        if let movement = findings.movement {
            total = movement.amount
            goal = movement.goal
            transferUid = movement.transferUid
            legs = movement.legs.map { leg in
                LegReport(
                    goal: leg.goal, amount: leg.amount, transferUid: leg.transferUid,
                    status: leg.status?.transferWord)
            }
        }
    }

    /// The plan's part of the report: counted transactions, left-out counts and the arithmetic.
    private mutating func show(_ plan: RoundUpPlan) {
        transactions = plan.counted
        countedEarlier = plan.countedEarlier.isEmpty ? nil : plan.countedEarlier
        leftOut = Dictionary(uniqueKeysWithValues: plan.leftOut.map { ($0.key.rawValue, $0.value) })
        leftOutTransactions =
            plan.leftOutItems.isEmpty
            ? nil
            : plan.leftOutItems.map { item in
                LeftOutReport(
                    feedItemUid: item.uid, settlementTime: item.settlementTime,
                    counterParty: item.counterPartyName, amount: item.amount, reason: item.reason.rawValue,
                    source: item.source?.rawValue)
            }
        roundUpSum = plan.roundUpSum
        multiplier = plan.multiplier
        roundTo = plan.roundTo == 1 ? nil : plan.roundTo
        capApplied = plan.capApplied
        total = plan.total
    }

    /// What the balance did: the balance read, the minimum, what moves and what is held back.
    private mutating func show(_ minimum: BalanceOutcome) {
        balance = minimum.balance
        minimumBalance = minimum.minimum
        total = minimum.move
        if minimum.heldBack.minorUnits > 0 { heldBack = minimum.heldBack }
    }
}
