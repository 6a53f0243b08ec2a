public import Foundation
public import StarlingAPI

extension RunReport {
    /// The report as indented JSON with sorted keys.
    public func json() -> Data { Data(ReportJSON.encode(self)) }

    /// The report as Markdown, for people: the run, a table of the accounts, then each
    /// account's transactions.
    public var markdown: String {
        var text = ""
        try? renderMarkdown { text += $0 }
        return text
    }

    /// Writes the Markdown report to `file` as it is rendered.
    func writeMarkdown(to file: ReportFile) throws {
        try renderMarkdown { try file.append($0) }
    }

    /// Renders the Markdown report, handing it to `emit` a part at a time.
    private func renderMarkdown(_ emit: (String) throws -> Void) throws {
        var lines: [String] = []
        func flush() throws {
            guard !lines.isEmpty else { return }
            try emit(lines.joined(separator: "\n") + "\n")
            lines.removeAll(keepingCapacity: true)
        }
        lines.append("# Round-up for the week \(week.startDate) – \(week.endDate)\(dryRun ? " (dry run)" : "")")
        lines.append("")
        lines.append("| Run | |")
        lines.append("|---|---|")
        lines.append("| Window | \(week.startLocal) to \(week.endLocal) (\(week.timeZone), \(week.hours) hours) |")
        lines.append("| In UTC | \(week.startUTC) to \(week.endUTC) |")
        lines.append("| Generated | \(generatedAt) by \(generator) |")
        lines.append("| Exit code | \(exitCode.rawValue) |")
        if let retries { lines.append("| Requests retried | \(retries) |") }
        if let error {
            lines.append("")
            lines.append("**The run failed:** \(Markdown.escape(error))")
        }
        if !accounts.isEmpty {
            lines.append("")
            lines.append("| Account | Transactions | Round-up | \(dryRun ? "Would move" : "Moved") | Goal | Status |")
            lines.append("|---|---:|---:|---:|---|---|")
            for account in accounts {
                let moved = account.status == .transferred || account.status == .alreadyTransferred || dryRun
                lines.append(
                    "| \(Markdown.escape(account.label)) | \(account.transactions.count) | "
                        + "\(account.roundUpSum.map { "\($0) \(account.currency)" } ?? "—") | "
                        + "\(moved ? account.total.map { "\($0) \(account.currency)" } ?? "—" : "—") | "
                        + "\(Markdown.escape(account.goal?.name ?? "—")) | \(account.status.rawValue) |")
            }
        }
        for account in accounts {
            lines.append("")
            lines.append("## \(Markdown.escape(account.label)) — \(account.status.rawValue)")
            lines.append("")
            if let detail = account.detail {
                lines.append("\(account.status == .failed ? "**Why:** " : "")\(Markdown.escape(detail))")
                lines.append("")
            }
            lines.append("- Account: `\(account.accountUid)`")
            if let total = account.total {
                var line = "- Round-up: \(account.roundUpSum ?? total) \(account.currency)"
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
            if !account.leftOut.isEmpty {
                lines.append("")
                lines.append("| Left out | Items |")
                lines.append("|---|---:|")
                for (reason, count) in account.leftOut.sorted(by: { $0.key < $1.key }) {
                    lines.append("| \(reason) | \(count) |")
                }
            }
        }
        try flush()
    }

    /// For stdout: the week, a table with a row per account, what each did, and where
    /// the report is.
    public func summary(reportPath: String?, style: TextStyle = .plain) -> String {
        var lines = [
            style.bold("roundup: week \(week.startDate) – \(week.endDate) (\(week.timeZone))\(dryRun ? ", dry run" : "")")
        ]
        if let error { lines.append(style.status(.failed, "failed: \(error)")) }
        if !accounts.isEmpty {
            lines.append("")
            let rows = accounts.map { account in
                [
                    account.label, String(account.transactions.count),
                    account.total.map { "\($0) \(account.currency)" } ?? "—", account.goal?.name ?? "—",
                    account.status.rawValue,
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
                if let detail = account.detail { lines.append("\(account.label): \(detail)") }
            }
        }
        if let retries, retries > 0 {
            lines.append("(\(retries) request\(retries == 1 ? " was" : "s were") retried after transient failures)")
        }
        if let reportPath { lines.append(style.dim("Report: \(reportPath)")) }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension AccountReport {
    /// `Personal (GBP)`.
    var label: String { "\(name ?? accountUid) (\(currency))" }
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

/// Writes reports into the report directory, each file atomically.
public enum ReportWriter {
    /// Writes `roundup-<end-date>.json` and `.md`, with any occurrence of `token` removed;
    /// returns the Markdown file's path.
    public static func write(_ report: RunReport, to directory: String, token: AccessToken?) throws -> String {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let base = "\(directory)/roundup-\(report.week.endDate)"
        let json = try ReportFile(path: base + ".json", token: token)
        do {
            try ReportJSON.write(report, to: json)
            try json.commit()
        } catch {
            json.abandon()
            throw error
        }
        let markdown = try ReportFile(path: base + ".md", token: token)
        do {
            try report.writeMarkdown(to: markdown)
            try markdown.commit()
        } catch {
            markdown.abandon()
            throw error
        }
        return base + ".md"
    }
}

/// A report file being written: into a temporary file beside it, a piece at a time, then
/// renamed over it, so that a reader never sees half a report. Every piece is searched for
/// the token before it is written; the last few bytes are held back until the next piece,
/// so that a token split across two pieces is found too.
final class ReportFile {
    /// How much is gathered before it is written.
    static let pieceSize = 1 << 20

    private let path: String
    private let temporary: String
    private let token: AccessToken?
    private var descriptor: Int32
    private var pending: [UInt8] = []

    init(path: String, token: AccessToken?) throws {
        self.path = path
        self.temporary = path + ".partial"
        self.token = token
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ReportError(path: path, code: errno) }
        pending.reserveCapacity(ReportFile.pieceSize + 4096)
    }

    deinit {
        if descriptor >= 0 { abandon() }
    }

    func append(_ bytes: [UInt8]) throws {
        pending.append(contentsOf: bytes)
        if pending.count >= ReportFile.pieceSize { try flush(all: false) }
    }

    func append(_ text: String) throws {
        pending.append(contentsOf: text.utf8)
        if pending.count >= ReportFile.pieceSize { try flush(all: false) }
    }

    /// Writes everything and puts the file in its place.
    func commit() throws {
        try flush(all: true)
        close(descriptor)
        descriptor = -1
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw ReportError(path: path, code: code)
        }
    }

    /// Gives up: the temporary file goes, and whatever was at `path` stays.
    func abandon() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(temporary)
    }

    private func flush(all: Bool) throws {
        if let token { pending = token.redacted(inUTF8: pending) }
        // Bytes that could be the start of a token completed by the next piece wait for it.
        let keep = all ? 0 : min(pending.count, token?.length ?? 0)
        let count = pending.count - keep
        var written = 0
        let failed = pending.withUnsafeBytes { buffer -> Bool in
            while written < count {
                let result = Glibc.write(descriptor, buffer.baseAddress! + written, count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                written += result
            }
            return false
        }
        if failed { throw ReportError(path: path, code: errno) }
        pending.removeFirst(count)
    }
}

/// A report file that could not be written.
struct ReportError: Error, CustomStringConvertible {
    let path: String
    let code: Int32
    var description: String { "cannot write \(path): \(String(cString: strerror(code)))" }
    var localizedDescription: String { description }
}
