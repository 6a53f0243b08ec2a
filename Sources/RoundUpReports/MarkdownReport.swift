public import Foundation
package import RoundUp

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
            zone: TimeZone(identifier: report.week.timeZone),
            showingOffsets: report.week.startLocal.dropFirst(19) != report.week.endLocal.dropFirst(19))
    }

    /// The heading of a column of payment times.
    private var timeHeading: String { "Settled (\(Markdown.escape(report.week.timeZone)))" }

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
                    + "\(account.roundUpSum.map { "\($0) \(account.shownCurrency)" } ?? "—") | "
                    + "\(moved ? account.total.map { "\($0) \(account.shownCurrency)" } ?? "—" : "—") | "
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
        lines.append(
            "- Account: \(Markdown.code(account.accountUid))\(account.accountType.map { ", \(Markdown.escape($0))" } ?? "")"
        )
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
        if let step = account.roundTo {
            lines.append("- Each payment is rounded up to the next \(step) \(account.shownCurrency).")
        }
        if let line = arithmetic(of: account) { lines.append(line) }
        if let minimum = account.minimumBalance {
            lines.append(
                "- Minimum balance: \(minimum) \(account.shownCurrency)"
                    + (account.balance.map { "; the balance was \($0) \(account.shownCurrency)" } ?? ""))
        }
        if let goal = account.goal {
            let note = goal.created ? " (created by this run)" : goal.wouldCreate ? " (would be created)" : ""
            lines.append(
                "- Goal: \"\(Markdown.escape(goal.name))\"\(goal.uid.map { " \(Markdown.code($0))" } ?? "")\(note)")
        }
        if let line = goalProgress(of: account) { lines.append(line) }
        if let transferUid = account.transferUid { lines.append("- Transfer uid: \(Markdown.code(transferUid))") }
    }

    /// How the multiplier, the weekly cap and the balance turned the round-ups into the
    /// amount, in words; nil when none of them changed it.
    private func arithmetic(of account: AccountReport) -> String? {
        let code = account.shownCurrency
        let sum = account.roundUpSum ?? account.total ?? "0"
        // A multiplier changes nothing of round-ups that come to nothing.
        let multiplier = (Decimal(string: sum) ?? 0) == 0 ? 1 : account.multiplier ?? 1
        guard let total = account.total, multiplier != 1 || account.capApplied != nil || account.heldBack != nil
        else { return nil }
        var steps = ["The round-ups add up to \(sum) \(code)"]
        if multiplier != 1 {
            let multiplied =
                Decimal(string: sum).flatMap { amount in
                    Currency(code: code).flatMap { try? Money(amount: amount * Decimal(multiplier), currency: $0) }
                }.map { "\($0.formattedAmount) \(code)" } ?? "\(multiplier) times that"
            steps.append("the multiplier of \(multiplier) makes that \(multiplied)")
        }
        if let cap = account.capApplied { steps.append("the weekly cap cuts it to \(cap) \(code)") }
        if let heldBack = account.heldBack {
            let why =
                account.minimumBalance.map { "to keep the minimum balance of \($0) \(code)" }
                ?? "to keep the account out of overdraft"
            steps.append("\(heldBack) \(code) stays in the account \(why)")
        }
        let verb =
            switch account.status {
            case .transferred, .alreadyTransferred: "moved"
            case .dryRun: "would move"
            default: "to move"
            }
        return "- " + steps.joined(separator: "; ") + ": **\(total) \(code)** \(verb)."
    }

    /// What the goal holds and how near its target it is, when the bank said.
    private func goalProgress(of account: AccountReport) -> String? {
        guard let goal = account.goal else { return nil }
        let code = account.shownCurrency
        let now = account.status == .transferred ? "now holds" : "holds"
        switch (goal.saved, goal.savedMinorUnits, goal.target, goal.targetMinorUnits) {
        case (let saved?, let savedMinor?, let target?, let targetMinor?) where targetMinor > 0:
            let percent = Savings.percent(savedMinor, of: targetMinor) ?? 0
            return "- The goal \(now) \(saved) \(code): \(percent) % of its target of \(target) \(code)."
        case (let saved?, _, _, _):
            return "- The goal \(now) \(saved) \(code)."
        case (nil, _, let target?, _):
            return "- The goal's target is \(target) \(code)."
        default:
            return nil
        }
    }

    /// The counted transactions, a row each.
    private mutating func transactions(of account: AccountReport) throws {
        guard !account.transactions.isEmpty else { return }
        lines.append("")
        lines.append("| \(timeHeading) | Counterparty | Amount | Round-up |")
        lines.append("|---|---|---:|---:|")
        // Rows are gathered in one string and handed on a thousand at a time: a busy
        // week has a hundred thousand of them.
        try flush()
        var rows = ""
        rows.reserveCapacity(min(account.transactions.count, 1000) * 100)
        // What the payments came to, in minor units: each amount has exactly the
        // currency's decimals, so its digits are its minor units.
        var spent: Int64? = 0
        for (number, (index, instant)) in LocalTimeText.order(account.transactions.map(\.settlementTime)).enumerated() {
            if number > 0, number % 1000 == 0 {
                try emit(rows)
                rows.removeAll(keepingCapacity: true)
            }
            let item = account.transactions[index]
            spent = spent.flatMap { sum in
                LocalTimeText.minorUnits(of: item.amount).flatMap { Savings.exactSum(sum, $0) }
            }
            rows += "| "
            rows += times.text(instant, else: item.settlementTime)
            rows += " | "
            Markdown.escape(item.counterParty ?? "", into: &rows)
            rows += " | "
            rows += item.amount
            rows += " | "
            rows += item.roundUp
            rows += " |\n"
        }
        try emit(rows)
        let count = account.transactions.count
        let spentText =
            spent.flatMap { minor in
                Currency(code: account.currency).map { Money(minorUnits: minor, currency: $0).formattedAmount }
            } ?? "—"
        lines.append(
            "| **Total** | \(count) payment\(count == 1 ? "" : "s") | **\(spentText)** | "
                + "**\(account.roundUpSum ?? "—")** |")
    }

    /// The payments left out because another week counted them, a row each.
    private mutating func countedEarlier(of account: AccountReport) {
        guard let earlier = account.countedEarlier, !earlier.isEmpty else { return }
        lines.append("")
        lines.append("Already counted in another week, so not again:")
        lines.append("")
        lines.append("| \(timeHeading) | Counterparty | Amount | Round-up |")
        lines.append("|---|---|---:|---:|")
        for (index, instant) in LocalTimeText.order(earlier.map(\.settlementTime)) {
            let item = earlier[index]
            var row = "| \(times.text(instant, else: item.settlementTime)) | "
            Markdown.escape(item.counterParty ?? "", into: &row)
            lines.append(row + " | \(item.amount) | \(item.roundUp) |")
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
        lines.append("| \(timeHeading) | Counterparty | Amount | Left out, because |")
        lines.append("|---|---|---:|---|")
        try flush()
        var rows = ""
        for (number, (index, instant)) in LocalTimeText.order(items.map { $0.settlementTime ?? "" }).enumerated() {
            if number > 0, number % 1000 == 0 {
                try emit(rows)
                rows.removeAll(keepingCapacity: true)
            }
            let item = items[index]
            rows += "| "
            rows += item.settlementTime.map { times.text(instant, else: $0) } ?? "not settled"
            rows += " | "
            Markdown.escape(item.counterParty ?? "", into: &rows)
            rows += " | \(item.amount) | \(Markdown.reason(item.reason)) |\n"
        }
        try emit(rows)
    }
}

