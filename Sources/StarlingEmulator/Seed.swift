public import Foundation
public import RoundUp

/// Ready-made states of the emulated bank.
public enum Seed {
    /// The access token the demo emulator accepts. It is only ever valid against the
    /// emulator on this machine.
    public static let demoToken = "demo-token-for-the-local-emulator"

    /// Uids of the seeded accounts and goals, for tests.
    public enum Uid {
        public static let gbpAccount = "7f4e2a10-5c1d-4b8e-9f3a-2d6c8e1b0a01"
        public static let gbpCategory = "7f4e2a10-5c1d-4b8e-9f3a-2d6c8e1b0c01"
        public static let gbpSpace = "7f4e2a10-5c1d-4b8e-9f3a-2d6c8e1b0d01"
        public static let gbpHolidayGoal = "7f4e2a10-5c1d-4b8e-9f3a-2d6c8e1b0e01"
        public static let gbpArchivedRoundUps = "7f4e2a10-5c1d-4b8e-9f3a-2d6c8e1b0e02"
        public static let eurAccount = "7f4e2a10-5c1d-4b8e-9f3a-2d6c8e1b0a02"
        public static let eurCategory = "7f4e2a10-5c1d-4b8e-9f3a-2d6c8e1b0c02"
        public static let eurRoundUps = "7f4e2a10-5c1d-4b8e-9f3a-2d6c8e1b0e03"
    }

