public import Foundation
import RoundUp

extension WeekReport {
    /// The report as indented JSON with sorted keys.
    public func json() -> Data { Data(ReportJSON.encode(self)) }

    /// The report as Markdown, for people: the run, a table of the accounts, then each
    /// account's transactions.
    public var markdown: String {
        var text = ""
        var renderer = MarkdownReport(report: self) { text += $0 }
        try? renderer.render()
        return text
    }

    /// Writes the Markdown report to `file` as it is rendered.
    package func writeMarkdown(to file: ReportFile) throws {
        var renderer = MarkdownReport(report: self) { try file.append($0) }
        try renderer.render()
    }
}

/// Renders a report as Markdown, handing it to `emit` a part at a time, so that a busy
/// week's report never sits whole in memory.
private struct MarkdownReport {
    let report: WeekReport
    let emit: (String) throws -> Void
    private var lines: [String] = []
    /// Payment times are shown on the saver's clock, the week's zone.
    private let times: LocalTimeText

    init(report: WeekReport, emit: @escaping (String) throws -> Void) {
        self.report = report
        self.emit = emit
        // A week in which the clocks change shows each time with its offset: 01:30 happens
        // twice on the night they go back.
        times = LocalTimeText(
            zone: report.week.timeZone, showingOffsets: report.week.clocksChange)
    }

    /// The heading of a column of payment times.
    private var timeHeading: String { "Settled (\(Markdown.escape(report.week.timeZone.identifier)))" }

    mutating func render() throws {
        header()
        accountTable()
        for account in report.accounts {
            section(account)
            try transactions(of: account)
            try leftOut(of: account)
            countedEarlier(of: account)
        }
        try flush()
    }

    private mutating func flush() throws {
        guard !lines.isEmpty else { return }
        try emit(lines.joined(separator: "\n") + "\n")
        lines.removeAll(keepingCapacity: true)
    }

    /// The title and the run's table: window, generator, exit code, retries, failure.
    private mutating func header() {
        let week = report.week
        lines.append("# Round-up for the week \(week.startDate) – \(week.endDate)\(report.dryRun ? " (dry run)" : "")")
        lines.append("")
        lines.append("| Run | |")
        lines.append("|---|---|")
        lines.append(
            "| Window | \(week.localStartText) to \(week.localEndText) (\(week.timeZone.identifier), \(week.hours) hours) |"
        )
        lines.append("| In UTC | \(week.start.iso8601) to \(week.end.iso8601) |")
        lines.append("| Generated | \(report.generatedAt.iso8601) by \(report.generator) |")
        lines.append("| Exit code | \(report.exitCode.rawValue) |")
        if let requests = report.requests { lines.append("| Requests to the bank | \(requests) |") }
        if let perAccount = report.requestsPerAccountWeek {
            lines.append("| Requests per account-week | \(perAccount) |")
        }
        if let retries = report.retries { lines.append("| Requests retried | \(retries) |") }
        if let offset = report.bankClockOffsetSeconds {
            lines.append("| Bank's clock | \(WeekReport.clockSkew(offset)) |")
        }
        if let error = report.error {
            lines.append("")
            lines.append("**The run failed:** \(Markdown.escape(error))")
        }
    }

    /// A row per account: transactions, round-up, what moved, goal, status.
    private mutating func accountTable() {
        guard !report.accounts.isEmpty else { return }
        lines.append("")
        lines.append(
            "| Account | Transactions | Round-up | \(report.dryRun ? "Would move" : "Moved") | Goal | Status |")
        lines.append("|---|---:|---:|---:|---|---|")
        for account in report.accounts {
            let moved = account.status.kind == .moved || report.dryRun
            lines.append(
                "| \(Markdown.escape(account.label)) | \(account.transactions.count) | "
                    + "\(account.roundUpSum.map { "\($0.formattedAmount) \(account.shownCurrency)" } ?? "—") | "
                    + "\(moved ? account.total.map { "\($0.formattedAmount) \(account.shownCurrency)" } ?? "—" : "—") | "
                    + "\(Markdown.escape(account.goalNames ?? "—")) | \(account.status.word) |")
        }
    }