/// A time the report gives in UTC (`2026-11-17T08:12:31.000Z`), on the saver's clock:
/// `2026-11-17 08:12` in the week's zone.
package final class LocalTimeText {
    package let zone: TimeZone?
    /// Each time ends with its offset from UTC: `2026-10-25 01:30 +01:00`.
    package let showingOffsets: Bool
    /// The zone's offset by quarter hour since 1970: this century every zone changes its
    /// offset on a quarter hour, and a busy week's hundred thousand payments need only a few
    /// hundred of them.
    private var offsets: [Int64: Int64] = [:]
    /// What each UTC minute reads as: a week has ten thousand of them, and a busy week's
    /// payments share them.
    private var minutes: [Int64: String] = [:]

    package init(zone: TimeZone?, showingOffsets: Bool = false) {
        self.zone = zone
        self.showingOffsets = showingOffsets
    }

    /// `instant` on the saver's clock; `fallback` when there is no instant or no zone.
    package func text(_ instant: Instant?, else fallback: String) -> String {
        guard let zone, let instant else { return fallback }
        let (minuteSince1970, _) = instant.millisecondsSince1970.dividedRoundingDown(by: 60_000)
        if let known = minutes[minuteSince1970] { return known }
        let text = self.text(minuteSince1970 * 60, in: zone)
        minutes[minuteSince1970] = text
        return text
    }

    /// The minute that begins `seconds` after 1970, in `zone`.
    private func text(_ seconds: Int64, in zone: TimeZone) -> String {
        let (quarter, _) = seconds.dividedRoundingDown(by: 900)
        let offset: Int64
        if let known = offsets[quarter] {
            offset = known
        } else {
            offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))))
            offsets[quarter] = offset
        }
        let (days, second) = (seconds + offset).dividedRoundingDown(by: 86_400)
        let hour = second / 3600
        let minute = second % 3600 / 60
        let time =
            "\(LocalDate(daysSinceEpoch: Int(days))) \(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute)"
        guard showingOffsets else { return time }
        let (offsetHours, offsetMinutes) = (abs(offset) / 3600, abs(offset) % 3600 / 60)
        return time + " \(offset < 0 ? "-" : "+")\(offsetHours < 10 ? "0" : "")\(offsetHours):"
            + "\(offsetMinutes < 10 ? "0" : "")\(offsetMinutes)"
    }

    /// An amount as the report writes it (`12.34`, with exactly the currency's decimals) in
    /// minor units: its digits; nil for anything else.
    package static func minorUnits(of amount: String) -> Int64? {
        var minor: Int64 = 0
        var digits = 0
        for byte in amount.utf8 where byte != UInt8(ascii: ".") {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (tenfold, overflow) = minor.multipliedReportingOverflow(by: 10)
            guard !overflow, let next = Savings.exactSum(tenfold, Int64(byte - UInt8(ascii: "0"))) else { return nil }
            minor = next
            digits += 1
        }
        return digits > 0 ? minor : nil
    }

    /// The indices of `times` (UTC, as the report writes them) in time order, the feed's
    /// order among equal times, each with its instant; a time that does not read as one
    /// comes last.
    package static func order(_ times: [String]) -> [(index: Int, instant: Instant?)] {
        let instants = times.map { Instant(iso8601: $0) }
        let keys = instants.map { $0?.millisecondsSince1970 ?? .max }
        return keys.indices.sorted { (keys[$0], $0) < (keys[$1], $1) }.map { ($0, instants[$0]) }
    }
}

extension Int64 {
    /// The quotient rounded towards minus infinity, and the remainder that goes with it.
    fileprivate func dividedRoundingDown(by divisor: Int64) -> (Int64, Int64) {
        let remainder = self % divisor
        return remainder < 0 ? (self / divisor - 1, remainder + divisor) : (self / divisor, remainder)
    }
}

/// Text from the bank or the config, made safe inside a Markdown table or paragraph.
package enum Markdown {
    /// A uid from the bank as a code span, printable; escaped text instead when it holds a
    /// backtick, which would end the span.
    package static func code(_ text: String) -> String {
        let shown = printable(text)
        return shown.contains("`") ? escape(shown) : "`\(shown)`"
    }

    /// A reason a feed item was left out (`not-settled`), in words.
    package static func reason(_ code: String) -> String {
        Exclusion(rawValue: code)?.description ?? escape(code)
    }

    package static func escape(_ text: String) -> String {
        var result = ""
        escape(text, into: &result)
        return result
    }

    /// Appends `text`, escaped, to `result`; text with nothing to escape is appended whole.
    package static func escape(_ text: String, into result: inout String) {
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
