import RoundUp

extension WeekReport {
    /// For stdout: the week, a table with a row per account, what each did, and where
    /// the report is.
    public func summary(reportPath: String?, style: TextStyle = .plain) -> String {
        var lines = [
            style.bold(
                "roundup: week \(week.startDate) – \(week.endDate) (\(week.timeZone.identifier))\(dryRun ? ", dry run" : "")"
            )
        ]
        if let error { lines.append(style.status(.failed, "failed: \(printable(error))")) }
        if !accounts.isEmpty {
            lines.append("")
            let rows = accounts.map { account in
                [
                    account.label, String(account.transactions.count),
                    account.total.map { "\($0.formattedAmount) \(account.shownCurrency)" } ?? "—",
                    account.goalNames ?? "—",
                    account.status.word,
                ]
            }
            lines += TextTable.render(
                header: ["Account", "Transactions", dryRun ? "Would move" : "Amount", "Goal", "Status"], rows: rows,
                rightAligned: [1, 2]
            ) { row, column, cell in
                column == 4 ? style.status(accounts[row].status, cell) : cell
            }
            lines.append("")
            for account in accounts {
                if let detail = account.detail { lines.append("\(account.label): \(printable(detail))") }
                if let forecast = account.forecastLine { lines.append("\(account.label): \(forecast)") }
            }
        }
        if let retries, retries > 0 {
            lines.append("(\(retries) request\(retries == 1 ? " was" : "s were") retried after transient failures)")
        }
        if let offset = bankClockOffsetSeconds {
            lines.append(
                "The bank's clock is \(WeekReport.clockSkew(offset)): "
                    + (offset.magnitude >= WeekReport.clocksTooFarSeconds
                        ? "nothing was sent, as the clocks are an hour or more apart"
                        : "the feed was searched on the bank's clock"))
        }
        if let requests {
            let perAccount = requestsPerAccountWeek.map { ", \($0) per account-week" } ?? ""
            lines.append(style.dim("Requests to the bank: \(requests)\(perAccount)"))
        }
        if let reportPath { lines.append(style.dim("Report: \(reportPath)")) }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension AccountReport {
    /// "Safe to save: 1.00 of 2.29 GBP. Before payday on Fri 4 Dec: rent 850.00 on 28 Nov
    /// (standing order), …": what the forecast let move, and what fell due; nil without a
    /// forecast, when nothing falls due and all of it was seen, or when the week had no
    /// round-up to measure.
    package var forecastLine: String? {
        guard let forecast, [.transferred, .dryRun, .heldBack, .nothingToMove].contains(status),
            !forecast.due.isEmpty || !forecast.unplaced.isEmpty
        else { return nil }
        let code = shownCurrency
        let moved = total ?? Money(minorUnits: 0, currency: forecast.dueTotal.currency)
        let whole = Money(
            minorUnits: Savings.add(moved.minorUnits, heldBack?.minorUnits ?? 0), currency: moved.currency)
        guard whole.minorUnits > 0 else { return nil }
        var line = "Safe to save: \(moved.formattedAmount) of \(whole.formattedAmount) \(code)."
        if !forecast.unplaced.isEmpty {
            return line
                + " The forecast is incomplete: \(forecast.unplaced.count) scheduled item(s) could not be placed."
        }
        let horizon = forecast.horizonWords.prefix(1).uppercased() + forecast.horizonWords.dropFirst()
        line += forecast.due.isEmpty ? " \(horizon): nothing scheduled." : " \(horizon): \(forecast.dueWords)."
        if !forecast.unseen.isEmpty { line += " Not seen: \(forecast.unseen.joined(separator: ", "))." }
        return line
    }

    /// The account as text output names it: `Personal (GBP)`.
    package var label: String { Account.label(name: name, uid: accountUid, currencyCode: currency) }

    /// The account's currency code as text output shows it: printable.
    package var shownCurrency: String { printable(currency) }
}