    /// A realistic week for a holder with a GBP and a EUR account, ending on `endDate` in
    /// `timeZone`: card payments, a direct debit, a foreign card payment, incoming pay, a
    /// pending payment, a transfer into a goal, an item the bank's own round-up already
    /// took, a payment from a space, and payments settled right at the week's edges.
    ///
    /// The GBP account has an archived "Round-ups" goal (to be ignored) and no active one;
    /// the EUR account has an active "Round-ups" goal. What the bank has scheduled after the
    /// week is `schedule(after:)`'s.
    ///
    /// Counted: GBP 23.75, 3.90, 45.00, 38.62, 2.06, 7.20, 6.49 → 2.98 GBP;
    /// EUR 17.34, 4.50, 29.90 → 1.26 EUR.
    public static func realisticWeek(endingOn endDate: LocalDate, timeZone: TimeZone, token: String = demoToken)
        -> BankState
    {
        let week = Week(endingOn: endDate, in: timeZone)
        func at(_ day: Int, _ hour: Int, _ minute: Int) -> Instant {
            localInstant(week.startDate.adding(days: day), hour: hour, minute: minute, in: timeZone)
        }
        func gbp(_ minor: Int64) -> EmulatedAmount { EmulatedAmount("GBP", minor) }
        func eur(_ minor: Int64) -> EmulatedAmount { EmulatedAmount("EUR", minor) }
        let gbpCategory = Uid.gbpCategory
        let gbpFeed: [EmulatedFeedItem] = [
            EmulatedFeedItem(
                uid: "a1000000-0000-4000-8000-000000000001", categoryUid: gbpCategory, amount: gbp(23_75),
                transactionTime: at(0, 18, 2), settlementTime: at(1, 9, 15), sourceSubType: "CONTACTLESS",
                counterPartyName: "Tesco", spendingCategory: "GROCERIES"),
            EmulatedFeedItem(
                uid: "a1000000-0000-4000-8000-000000000002", categoryUid: gbpCategory, amount: gbp(3_90),
                transactionTime: at(1, 8, 12), settlementTime: at(2, 7, 40), sourceSubType: "APPLE_PAY",
                counterPartyName: "Pret A Manger", spendingCategory: "EATING_OUT"),
            EmulatedFeedItem(
                uid: "a1000000-0000-4000-8000-000000000003", categoryUid: gbpCategory, amount: gbp(45_00),
                transactionTime: at(1, 12, 30), settlementTime: at(3, 6, 5), sourceSubType: "ONLINE",
                counterPartyName: "Trainline", spendingCategory: "TRANSPORT"),
            EmulatedFeedItem(
                uid: "a1000000-0000-4000-8000-000000000004", categoryUid: gbpCategory, amount: gbp(38_62),
                transactionTime: at(2, 5, 0), settlementTime: at(2, 5, 0), source: "DIRECT_DEBIT",
                counterPartyType: "PAYEE", counterPartyName: "Thames Water", reference: "TW-88213",
                spendingCategory: "BILLS_AND_SERVICES"),
            EmulatedFeedItem(
                uid: "a1000000-0000-4000-8000-000000000005", categoryUid: gbpCategory, amount: gbp(2_06),
                sourceAmount: eur(2_39), transactionTime: at(2, 19, 38), settlementTime: at(4, 15, 31),
                sourceSubType: "CONTACTLESS", counterPartyName: "Carrefour", country: "FR",
                spendingCategory: "GROCERIES"),
            EmulatedFeedItem(
                uid: "a1000000-0000-4000-8000-000000000006", categoryUid: gbpCategory, amount: gbp(7_20),
                transactionTime: at(-1, 23, 40), settlementTime: at(0, 0, 0), sourceSubType: "APPLE_PAY",
                counterPartyName: "Uber", spendingCategory: "TRANSPORT"),
            EmulatedFeedItem(
                uid: "a1000000-0000-4000-8000-000000000007", categoryUid: gbpCategory, amount: gbp(6_49),
                transactionTime: at(5, 13, 3), settlementTime: at(6, 23, 59).adding(milliseconds: 59_999),
                sourceSubType: "CHIP_AND_PIN", counterPartyName: "Boots", spendingCategory: "SHOPPING"),
            // Incoming pay.
            EmulatedFeedItem(
                uid: "a1000000-0000-4000-8000-000000000008", categoryUid: gbpCategory, amount: gbp(2_150_00),
                direction: "IN", transactionTime: at(4, 9, 0), settlementTime: at(4, 9, 0),
                source: "FASTER_PAYMENTS_IN", counterPartyType: "SENDER", counterPartyName: "Acme Ltd",
                reference: "SALARY", spendingCategory: "INCOME"),
            // Pending: authorised, not settled. The settled feed leaves it out.
            EmulatedFeedItem(
                uid: "a1000000-0000-4000-8000-000000000009", categoryUid: gbpCategory, amount: gbp(18_45),
                status: "PENDING", transactionTime: at(6, 20, 15), settlementTime: nil, sourceSubType: "ONLINE",
                counterPartyName: "Deliveroo", spendingCategory: "TAKEAWAY"),
            // A transfer into the holiday goal.
            EmulatedFeedItem(
                uid: "a1000000-0000-4000-8000-000000000010", categoryUid: gbpCategory, amount: gbp(50_00),
                transactionTime: at(4, 9, 5), settlementTime: at(4, 9, 5), source: "INTERNAL_TRANSFER",
                counterPartyType: "CATEGORY", counterPartyUid: Uid.gbpHolidayGoal, counterPartyName: "Holiday",
                spendingCategory: "SAVING"),
            // Already rounded up by the bank's own feature.
            EmulatedFeedItem(
                uid: "a1000000-0000-4000-8000-000000000011", categoryUid: gbpCategory, amount: gbp(12_49),
                transactionTime: at(3, 11, 0), settlementTime: at(3, 17, 0), sourceSubType: "ONLINE",
                counterPartyName: "Amazon", spendingCategory: "SHOPPING",
                roundUp: .init(goalCategoryUid: Uid.gbpHolidayGoal, amount: gbp(51))),
            // Paid from a space, not from the main balance.
            EmulatedFeedItem(
                uid: "a1000000-0000-4000-8000-000000000012", categoryUid: Uid.gbpSpace, amount: gbp(9_99),
                transactionTime: at(3, 10, 0), settlementTime: at(3, 10, 5), source: "MASTER_CARD",
                counterPartyName: "Spotify", spendingCategory: "SUBSCRIPTIONS"),
            // Settled a millisecond before the week and exactly at its end: other weeks.
            EmulatedFeedItem(
                uid: "a1000000-0000-4000-8000-000000000013", categoryUid: gbpCategory, amount: gbp(4_35),
                transactionTime: at(-1, 22, 0), settlementTime: at(0, 0, 0).adding(milliseconds: -1),
                counterPartyName: "Co-op", spendingCategory: "GROCERIES"),
            EmulatedFeedItem(
                uid: "a1000000-0000-4000-8000-000000000014", categoryUid: gbpCategory, amount: gbp(11_11),
                transactionTime: at(6, 22, 0), settlementTime: at(7, 0, 0),
                counterPartyName: "Sainsbury's", spendingCategory: "GROCERIES"),
        ]
        let eurCategory = Uid.eurCategory
        let eurFeed: [EmulatedFeedItem] = [
            EmulatedFeedItem(
                uid: "b2000000-0000-4000-8000-000000000001", categoryUid: eurCategory, amount: eur(17_34),
                transactionTime: at(0, 11, 20), settlementTime: at(1, 10, 0), sourceSubType: "CONTACTLESS",
                counterPartyName: "Lidl", country: "DE", spendingCategory: "GROCERIES"),
            EmulatedFeedItem(
                uid: "b2000000-0000-4000-8000-000000000002", categoryUid: eurCategory, amount: eur(4_50),
                transactionTime: at(2, 9, 45), settlementTime: at(3, 8, 0), sourceSubType: "CONTACTLESS",
                counterPartyName: "Café Einstein", country: "DE", spendingCategory: "EATING_OUT"),
            EmulatedFeedItem(
                uid: "b2000000-0000-4000-8000-000000000003", categoryUid: eurCategory, amount: eur(29_90),
                transactionTime: at(4, 7, 10), settlementTime: at(5, 7, 30), sourceSubType: "ONLINE",
                counterPartyName: "Deutsche Bahn", country: "DE", spendingCategory: "TRANSPORT"),
            EmulatedFeedItem(
                uid: "b2000000-0000-4000-8000-000000000004", categoryUid: eurCategory, amount: eur(200_00),
                direction: "IN", transactionTime: at(1, 12, 0), settlementTime: at(1, 12, 0),
                source: "FX_TRANSFER", counterPartyType: "CATEGORY", counterPartyName: "Personal",
                spendingCategory: "TRANSFERS"),
        ]
        var state = BankState(
            token: token,
            accounts: [
                EmulatedAccount(
                    uid: Uid.gbpAccount, defaultCategory: Uid.gbpCategory, currency: "GBP",
                    name: "Personal", balance: 1_234_56),
                EmulatedAccount(
                    uid: Uid.eurAccount, defaultCategory: Uid.eurCategory, currency: "EUR",
                    name: "Euro", balance: 300_00),
            ],
            feeds: [Uid.gbpAccount: gbpFeed, Uid.eurAccount: eurFeed],
            goals: [
                Uid.gbpAccount: [
                    EmulatedGoal(
                        uid: Uid.gbpHolidayGoal, name: "Holiday", currency: "GBP", target: 800_00,
                        totalSaved: 250_00),
                    EmulatedGoal(
                        uid: Uid.gbpArchivedRoundUps, name: "Round-ups", currency: "GBP",
                        totalSaved: 0, state: "ARCHIVED"),
                ],
                Uid.eurAccount: [
                    EmulatedGoal(
                        uid: Uid.eurRoundUps, name: "Round-ups", currency: "EUR", target: 50_00, totalSaved: 12_40)
                ],
            ])
        state.schedule = schedule(after: endDate)
        return state
    }