    /// The account's heading, what happened, and its arithmetic, goal and transfer uid.
    private mutating func section(_ account: AccountReport) {
        lines.append("")
        lines.append("## \(Markdown.escape(account.label)) — \(account.status.word)")
        lines.append("")
        if let detail = account.detail {
            lines.append(
                "\(account.status.kind == .failedOrWaiting ? "**Why:** " : "")\(Markdown.escape(detail))")
            lines.append("")
        }
        lines.append(
            "- Account: \(Markdown.code(account.accountUid))\(account.accountType.map { ", \(Markdown.escape($0))" } ?? "")"
        )
        if let window = account.window {
            lines.append(
                "- Window: \(window.start.iso8601) to \(window.end.iso8601) (\(window.hours) hours), "
                    + Markdown.escape(window.note))
        }
        if account.nativeRoundUp == "active", account.status != .skipped {
            lines.append(
                "- Starling's own round-up is on too (nativeRoundUp: allow): the payments it rounded up are left out")
        }
        if account.nativeRoundUp == "unknown" {
            lines.append(
                "- Starling did not say whether its own round-up is on: the payments its feed marks as rounded up are left out"
            )
        }
        if let step = account.roundTo {
            lines.append("- Each payment is rounded up to the next \(step) \(account.shownCurrency).")
        }
        if let line = arithmetic(of: account) { lines.append(line) }
        if let minimum = account.minimumBalance {
            lines.append(
                "- Minimum balance: \(minimum.formattedAmount) \(account.shownCurrency)"
                    + (account.balance.map { "; the balance was \($0.formattedAmount) \(account.shownCurrency)" } ?? "")
            )
        }
        lines += forecastLines(of: account)
        if !account.legs.isEmpty {
            lines.append("- Goals:")
            for leg in account.legs {
                let goal = leg.goal
                let note = goal.created ? ", created by this run" : goal.wouldCreate ? ", would be created" : ""
                let status = leg.status.map { ", \($0)" } ?? ""
                lines.append(
                    "  - \(leg.amount.formattedAmount) \(account.shownCurrency) into \"\(Markdown.escape(goal.name))\""
                        + "\(goal.uid.map { " \(Markdown.code($0))" } ?? "")\(note)\(status)"
                        + (leg.transferUid.map { "; transfer uid \(Markdown.code($0))" } ?? ""))
                if let line = progress(of: goal, account: account) { lines.append("    " + line) }
            }
            return
        }
        if let goal = account.goal {
            let note = goal.created ? " (created by this run)" : goal.wouldCreate ? " (would be created)" : ""
            lines.append(
                "- Goal: \"\(Markdown.escape(goal.name))\"\(goal.uid.map { " \(Markdown.code($0))" } ?? "")\(note)")
        }
        if let line = goalProgress(of: account) { lines.append(line) }
        if let transferUid = account.transferUid { lines.append("- Transfer uid: \(Markdown.code(transferUid))") }
    }

    /// What fell due before payday, each payment on a line of its own, and what could not be
    /// seen or placed.
    private func forecastLines(of account: AccountReport) -> [String] {
        guard let forecast = account.forecast else { return [] }
        let code = account.shownCurrency
        var lines: [String] = []
        let horizon = forecast.horizonWords
        if forecast.due.isEmpty {
            lines.append("- Scheduled \(horizon): nothing the bank has scheduled")
        } else {
            lines.append(
                "- Scheduled \(horizon): \(forecast.dueTotal.formattedAmount) \(code)"
                    + (forecast.lowPoint.map {
                        "; the balance's low point before this week's transfer: \($0.formattedAmount) \(code)"
                    } ?? ""))
            for payment in forecast.due {
                lines.append(
                    "  - \(payment.date.weekdayDayAndMonth(from: forecast.today)): \(Markdown.escape(payment.label)), "
                        + "\(forecast.amountWords(payment)) \(code) (\(forecast.sourceWords(payment)))")
            }
        }
        if !forecast.unplaced.isEmpty {
            lines.append(
                "- Forecast incomplete, so nothing moved: \(forecast.unplaced.map(Markdown.escape).joined(separator: "; "))"
            )
        }
        if !forecast.unseen.isEmpty {
            lines.append(
                "- Not counted, as the access token may not see them: \(forecast.unseen.map(Markdown.escape).joined(separator: ", "))"
            )
        }
        return lines
    }

    /// How the multiplier, the weekly cap and the balance turned the round-ups into the
    /// amount, in words; nil when none of them changed it.
    private func arithmetic(of account: AccountReport) -> String? {
        let code = account.shownCurrency
        guard let total = account.total else { return nil }
        let sum = account.roundUpSum ?? total
        // A multiplier changes nothing of round-ups that come to nothing.
        let multiplier = sum.minorUnits == 0 ? 1 : account.multiplier ?? 1
        guard multiplier != 1 || account.capApplied != nil || account.heldBack != nil else { return nil }
        var steps = ["The round-ups add up to \(sum.formattedAmount) \(code)"]
        if multiplier != 1 {
            let multiplied =
                (try? Money(amount: sum.amount * Decimal(multiplier), currency: sum.currency))
                .map { "\($0.formattedAmount) \(code)" } ?? "\(multiplier) times that"
            steps.append("the multiplier of \(multiplier) makes that \(multiplied)")
        }
        if let cap = account.capApplied { steps.append("the weekly cap cuts it to \(cap.formattedAmount) \(code)") }
        if let heldBack = account.heldBack {
            let why =
                account.minimumBalance.map { "to keep the minimum balance of \($0.formattedAmount) \(code)" }
                ?? "to keep the account out of overdraft"
            steps.append("\(heldBack.formattedAmount) \(code) stays in the account \(why)")
        }
        let verb =
            switch account.status {
            case .transferred, .alreadyTransferred: "moved"
            case .dryRun: "would move"
            default: "to move"
            }
        return "- " + steps.joined(separator: "; ") + ": **\(total.formattedAmount) \(code)** \(verb)."
    }

    /// What the goal holds and how near its target it is, when the bank said.
    private func goalProgress(of account: AccountReport) -> String? {
        account.goal.flatMap { progress(of: $0, account: account) }
    }

