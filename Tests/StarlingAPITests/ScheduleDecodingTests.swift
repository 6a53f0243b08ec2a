import Foundation
import RoundUp
import Testing

@testable import StarlingAPI

/// What the bank's scheduled items say to the forecast, from the bodies the spec describes.
@Suite struct ScheduleDecodingTests {
    static let account = Account(
        uid: "acc00000-0000-4000-8000-000000000001", defaultCategory: "ca700000-0000-4000-8000-000000000001",
        currencyCode: "GBP")
    static let gbp = Currency(code: "GBP")!
    static let today = LocalDate(iso: "2026-11-26")!
    /// Through the end of the year.
    static let horizon = Horizon(today: today, end: LocalDate(iso: "2026-12-31")!, payday: nil)

    static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }

    static func order(_ fields: String) throws -> StandingOrder {
        try decode(StandingOrder.self, "{\(fields)}")
    }

    static func payments(_ placement: SchedulePlacement) -> [ScheduledPayment]? {
        if case .payments(let payments) = placement { return payments }
        return nil
    }

    @Test func aStandingOrderStartsAtItsNextDateNeverItsStartDate() throws {
        let order = try Self.order(
            """
            "paymentOrderUid": "33443344-3344-4344-8344-334433443344", "amount": {"currency": "GBP", "minorUnits": 85000},
            "reference": "Rent", "standingOrderRecurrence": {"startDate": "2020-01-28", "frequency": "MONTHLY",
            "interval": 1, "count": 3}, "nextDate": "2026-11-28", "categoryUid": "CA700000-0000-4000-8000-000000000001"
            """)
        let payment = try #require(Self.payments(order.placement(in: Self.account, horizon: Self.horizon))?.first)
        #expect(payment.next == LocalDate(iso: "2026-11-28"))
        #expect(payment.amount == Money(minorUnits: 850_00, currency: Self.gbp))
        #expect(payment.label == "Rent")
        // count is not honoured: the payments already made are not published.
        #expect(payment.recurrence == Recurrence(frequency: .monthly))
        #expect(!order.needsNextDates(in: Self.account, horizon: Self.horizon))
    }

    @Test func anOrderFromASpaceOrCancelledIsNotCounted() throws {
        let space = try Self.order(
            """
            "amount": {"currency": "GBP", "minorUnits": 100}, "nextDate": "2026-11-28",
            "standingOrderRecurrence": {"startDate": "2026-01-01", "frequency": "WEEKLY"},
            "categoryUid": "5ace0000-0000-4000-8000-000000000001"
            """)
        #expect(space.placement(in: Self.account, horizon: Self.horizon) == .notCounted)
        let cancelled = try Self.order(
            """
            "amount": {"currency": "GBP", "minorUnits": 100}, "nextDate": "2026-11-28",
            "standingOrderRecurrence": {"startDate": "2026-01-01", "frequency": "WEEKLY"},
            "cancelledAt": "2026-02-01T10:00:00.000Z"
            """)
        #expect(cancelled.placement(in: Self.account, horizon: Self.horizon) == .notCounted)
    }

    @Test func anOrderWithoutALabelOrWithAnUnknownFrequencyAsksTheBank() throws {
        let order = try Self.order(
            """
            "paymentOrderUid": "33443344-3344-4344-8344-334433443344", "amount": {"currency": "GBP", "minorUnits": 100},
            "nextDate": "2026-11-28", "standingOrderRecurrence": {"startDate": "2026-01-01", "frequency": "FORTNIGHTLY"}
            """)
        #expect(order.label == "standing order")
        #expect(order.needsNextDates(in: Self.account, horizon: Self.horizon))
        #expect(Self.payments(order.placement(in: Self.account, horizon: Self.horizon, nextDates: [])) == nil)
        let dates = ["2026-11-28", "2026-12-12", "2026-12-26", "2027-01-09"].map { LocalDate(iso: $0)! }
        #expect(
            Self.payments(order.placement(in: Self.account, horizon: Self.horizon, nextDates: dates))?.map(\.next)
                == dates)
        // A list that stops before the horizon's end, for an order with no end, is not all it pays.
        guard
            case .unplaced(let why) = order.placement(
                in: Self.account, horizon: Self.horizon, nextDates: Array(dates.prefix(2)))
        else {
            Issue.record("trusted a list of dates that stops before the horizon's end")
            return
        }
        #expect(why.contains("only up to 2026-12-12, not through 2026-12-31"), "\(why)")
    }

    /// A short list is all there is when the order's own end comes first: its untilDate, or
    /// the date its count gives from its start.
    @Test func aShortListIsCompleteOnlyWhenTheOrderEndsFirst() throws {
        let dates = ["2026-11-28", "2026-12-12"].map { LocalDate(iso: $0)! }
        for (rule, complete) in [
            // Fortnightly from 31 October: 28 November and 12 December are the last before the 20th.
            (#""startDate": "2026-10-31", "frequency": "WEEKLY", "interval": 2, "untilDate": "2026-12-20""#, true),
            // Weekly, it pays on the 19th too, which the list does not reach.
            (#""startDate": "2026-10-31", "frequency": "WEEKLY", "untilDate": "2026-12-20""#, false),
            // An end with no frequency the job knows says nothing of the dates before it.
            (#""untilDate": "2026-12-20""#, false), (#""untilDate": "2027-01-20""#, false),
            // Both ends: its count's comes first, on the 12th.
            (
                #""startDate": "2026-10-31", "frequency": "WEEKLY", "interval": 2, "count": 4, "untilDate": "2026-12-27""#,
                true
            ),
            (#""startDate": "2026-10-31", "frequency": "WEEKLY", "interval": 2, "count": 4"#, true),
            (#""startDate": "2026-10-31", "frequency": "WEEKLY", "interval": 2, "count": 5"#, false),
            (#""startDate": "2026-10-31", "frequency": "FORTNIGHTLY", "count": 4"#, false),
        ] {
            let order = try Self.order(
                """
                "paymentOrderUid": "33443344-3344-4344-8344-334433443344", "amount": {"currency": "GBP",
                "minorUnits": 100}, "standingOrderRecurrence": {\(rule)}
                """)
            let placed = Self.payments(order.placement(in: Self.account, horizon: Self.horizon, nextDates: dates))
            #expect((placed?.map(\.next) == dates) == complete, "\(rule)")
        }
    }

    @Test func aMandateCountsAtItsLastAmountOnItsNextDateOrMonthlyFromItsLastPayment() throws {
        let live = try Self.decode(
            DirectDebitMandate.self,
            """
            {"uid": "eeffeeff-eeff-4eff-8eff-eeffeeffeeff", "reference": "OCTO-1", "status": "LIVE",
             "nextDate": "2026-11-29", "originatorName": "Octopus Energy",
             "lastPayment": {"lastDate": "2026-10-29", "lastAmount": {"currency": "GBP", "minorUnits": 3000}}}
            """)
        let payment = try #require(Self.payments(live.placement(in: Self.account, horizon: Self.horizon))?.first)
        #expect(payment.label == "Octopus Energy")
        #expect(payment.lastAmount)
        #expect(payment.next == LocalDate(iso: "2026-11-29"))
        // 29 November is a Sunday: the collection may have been due on the Saturday, 30 days
        // after the last, so monthly from then.
        #expect(payment.recurrence == Recurrence(frequency: .monthly))
        #expect(payment.reckonedFrom == LocalDate(iso: "2026-11-28"))
        let undated = try Self.decode(
            DirectDebitMandate.self,
            """
            {"status": "PENDING_CAS", "reference": "Council tax",
             "lastPayment": {"lastDate": "2026-01-31", "lastAmount": {"currency": "GBP", "minorUnits": 15000}}}
            """)
        let monthly = try #require(Self.payments(undated.placement(in: Self.account, horizon: Self.horizon))?.first)
        #expect(monthly.label == "Council tax")
        #expect(monthly.next == LocalDate(iso: "2026-02-28"))
        #expect(monthly.recurrence == Recurrence(frequency: .monthly))
        // The mandate's own lastDate, where lastPayment gives none: a week before, weekly.
        let ownDate = try Self.decode(
            DirectDebitMandate.self,
            """
            {"status": "LIVE", "nextDate": "2026-11-30", "lastDate": "2026-11-23",
             "lastPayment": {"lastAmount": {"currency": "GBP", "minorUnits": 1000}}}
            """)
        #expect(
            Self.payments(ownDate.placement(in: Self.account, horizon: Self.horizon))?.first?.recurrence
                == Recurrence(frequency: .weekly))
        let neverPaid = try Self.decode(
            DirectDebitMandate.self, #"{"status": "LIVE", "nextDate": "2026-11-29", "lastPayment": null}"#)
        #expect(Self.payments(neverPaid.placement(in: Self.account, horizon: Self.horizon))?.first?.amount == nil)
        let cancelled = try Self.decode(DirectDebitMandate.self, #"{"status": "CANCELLED", "nextDate": "2026-11-29"}"#)
        #expect(cancelled.placement(in: Self.account, horizon: Self.horizon) == .notCounted)
        let nothingToDateItFrom = try Self.decode(DirectDebitMandate.self, #"{"status": "LIVE"}"#)
        guard case .unplaced(let why) = nothingToDateItFrom.placement(in: Self.account, horizon: Self.horizon) else {
            Issue.record("placed a mandate with no date")
            return
        }
        #expect(why.contains("no next date and no last payment"))
    }

    @Test func aGoalsRecurringTransferIsPlacedUnderTheGoalsName() throws {
        let transfer = try Self.decode(
            ScheduledSavingsPayment.self,
            """
            {"transferUid": "88998899-8899-4899-8899-889988998899", "currencyAndAmount": {"currency": "GBP",
             "minorUnits": 5000}, "nextPaymentDate": "2026-11-30", "recurrenceRule": {"startDate": "2026-01-01",
             "frequency": "WEEKLY", "interval": 2, "days": ["MONDAY", null, "THURSDAY"]}}
            """)
        let payment = try #require(Self.payments(transfer.placement(goalName: "Holiday", horizon: Self.horizon))?.first)
        #expect(payment.label == "Holiday")
        #expect(payment.recurrence == Recurrence(frequency: .weekly, interval: 2, days: [.monday, .thursday]))
        let odd = try Self.decode(
            ScheduledSavingsPayment.self,
            """
            {"currencyAndAmount": {"currency": "GBP", "minorUnits": 5000}, "nextPaymentDate": "2026-11-30",
             "recurrenceRule": {"startDate": "2026-01-01", "frequency": "WEEKLY", "interval": 0}}
            """)
        guard case .unplaced = odd.placement(goalName: "Holiday", horizon: Self.horizon) else {
            Issue.record("placed a recurrence with an interval of 0")
            return
        }
    }

    /// Only an explicit CANCELLED leaves a mandate out: no status, or one the job does not
    /// know, cannot be placed, and a next date that cannot be read is never guessed.
    @Test func aMandateTheJobCannotReadIsUnplacedNeverLeftOut() throws {
        func placement(_ json: String) throws -> SchedulePlacement {
            try Self.decode(DirectDebitMandate.self, json).placement(in: Self.account, horizon: Self.horizon)
        }
        let paid =
            #""lastPayment": {"lastDate": "2026-10-30", "lastAmount": {"currency": "GBP", "minorUnits": 123400}}"#
        for status in [#""status": null,"#, "", #""status": "ACTIVE","#] {
            guard case .unplaced = try placement(#"{\#(status) "nextDate": "2026-11-30", \#(paid)}"#) else {
                Issue.record("placed or left out a mandate with \(status.isEmpty ? "no status" : status)")
                continue
            }
        }
        #expect(Self.payments(try placement(#"{"status": " live ", "nextDate": "2026-11-30", \#(paid)}"#)) != nil)
        guard case .unplaced(let why) = try placement(#"{"status": "LIVE", "nextDate": "30/11/2026", \#(paid)}"#)
        else {
            Issue.record("guessed a date for a mandate whose next date cannot be read")
            return
        }
        #expect(why.contains("a next date the job cannot read"))
    }

    @Test func theMainBalancesCategoryIsReadAsTheBankMayWriteIt() throws {
        func order(category: String, cancelledAt: String? = nil) throws -> SchedulePlacement {
            try Self.order(
                """
                "amount": {"currency": "GBP", "minorUnits": 100}, "nextDate": "2026-11-28",
                "standingOrderRecurrence": {"startDate": "2026-01-01", "frequency": "WEEKLY"},
                "categoryUid": "\(category)"\(cancelledAt.map { #", "cancelledAt": "\#($0)""# } ?? "")
                """
            ).placement(in: Self.account, horizon: Self.horizon)
        }
        #expect(Self.payments(try order(category: " CA700000-0000-4000-8000-000000000001 ")) != nil)
        // A cancellation still to come leaves it counted; one the job cannot read, unplaced.
        let main = "ca700000-0000-4000-8000-000000000001"
        #expect(Self.payments(try order(category: main, cancelledAt: "2099-01-01T00:00:00.000Z")) != nil)
        #expect(try order(category: main, cancelledAt: "2026-11-01T00:00:00.000Z") == .notCounted)
        guard case .unplaced = try order(category: main, cancelledAt: "not-a-date") else {
            Issue.record("left out an order whose cancellation cannot be read")
            return
        }
        guard case .unplaced = try order(category: "00000000-0000-0000-0000-000000000000") else {
            Issue.record("took the nil uid for a space")
            return
        }
        #expect(Self.payments(try order(category: "ca700000-0000-4000-8000-000000000001", cancelledAt: "")) != nil)
        // A category uid that is not a UUID is bad data, as every uid of the bank's is.
        #expect(throws: DecodingError.self) { try order(category: "junk") }
        #expect(throws: DecodingError.self) { try order(category: "") }
    }

    @Test func anAmountTheJobCannotReadIsUnplaced() throws {
        let order = try Self.order(
            """
            "amount": {"currency": "XYZ", "minorUnits": 100}, "nextDate": "2026-11-28",
            "standingOrderRecurrence": {"startDate": "2026-01-01", "frequency": "WEEKLY"}
            """)
        guard case .unplaced(let why) = order.placement(in: Self.account, horizon: Self.horizon) else {
            Issue.record("placed an amount in an unknown currency")
            return
        }
        #expect(why.contains("amount is missing or not readable"))
    }
}