    /// `state` with card payments in each of the `count` weeks before the week ending
    /// `endDate` in `timeZone`, for both of `realisticWeek`'s accounts: the demo runs them
    /// first, as the schedule would have, so that its history and chart have weeks to show.
    /// Deterministic: the same weeks always get the same payments.
    public static func earlierWeeks(
        before endDate: LocalDate, count: Int, timeZone: TimeZone, adding state: BankState
    ) -> BankState {
        var state = state
        let shops = [
            ("Tesco", "GROCERIES"), ("Pret A Manger", "EATING_OUT"), ("Trainline", "TRANSPORT"),
            ("Boots", "SHOPPING"), ("Waterstones", "SHOPPING"), ("Odeon", "ENTERTAINMENT"),
        ]
        for back in 1...max(1, count) {
            let week = Week(endingOn: endDate.adding(days: -7 * back), in: timeZone)
            for (account, category, currency, payments) in [
                (Uid.gbpAccount, Uid.gbpCategory, "GBP", 3 + back % 4),
                (Uid.eurAccount, Uid.eurCategory, "EUR", 1 + back % 3),
            ] {
                for number in 0..<payments {
                    let minor = Int64((back * 7_919 + number * 104_729 + (currency == "GBP" ? 0 : 1_237)) % 4_000 + 101)
                    let settled = localInstant(
                        week.startDate.adding(days: number % 7), hour: 9 + number, minute: 7 * number % 60,
                        in: timeZone)
                    let (shop, spending) = shops[(back + number) % shops.count]
                    state.feeds[account, default: []].append(
                        EmulatedFeedItem(
                            uid: String(
                                format: "c3%06d-0000-4000-8000-%012d", back, number + (currency == "GBP" ? 0 : 100)),
                            categoryUid: category, amount: EmulatedAmount(currency, minor), transactionTime: settled,
                            settlementTime: settled, sourceSubType: "CONTACTLESS", counterPartyName: shop,
                            spendingCategory: spending))
                }
            }
        }
        return state
    }

