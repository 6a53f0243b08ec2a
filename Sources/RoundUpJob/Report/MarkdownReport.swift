public import Foundation
import RoundUp

extension RunReport {
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
    func writeMarkdown(to file: ReportFile) throws {
        var renderer = MarkdownReport(report: self) { try file.append($0) }
        try renderer.render()
    }
}

/// Renders a report as Markdown, handing it to `emit` a part at a time, so that a busy
/// week's report never sits whole in memory.
private struct MarkdownReport {
    let report: RunReport
    let emit: (String) throws -> Void
    private var lines: [String] = []

    init(report: RunReport, emit: @escaping (String) throws -> Void) {
        self.report = report
        self.emit = emit
    }

    mutating func render() throws {
        header()
        accountTable()
        for account in report.accounts {
            section(account)
            try transactions(of: account)
            leftOut(of: account)
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
        lines.append("| Window | \(week.startLocal) to \(week.endLocal) (\(week.timeZone), \(week.hours) hours) |")
        lines.append("| In UTC | \(week.startUTC) to \(week.endUTC) |")
        lines.append("| Generated | \(report.generatedAt) by \(report.generator) |")
        lines.append("| Exit code | \(report.exitCode.rawValue) |")
        if let requests = report.requests { lines.append("| Requests to the bank | \(requests) |") }
        if let perAccount = report.requestsPerAccountWeek {
            lines.append("| Requests per account-week | \(perAccount) |")
        }
        if let retries = report.retries { lines.append("| Requests retried | \(retries) |") }
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
                    + "\(account.roundUpSum.map { "\($0) \(account.currency)" } ?? "—") | "
                    + "\(moved ? account.total.map { "\($0) \(account.currency)" } ?? "—" : "—") | "
                    + "\(Markdown.escape(account.goal?.name ?? "—")) | \(account.status.rawValue) |")
        }
    }

    /// The account's heading, what happened, and its arithmetic, goal and transfer uid.
    private mutating func section(_ account: AccountReport) {
        lines.append("")
        lines.append("## \(Markdown.escape(account.label)) — \(account.status.rawValue)")
        lines.append("")
        if let detail = account.detail {
            lines.append(
                "\(account.status.kind == .failedOrWaiting ? "**Why:** " : "")\(Markdown.escape(detail))")
            lines.append("")
        }
        lines.append("- Account: `\(account.accountUid)`\(account.accountType.map { ", \($0)" } ?? "")")
        if let window = account.window {
            lines.append(
                "- Window: \(window.startUTC) to \(window.endUTC) (\(window.hours) hours), "
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
        if let total = account.total {
            var line = "- Round-up: \(account.roundUpSum ?? total) \(account.currency)"
            if let step = account.roundTo { line += " (each payment to the next \(step) \(account.currency))" }
            if let multiplier = account.multiplier, multiplier != 1 { line += " × \(multiplier)" }
            if let cap = account.capApplied { line += ", capped at \(cap) \(account.currency)" }
            if let heldBack = account.heldBack { line += ", less \(heldBack) \(account.currency) held back" }
            lines.append(line + " → **\(total) \(account.currency)**")
        }
        if let minimum = account.minimumBalance {
            lines.append(
                "- Minimum balance: \(minimum) \(account.currency)"
                    + (account.balance.map { "; the balance was \($0) \(account.currency)" } ?? ""))
        }
        if let goal = account.goal {
            let note = goal.created ? " (created by this run)" : goal.wouldCreate ? " (would be created)" : ""
            lines.append("- Goal: \"\(Markdown.escape(goal.name))\"\(goal.uid.map { " `\($0)`" } ?? "")\(note)")
        }
        if let transferUid = account.transferUid { lines.append("- Transfer uid: `\(transferUid)`") }
    }

    /// The counted transactions, a row each.
    private mutating func transactions(of account: AccountReport) throws {
        if !account.transactions.isEmpty {
            lines.append("")
            lines.append("| Settled (UTC) | Counterparty | Amount | Round-up |")
            lines.append("|---|---|---:|---:|")
            // Rows are gathered in one string and handed on a thousand at a time: a busy
            // week has a hundred thousand of them.
            try flush()
            var rows = ""
            rows.reserveCapacity(min(account.transactions.count, 1000) * 100)
            for (number, item) in account.transactions.enumerated() {
                if number > 0, number % 1000 == 0 {
                    try emit(rows)
                    rows.removeAll(keepingCapacity: true)
                }
                rows += "| "
                rows += item.settlementTime
                rows += " | "
                Markdown.escape(item.counterParty ?? "", into: &rows)
                rows += " | "
                rows += item.amount
                rows += " | "
                rows += item.roundUp
                rows += " |\n"
            }
            try emit(rows)
        }
    }

    /// The payments left out because another week counted them, a row each.
    private mutating func countedEarlier(of account: AccountReport) {
        guard let earlier = account.countedEarlier, !earlier.isEmpty else { return }
        lines.append("")
        lines.append("Already counted in another week, so not again:")
        lines.append("")
        lines.append("| Settled (UTC) | Counterparty | Amount | Round-up |")
        lines.append("|---|---|---:|---:|")
        for item in earlier {
            var row = "| \(item.settlementTime) | "
            Markdown.escape(item.counterParty ?? "", into: &row)
            lines.append(row + " | \(item.amount) | \(item.roundUp) |")
        }
    }

    /// How many feed items were left out, by reason.
    private mutating func leftOut(of account: AccountReport) {
        if !account.leftOut.isEmpty {
            lines.append("")
            lines.append("| Left out | Items |")
            lines.append("|---|---:|")
            for (reason, count) in account.leftOut.sorted(by: { $0.key < $1.key }) {
                lines.append("| \(reason) | \(count) |")
            }
        }
    }
}

/// Text from the bank or the config, made safe inside a Markdown table or paragraph.
enum Markdown {
    static func escape(_ text: String) -> String {
        var result = ""
        escape(text, into: &result)
        return result
    }

    /// Appends `text`, escaped, to `result`; text with nothing to escape is appended whole.
    static func escape(_ text: String, into result: inout String) {
        // The bank's text is made printable first: no control character reaches the file.
        let text = printable(text)
        if !text.utf8.contains(where: needsEscape) {
            result += text
            return
        }
        for character in text {
            switch character {
            case "|": result += "\\|"
            case "\\": result += "\\\\"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "`", "*", "_", "[", "]": result += "\\\(character)"
            case "\n", "\r", "\r\n": result += " "
            default: result.append(character)
            }
        }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "|"), UInt8(ascii: "\\"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "`"),
            UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "["), UInt8(ascii: "]"), 0x0A, 0x0D:
            true
        default: false
        }
    }
}