    /// What `goal` of `account`'s week holds and how near its target it is, when the bank said.
    private func progress(of goal: GoalReport, account: AccountReport) -> String? {
        let code = account.shownCurrency
        let now = account.status == .transferred ? "now holds" : "holds"
        switch (goal.saved, goal.target) {
        case (let saved?, let target?) where target.minorUnits > 0:
            let percent = Savings.percent(saved.minorUnits, of: target.minorUnits) ?? 0
            return
                "- The goal \(now) \(saved.formattedAmount) \(code): \(percent) % of its target of "
                + "\(target.formattedAmount) \(code)."
        case (let saved?, _):
            return "- The goal \(now) \(saved.formattedAmount) \(code)."
        case (nil, let target?):
            return "- The goal's target is \(target.formattedAmount) \(code)."
        default:
            return nil
        }
    }

    /// The counted transactions, a row each.
    private mutating func transactions(of account: AccountReport) throws {
        guard !account.transactions.isEmpty else { return }
        lines.append("")
        lines.append("| \(timeHeading) | Counterparty | Paid by | Amount | Round-up |")
        lines.append("|---|---|---|---:|---:|")
        // Rows are gathered in one string and handed on a thousand at a time: a busy
        // week has a hundred thousand of them.
        try flush()
        var rows = ""
        rows.reserveCapacity(min(account.transactions.count, 1000) * 100)
        // What the payments came to, in minor units; none when one is not a payment out.
        var spent: Int64? = 0
        for (number, (index, instant)) in LocalTimeText.order(account.transactions.map(\.settlementTime)).enumerated() {
            if number > 0, number % 1000 == 0 {
                try emit(rows)
                rows.removeAll(keepingCapacity: true)
            }
            let item = account.transactions[index]
            spent = spent.flatMap { sum in
                item.amount.minorUnits < 0 ? nil : Savings.exactSum(sum, item.amount.minorUnits)
            }
            rows += "| "
            rows += times.text(instant, else: item.settlementTime?.iso8601 ?? "")
            rows += " | "
            Markdown.escape(item.counterPartyName ?? "", into: &rows)
            rows += " | "
            rows += item.source?.rawValue ?? ""
            rows += " | "
            rows += item.amount.formattedAmount
            rows += " | "
            rows += item.roundUp.formattedAmount
            rows += " |\n"
        }
        try emit(rows)
        let count = account.transactions.count
        let spentText =
            spent.flatMap { minor in
                Currency(code: account.currency).map { Money(minorUnits: minor, currency: $0).formattedAmount }
            } ?? "—"
        lines.append(
            "| **Total** | \(count) payment\(count == 1 ? "" : "s") | | **\(spentText)** | "
                + "**\(account.roundUpSum?.formattedAmount ?? "—")** |")
    }

    /// The payments left out because another week counted them, a row each.
    private mutating func countedEarlier(of account: AccountReport) {
        guard let earlier = account.countedEarlier, !earlier.isEmpty else { return }
        lines.append("")
        lines.append("Already counted in another week, so not again:")
        lines.append("")
        lines.append("| \(timeHeading) | Counterparty | Paid by | Amount | Round-up |")
        lines.append("|---|---|---|---:|---:|")
        for (index, instant) in LocalTimeText.order(earlier.map(\.settlementTime)) {
            let item = earlier[index]
            var row = "| \(times.text(instant, else: item.settlementTime?.iso8601 ?? "")) | "
            Markdown.escape(item.counterPartyName ?? "", into: &row)
            lines.append(
                row
                    + " | \(item.source?.rawValue ?? "") | \(item.amount.formattedAmount) | \(item.roundUp.formattedAmount) |"
            )
        }
    }

    /// The feed items left out, by reason in words, then each with its reason.
    private mutating func leftOut(of account: AccountReport) throws {
        guard !account.leftOut.isEmpty else { return }
        lines.append("")
        lines.append("| Left out, because | Items |")
        lines.append("|---|---:|")
        for (reason, count) in account.leftOut.sorted(by: { $0.key < $1.key }) {
            lines.append("| \(Markdown.reason(reason)) | \(count) |")
        }
        guard let items = account.leftOutTransactions, !items.isEmpty else { return }
        lines.append("")
        lines.append("| \(timeHeading) | Counterparty | Paid by | Amount | Left out, because |")
        lines.append("|---|---|---|---:|---|")
        try flush()
        var rows = ""
        for (number, (index, _)) in LocalTimeText.order(items.map(\.settlementTime)).enumerated() {
            if number > 0, number % 1000 == 0 {
                try emit(rows)
                rows.removeAll(keepingCapacity: true)
            }
            let item = items[index]
            rows += "| "
            rows += item.settlementTime.map { times.text($0, else: $0.iso8601) } ?? "not settled"
            rows += " | "
            Markdown.escape(item.counterParty ?? "", into: &rows)
            rows += " | \(item.source ?? "") | \(item.amount.formattedAmount) | \(Markdown.reason(item.reason)) |\n"
        }
        try emit(rows)
    }
}