    /// A holder with `accounts` GBP accounts, each with an active "Round-ups" goal and
    /// `items` settled card payments spread over the week ending `endDate` (London), and as
    /// many in each of the `weeks - 1` weeks before it, for benchmarks. Deterministic:
    /// amounts come from a fixed generator, so two clients run against the same seed must
    /// move the same money. Returns the state and the total round-up per account in pence.
    public static func benchmark(
        accounts: Int, items: Int, endingOn endDate: LocalDate, weeks: Int = 1, token: String
    ) -> (state: BankState, roundUpPerAccount: [Int64]) {
        let zone = Week.defaultTimeZone ?? .gmt
        // Oldest first; with one week, only the week ending `endDate`.
        let spans = (0..<max(1, weeks)).reversed().map { back in
            let week = Week(endingOn: endDate.adding(days: -7 * back), in: zone)
            return (week.start, max(1, week.end.millisecondsSince1970 - week.start.millisecondsSince1970 - 1))
        }
        var state = BankState(token: token)
        var totals: [Int64] = []
        var random = SeededRandom(seed: 2026)
        for number in 1...max(1, accounts) {
            let uid = String(format: "ac000000-0000-4000-8000-%012d", number)
            let category = String(format: "ca000000-0000-4000-8000-%012d", number)
            state.accounts.append(
                EmulatedAccount(
                    uid: uid, defaultCategory: category, currency: "GBP", name: "Account \(number)",
                    balance: 100_000_000_00))
            state.goals[uid] = [
                EmulatedGoal(
                    uid: String(format: "90a10000-0000-4000-8000-%012d", number), name: "Round-ups",
                    currency: "GBP")
            ]
            var feed: [EmulatedFeedItem] = []
            feed.reserveCapacity(items * spans.count)
            var total: Int64 = 0
            for (weekIndex, (start, span)) in spans.enumerated() {
                for index in 0..<items {
                    let pence = Int64(random.next() % 20_000) + 1
                    total += (100 - pence % 100) % 100
                    let settled = Instant(
                        millisecondsSince1970: start.millisecondsSince1970 + Int64(index) * span / Int64(max(1, items)))
                    feed.append(
                        EmulatedFeedItem(
                            uid: String(format: "fe%06d-0000-4000-8000-%012d", number, weekIndex * items + index),
                            categoryUid: category, amount: EmulatedAmount("GBP", pence), transactionTime: settled,
                            settlementTime: settled, counterPartyUid: "c0000000-0000-4000-8000-000000000001",
                            counterPartyName: "Shop \(index % 500)", reference: "CARD PAYMENT",
                            spendingCategory: "SHOPPING"))
                }
            }
            state.feeds[uid] = feed
            totals.append(total)
        }
        return (state, totals)
    }

    /// The instant of a local wall-clock time.
    public static func localInstant(_ date: LocalDate, hour: Int, minute: Int, in timeZone: TimeZone) -> Instant {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = DateComponents(year: date.year, month: date.month, day: date.day, hour: hour, minute: minute)
        let moment = calendar.date(from: parts) ?? Date(timeIntervalSince1970: 0)
        return Instant(millisecondsSince1970: Int64((moment.timeIntervalSince1970 * 1000).rounded()))
    }
}
