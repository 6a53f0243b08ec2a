import Foundation
package import RoundUp

/// The report as JSON, its one writer, by hand: a week of a busy account has a hundred
/// thousand transactions, and `JSONEncoder` spent more time on them than decoding the feed
/// did.
///
/// Pretty-printed with two spaces, keys in sorted order, an empty array or object as `[]`
/// and `{}`; times in ISO 8601 (UTC, or with the week's offset where the key says local),
/// amounts with their currency's decimals. `schema/report-v1.schema.json` documents it, and
/// the tests hold it to that and to the goldens (`ReportSchemaTests`, `ReportJSONTests`,
/// `GoldenReportTests`). A field added to the report must be added here, in its sorted place:
/// `ReportJSONTests` fails while a stored field of the report's structures reaches no key.
package struct ReportJSON {
    private(set) var bytes: [UInt8] = []
    private var depth = 0
    /// Whether the container being written has a member yet.
    private var hasMember: [Bool] = []
    /// Takes what has been written so far, when writing to a file: a big report then never
    /// sits whole in memory.
    private var sink: ((inout [UInt8]) throws -> Void)?

    package init(capacity: Int) { bytes.reserveCapacity(capacity) }

    package static func encode(_ report: WeekReport) -> [UInt8] {
        let transactions = report.accounts.reduce(0) { $0 + $1.transactions.count }
        var writer = ReportJSON(capacity: 4096 + transactions * 260)
        writer.write(report)
        return writer.bytes
    }

    /// Writes `report` to `file` a piece at a time.
    package static func write(_ report: WeekReport, to file: ReportFile) throws {
        var writer = ReportJSON(capacity: ReportFile.pieceSize + 4096)
        writer.sink = { bytes in try file.append(bytes) }
        writer.write(report)
        if let failure = writer.failure { throw failure }
        try file.append(writer.bytes)
    }

    /// Hands what is written so far to the sink, once there is enough of it.
    private mutating func flushIfLarge() {
        guard let sink, bytes.count >= ReportFile.pieceSize else { return }
        do {
            try sink(&bytes)
            bytes.removeAll(keepingCapacity: true)
        } catch {
            failure = error
            self.sink = nil
        }
    }

    /// The first error writing to the sink; the report is then abandoned by the caller.
    private(set) var failure: (any Error)?

    package static func encode(_ reports: [WeekReport]) -> [UInt8] {
        var writer = ReportJSON(capacity: 4096)
        writer.open(UInt8(ascii: "["))
        for report in reports {
            writer.element()
            writer.write(report)
        }
        writer.close(UInt8(ascii: "]"))
        return writer.bytes
    }

    // MARK: - The report's structures, keys in sorted order

    private mutating func write(_ report: WeekReport) {
        open(UInt8(ascii: "{"))
        key("accounts")
        open(UInt8(ascii: "["))
        for account in report.accounts {
            element()
            write(account)
        }
        close(UInt8(ascii: "]"))
        key("bankClockOffsetSeconds", report.bankClockOffsetSeconds)
        key("dryRun", report.dryRun)
        key("error", report.error)
        key("exitCode", Int64(report.exitCode.rawValue))
        key("generatedAt", report.generatedAt.iso8601)
        key("generator", report.generator)
        key("requests", report.requests.map(Int64.init))
        key("requestsPerAccountWeek", report.requestsPerAccountWeek)
        key("retries", report.retries.map(Int64.init))
        key("schemaVersion", Int64(report.schemaVersion))
        key("week")
        write(report.week)
        close(UInt8(ascii: "}"))
    }

    private mutating func write(_ week: Week) {
        open(UInt8(ascii: "{"))
        key("endDate", week.endDate.description)
        key("endLocal", week.localEndText)
        key("endUTC", week.end.iso8601)
        key("hours", Int64(week.hours))
        key("startDate", week.startDate.description)
        key("startLocal", week.localStartText)
        key("startUTC", week.start.iso8601)
        key("timeZone", week.timeZone.identifier)
        close(UInt8(ascii: "}"))
    }

    private mutating func write(_ account: AccountReport) {
        open(UInt8(ascii: "{"))
        key("accountType", account.accountType)
        key("accountUid", account.accountUid)
        key("balance", account.balance?.formattedAmount)
        key("capApplied", account.capApplied?.formattedAmount)
        if let earlier = account.countedEarlier { transactions("countedEarlier", earlier) }
        key("currency", account.currency)
        key("detail", account.detail)
        key("exitCode", Int64(account.exitCode.rawValue))
        if let forecast = account.forecast { write(forecast) }
        if let goal = account.goal {
            key("goal")
            write(goal)
        }
        key("heldBack", account.heldBack?.formattedAmount)
        key("leftOut")
        open(UInt8(ascii: "{"))
        for (reason, count) in account.leftOut.sorted(by: { $0.key < $1.key }) {
            key(reason, Int64(count))
        }
        close(UInt8(ascii: "}"))
        if let items = account.leftOutTransactions {
            key("leftOutTransactions")
            open(UInt8(ascii: "["))
            for item in items {
                flushIfLarge()
                element()
                open(UInt8(ascii: "{"))
                key("amount", item.amount.formattedAmount)
                key("counterParty", item.counterParty)
                key("feedItemUid", item.feedItemUid)
                key("reason", item.reason)
                key("settlementTime", item.settlementTime?.iso8601)
                key("source", item.source)
                close(UInt8(ascii: "}"))
            }
            close(UInt8(ascii: "]"))
        }
        if !account.legs.isEmpty {
            key("legs")
            open(UInt8(ascii: "["))
            for leg in account.legs {
                element()
                open(UInt8(ascii: "{"))
                key("amount", leg.amount.formattedAmount)
                key("amountMinorUnits", leg.amount.minorUnits)
                key("goal")
                write(leg.goal)
                key("status", leg.status)
                key("transferUid", leg.transferUid)
                close(UInt8(ascii: "}"))
            }
            close(UInt8(ascii: "]"))
        }
        key("minimumBalance", account.minimumBalance?.formattedAmount)
        key("multiplier", account.multiplier.map(Int64.init))
        key("name", account.name)
        key("nativeRoundUp", account.nativeRoundUp)
        key("roundTo", account.roundTo.map(Int64.init))
        key("roundUpSum", account.roundUpSum?.formattedAmount)
        // Schema 2 says a partly transferred week so; schema 1 has no word for it.
        key("status", account.legs.isEmpty ? account.status.reportJSONWord : account.status.reportJSONWordV2)
        key("total", account.total?.formattedAmount)
        key("totalMinorUnits", account.totalMinorUnits)
        transactions("transactions", account.transactions)
        key("transferUid", account.transferUid)
        if let window = account.window {
            key("window")
            open(UInt8(ascii: "{"))
            key("endUTC", window.end.iso8601)
            key("hours", Int64(window.hours))
            key("note", window.note)
            key("startUTC", window.start.iso8601)
            close(UInt8(ascii: "}"))
        }
        close(UInt8(ascii: "}"))
    }

    /// `forecast`: what fell due before payday.
    private mutating func write(_ goal: GoalReport) {
        open(UInt8(ascii: "{"))
        key("created", goal.created)
        key("name", goal.name)
        key("saved", goal.saved?.formattedAmount)
        key("savedMinorUnits", goal.saved?.minorUnits)
        key("target", goal.target?.formattedAmount)
        key("targetMinorUnits", goal.target?.minorUnits)
        key("uid", goal.uid)
        key("wouldCreate", goal.wouldCreate)
        close(UInt8(ascii: "}"))
    }

    private mutating func write(_ forecast: ForecastReport) {
        key("forecast")
        open(UInt8(ascii: "{"))
        key("complete", forecast.unplaced.isEmpty)
        key("due")
        open(UInt8(ascii: "["))
        for payment in forecast.due {
            element()
            open(UInt8(ascii: "{"))
            key("amount", payment.amount.formattedAmount)
            key("date", payment.date.description)
            key("dateReckoned", payment.dateReckoned)
            key("label", payment.label)
            key("lastAmount", payment.lastAmount)
            key("source", payment.source.rawValue)
            close(UInt8(ascii: "}"))
        }
        close(UInt8(ascii: "]"))
        key("dueTotal", forecast.dueTotal.formattedAmount)
        key("lowPoint", forecast.lowPoint?.formattedAmount)
        key("payday", forecast.payday?.description)
        key("through", forecast.through.description)
        key("today", forecast.today.description)
        strings("unplaced", forecast.unplaced)
        strings("unseen", forecast.unseen)
        close(UInt8(ascii: "}"))
    }

    /// `name`: an array of text.
    private mutating func strings(_ name: String, _ list: [String]) {
        key(name)
        open(UInt8(ascii: "["))
        for text in list {
            element()
            string(text)
        }
        close(UInt8(ascii: "]"))
    }

    /// `name`: an array of transactions, as the report shows them.
    private mutating func transactions(_ name: String, _ list: [CountedTransaction]) {
        key(name)
        open(UInt8(ascii: "["))
        for transaction in list {
            flushIfLarge()
            element()
            open(UInt8(ascii: "{"))
            key("amount", transaction.amount.formattedAmount)
            key("counterParty", transaction.counterPartyName)
            key("feedItemUid", transaction.uid)
            key("roundUp", transaction.roundUp.formattedAmount)
            key("settlementTime", transaction.settlementTime?.iso8601 ?? "")
            key("source", transaction.source?.rawValue)
            close(UInt8(ascii: "}"))
        }
        close(UInt8(ascii: "]"))
    }

    // MARK: - JSON

    private mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
        for _ in 0..<depth { bytes.append(contentsOf: [0x20, 0x20]) }
    }

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        depth += 1
        hasMember.append(false)
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        if hasMember.removeLast() { newline() }
        bytes.append(bracket)
    }

    /// Starts the next element of an array or member of an object.
    private mutating func element() {
        if hasMember[hasMember.count - 1] { bytes.append(UInt8(ascii: ",")) }
        hasMember[hasMember.count - 1] = true
        newline()
    }

    /// A member's key; its value follows.
    private mutating func key(_ name: String) {
        element()
        string(name)
        bytes.append(contentsOf: [0x20, UInt8(ascii: ":"), 0x20])
    }

    private mutating func key(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    private mutating func key(_ name: String, _ value: Int64?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A number as `JSONEncoder` writes a `Decimal`: its plain description.
    private mutating func key(_ name: String, _ value: Decimal?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: value.description.utf8)
    }

    private mutating func key(_ name: String, _ value: Bool) {
        key(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// A string, escaped as JSON requires: quotes, backslashes and control characters; and
    /// so that the file never holds a character that could drive a terminal, every other
    /// one `printable` escapes (DEL, C1, bidirectional controls) is written as `\uXXXX` too.
    /// The text read back is exactly the bank's.
    private mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        // Nearly every string needs no escape: copied in one go.
        let plain = text.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard
                !utf8.contains(where: {
                    $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0x7F || $0 == 0xC2
                        || $0 == 0xD8 || $0 == 0xE2
                })
            else {
                return false
            }
            bytes.append(contentsOf: utf8)
            return true
        }
        if plain == true {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for scalar in text.unicodeScalars {
            guard scalar.isASCII || !isControl(scalar) else {
                let digits = Array(String(scalar.value, radix: 16).utf8)
                bytes.append(
                    contentsOf: Array("\\u".utf8) + Array(repeating: UInt8(ascii: "0"), count: 4 - digits.count))
                bytes.append(contentsOf: digits)
                continue
            }
            guard scalar.isASCII else {
                bytes.append(contentsOf: Array(String(scalar).utf8))
                continue
            }
            let byte = UInt8(scalar.value)
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20, 0x7F:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(ReportJSON.hex[Int(byte >> 4)])
                bytes.append(ReportJSON.hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension Week {
    /// The week's first instant on its own clock, with the offset: `2026-11-09T00:00:00Z`.
    package var localStartText: String { localText(start) }
    /// The first instant after the week on its own clock, with the offset.
    package var localEndText: String { localText(end) }

    private func localText(_ instant: Instant) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = timeZone
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: instant.date)
    }

    /// Whether the clocks change during the week, so that its local times need offsets.
    package var clocksChange: Bool {
        timeZone.secondsFromGMT(for: start.date) != timeZone.secondsFromGMT(for: end.date)
    }
}
