import Foundation
import RoundUp

/// A real run's metrics in node_exporter's textfile-collector format: totals and counts
/// only, no account ids. The file is written whole beside its place and renamed into it,
/// so the collector never reads half of it, and it is readable by all (0644), so that
/// node_exporter's user can read it.
struct Metrics {
    var lines: [String] = []

    /// The metrics of a run that ended with `exitCode` at `now`, having done `tally`.
    init(exitCode: Int32, tally: RunTally, at now: Instant, ledger: Ledger?) {
        let seconds = { (instant: Instant) in String(instant.millisecondsSince1970 / 1000) }
        gauge("roundup_last_run_timestamp_seconds", "When the last real run ended.", seconds(now))
        // 0 when no run has succeeded yet, so that an alert on its age fires.
        let success = (try? ledger?.lastSuccessfulRun()) ?? nil
        gauge(
            "roundup_last_success_timestamp_seconds", "When the last real run that ended with exit 0 ended (0: none).",
            success.map { seconds($0.endedAt ?? $0.startedAt) } ?? "0")
        gauge("roundup_run_exit_code", "The exit code of the last real run.", String(exitCode))
        let moved = tally.moved.sorted { $0.key < $1.key }
        header("roundup_saved_minor_units_total", "What the last real run moved into savings, in minor units.")
        for (currency, minor) in moved {
            lines.append("roundup_saved_minor_units_total{currency=\"\(currency)\"} \(minor)")
        }
        gauge("roundup_transfers", "Transfers the last real run made.", String(tally.transfers))
        let held = ((try? ledger?.entries()) ?? nil)?.filter { $0.status == .held }.count ?? tally.held
        gauge("roundup_account_weeks_held", "Account-weeks waiting for a person (roundup resolve).", String(held))
        gauge("roundup_http_requests", "Requests the last real run sent to the bank.", String(tally.requests))
    }

    private mutating func header(_ name: String, _ help: String) {
        lines.append("# HELP \(name) \(help)")
        lines.append("# TYPE \(name) gauge")
    }

    private mutating func gauge(_ name: String, _ help: String, _ value: String) {
        header(name, help)
        lines.append("\(name) \(value)")
    }

    var text: String { lines.joined(separator: "\n") + "\n" }

    /// Writes the file at `path` atomically, mode 0644.
    func write(to path: String) throws {
        let partial = path + ".partial"
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let failed = fchmod(descriptor, 0o644) != 0 ? errno : writeAll(descriptor, text)
        guard failed == nil, fsync(descriptor) == 0 else {
            let code = POSIXErrorCode(rawValue: failed ?? errno) ?? .EIO
            unlink(partial)
            throw POSIXError(code)
        }
        guard rename(partial, path) == 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .EIO
            unlink(partial)
            throw POSIXError(code)
        }
    }
}
