/// What the bank has scheduled to leave an account (the forecast's reads).
extension BankClient {
    /// `GET /api/v2/payments/local/account/{accountUid}/category/{categoryUid}/standing-orders`
    /// (needs `standing-order:read`). The list may hold orders paid from other categories; an answer
    /// without the list is garbled.
    public func standingOrders(accountUid: String, categoryUid: String) async throws(BankError) -> [StandingOrder] {
        try await get(
            "/api/v2/payments/local/account/\(segment(accountUid))/category/\(segment(categoryUid))/standing-orders",
            as: StandingOrdersResponse.self
        ).standingOrders
    }

    /// `GET …/standing-orders/{paymentOrderUid}/upcoming-payments?count=N`: the bank's own
    /// next dates for one order, as it writes them.
    public func upcomingPayments(accountUid: String, categoryUid: String, paymentOrderUid: String, count: Int)
        async throws(BankError) -> [String]
    {
        try await get(
            "/api/v2/payments/local/account/\(segment(accountUid))/category/\(segment(categoryUid))/standing-orders/"
                + "\(segment(paymentOrderUid))/upcoming-payments",
            query: "count=\(count)", as: NextPaymentDatesResponse.self
        ).nextPaymentDates
    }

    /// `GET /api/v2/direct-debit/mandates/account/{accountUid}` (needs `mandate:read`); an answer
    /// without the list is garbled.
    public func mandates(accountUid: String) async throws(BankError) -> [DirectDebitMandate] {
        try await get("/api/v2/direct-debit/mandates/account/\(segment(accountUid))", as: DirectDebitMandates.self)
            .mandates
    }

    /// `GET /api/v2/account/{accountUid}/savings-goals/{savingsGoalUid}/recurring-transfer`
    /// (needs `savings-goal-transfer:read`): the goal's recurring transfer, or nil when it has
    /// none (a 404, or an empty body).
    public func recurringTransfer(accountUid: String, goalUid: String) async throws(BankError)
        -> ScheduledSavingsPayment?
    {
        do throws(BankError) {
            return try await getUnlessEmpty(
                "/api/v2/account/\(segment(accountUid))/savings-goals/\(segment(goalUid))/recurring-transfer",
                as: ScheduledSavingsPayment.self)
        } catch {
            if case .refused(_, 404, _) = error.underlying { return nil }
            throw error
        }
    }
}
