public import RoundUp

extension Seed {
    /// Uids of the seeded schedule, for tests.
    public enum ScheduleUid {
        public static let rent = "c3000000-0000-4000-8000-000000000001"
        public static let pocketMoney = "c3000000-0000-4000-8000-000000000002"
        public static let holidayFromSpace = "c3000000-0000-4000-8000-000000000003"
        public static let oldPhone = "c3000000-0000-4000-8000-000000000004"
        public static let energy = "c3000000-0000-4000-8000-000000000005"
        public static let oldGym = "c3000000-0000-4000-8000-000000000006"
        public static let holidayTransfer = "c3000000-0000-4000-8000-000000000007"
    }

    /// What the bank has scheduled to leave the GBP account in the days after the week ending
    /// `endDate`, all within seven days of any day of the week after it, so that a run then
    /// sees them before its payday:
    ///
    /// Counted: rent 850.00 monthly on `endDate`+8 (a standing order), pocket money 10.00
    /// weekly from `endDate`+7 (a standing order), Octopus Energy about 30.00 on `endDate`+8
    /// (a live direct debit, at its last amount), 50.00 into the Holiday goal monthly from
    /// `endDate`+7 (a recurring transfer): 940.00 GBP within the next seven days.
    ///
    /// Not counted: a standing order paid from a space, a cancelled standing order, and a
    /// cancelled direct debit. The EUR account has nothing scheduled.
    public static func schedule(after endDate: LocalDate) -> EmulatedSchedule {
        let (day7, day8) = (endDate.adding(days: 7).description, endDate.adding(days: 8).description)
        func gbp(_ minor: Int64) -> EmulatedAmount { EmulatedAmount("GBP", minor) }
        func every(_ frequency: String, from start: String) -> EmulatedRecurrence {
            EmulatedRecurrence(startDate: start, frequency: frequency)
        }
        var schedule = EmulatedSchedule()
        schedule.standingOrders[Uid.gbpAccount] = [
            EmulatedStandingOrder(
                paymentOrderUid: ScheduleUid.rent, amount: gbp(850_00), reference: "Rent",
                recurrence: every("MONTHLY", from: "2025-01-\(pad(endDate.adding(days: 8).day))"), nextDate: day8,
                categoryUid: Uid.gbpCategory),
            EmulatedStandingOrder(
                paymentOrderUid: ScheduleUid.pocketMoney, amount: gbp(10_00), reference: "Pocket money",
                recurrence: every("WEEKLY", from: "2026-01-05"), nextDate: day7, categoryUid: Uid.gbpCategory,
                spendingCategory: "FAMILY"),
            // Paid from a space, not from the main balance: listed, and left out.
            EmulatedStandingOrder(
                paymentOrderUid: ScheduleUid.holidayFromSpace, amount: gbp(100_00), reference: "Holiday savings",
                recurrence: every("MONTHLY", from: "2026-01-01"), nextDate: day7, categoryUid: Uid.gbpSpace,
                spendingCategory: "HOLIDAYS"),
            EmulatedStandingOrder(
                paymentOrderUid: ScheduleUid.oldPhone, amount: gbp(20_00), reference: "Old phone contract",
                recurrence: every("MONTHLY", from: "2024-03-01"), nextDate: day8, categoryUid: Uid.gbpCategory,
                cancelledAt: "2026-02-01T10:00:00.000Z"),
        ]
        schedule.mandates[Uid.gbpAccount] = [
            EmulatedMandate(
                uid: ScheduleUid.energy, reference: "OCTOPUS-1188", status: "LIVE", nextDate: day8,
                originatorName: "Octopus Energy",
                lastPayment: .init(lastDate: endDate.adding(days: -23).description, lastAmount: gbp(30_00)),
                accountUid: Uid.gbpAccount, categoryUid: Uid.gbpCategory),
            EmulatedMandate(
                uid: ScheduleUid.oldGym, reference: "GYM-77", status: "CANCELLED", nextDate: day7,
                originatorName: "City Gym", lastPayment: .init(lastDate: "2026-03-01", lastAmount: gbp(40_00)),
                accountUid: Uid.gbpAccount, categoryUid: Uid.gbpCategory, cancelled: "2026-03-10T09:00:00.000Z"),
        ]
        schedule.recurringTransfers[Uid.gbpHolidayGoal] = EmulatedRecurringTransfer(
            transferUid: ScheduleUid.holidayTransfer, recurrenceRule: every("MONTHLY", from: "2026-01-01"),
            currencyAndAmount: gbp(50_00), nextPaymentDate: day7, reference: "Holiday")
        return schedule
    }

    private static func pad(_ day: Int) -> String { day < 10 ? "0\(day)" : "\(day)" }
}
