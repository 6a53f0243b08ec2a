public import Foundation

extension RunReport {
    /// The report as indented JSON with sorted keys.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The report as Markdown, for people.
    public var markdown: String {
        var lines: [String] = []
        lines.append("# Round-up for the week \(week.startDate) – \(week.endDate)\(dryRun ? " (dry run)" : "")")
        lines.append("")
        lines.append("- Window: \(week.startLocal) to \(week.endLocal) (\(week.timeZone), \(week.hours) hours)")
        lines.append("- In UTC: \(week.startUTC) to \(week.endUTC)")
        lines.append("- Generated: \(generatedAt) by \(generator)")
        if let error { lines.append("- **Run failed:** \(error)") }
        lines.append("- Exit code: \(exitCode.rawValue)")
        if let retries { lines.append("- Requests retried after transient failures: \(retries)") }
        for account in accounts {
            lines.append("")
            lines.append("## \(account.name ?? "Account") (\(account.currency)) — \(account.status.rawValue)")
            lines.append("")
            lines.append("- Account: `\(account.accountUid)`")
            if let detail = account.detail { lines.append("- \(account.status == .failed ? "**Why:** " : "")\(detail)") }
            if let total = account.total {
                var line = "- Round-up: \(account.roundUpSum ?? total) \(account.currency)"
                if let multiplier = account.multiplier, multiplier != 1 { line += " × \(multiplier)" }
                if let cap = account.capApplied { line += ", capped at \(cap) \(account.currency)" }
                lines.append(line + " → **\(total) \(account.currency)**")
            }
            if let goal = account.goal {
                let note = goal.created ? " (created by this run)" : goal.wouldCreate ? " (would be created)" : ""
                lines.append("- Goal: \"\(goal.name)\"\(goal.uid.map { " `\($0)`" } ?? "")\(note)")
            }
            if let transferUid = account.transferUid { lines.append("- Transfer uid: `\(transferUid)`") }
            if !account.transactions.isEmpty {
                lines.append("")
                lines.append("| Settled (UTC) | Counterparty | Amount | Round-up |")
                lines.append("|---|---|---:|---:|")
                for item in account.transactions {
                    let who = (item.counterParty ?? "").replacingOccurrences(of: "|", with: "\\|")
                    lines.append("| \(item.settlementTime) | \(who) | \(item.amount) | \(item.roundUp) |")
                }
            }
            if !account.leftOut.isEmpty {
                lines.append("")
                let parts = account.leftOut.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                lines.append("Left out: " + parts.joined(separator: ", "))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A few lines for stdout: the week, one line per account, where the report is.
    public func summary(reportPath: String?) -> String {
        var lines = ["roundup: week \(week.startDate) – \(week.endDate) (\(week.timeZone))\(dryRun ? ", dry run" : "")"]
        if let error { lines.append("  failed: \(error)") }
        for account in accounts {
            let name = "\(account.name ?? account.accountUid) (\(account.currency))"
            var line = "  \(name): "
            if let total = account.total {
                let count = account.transactions.count
                line += "\(total) \(account.currency) from \(count) transaction\(count == 1 ? "" : "s") — "
            }
            line += account.status.rawValue
            if let detail = account.detail { line += ": \(detail)" }
            lines.append(line)
        }
        if let retries, retries > 0 {
            lines.append("  (\(retries) request\(retries == 1 ? " was" : "s were") retried after transient failures)")
        }
        if let reportPath { lines.append("Report: \(reportPath)") }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Writes reports into the report directory, each file atomically.
public enum ReportWriter {
    /// Writes `roundup-<end-date>.json` and `.md`, each passed through `redact` last;
    /// returns the Markdown file's path.
    public static func write(_ report: RunReport, to directory: String, redact: (String) -> String = { $0 }) throws
        -> String
    {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let base = "\(directory)/roundup-\(report.week.endDate)"
        let json = redact(String(decoding: try report.json(), as: UTF8.self))
        try Data(json.utf8).write(to: URL(fileURLWithPath: base + ".json"), options: .atomic)
        try Data(redact(report.markdown).utf8).write(to: URL(fileURLWithPath: base + ".md"), options: .atomic)
        return base + ".md"
    }
}
