import Foundation
import RoundUp
import RoundUpLedger
package import RoundUpOutput

/// A real run's metrics in node_exporter's textfile-collector format: totals and counts
/// only, no account ids. The file is written whole beside its place and renamed into it,
/// so the collector never reads half of it, and it is readable by all (0644), so that
/// node_exporter's user can read it.
package struct Metrics {
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
        let held = ((try? ledger?.accountWeeks()) ?? nil)?.filter { $0.status == .held }.count ?? tally.held
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

    /// Writes the file at `path` atomically, mode 0644, through `WriteDirectory`: a link
    /// planted at its name, or at any name beside it, is replaced, never written through.
    /// The directory it is written in is checked once more as it is opened: it is none of
    /// `jobDirectories` (the state and report directories, which may not have existed when
    /// the run began), and what stands at its name is none of `ownFiles`.
    package func write(to path: String, jobDirectories: [String] = [], ownFiles: [String] = []) throws(FileRefusal) {
        let (parent, name) = Metrics.split(path)
        let directory = try WriteDirectory(parent, sharing: .shared, create: false)
        if let own = jobDirectories.first(where: directory.isSame(as:)) {
            throw FileRefusal(
                .refused,
                "the metrics file \(path) is in \(own), where it would replace the job's own files; give metricsFile "
                    + "a path in the textfile collector's directory")
        }
        if let target = directory.status(of: name) {
            for file in ownFiles {
                var own = stat()
                if stat(file, &own) == 0, own.st_dev == target.st_dev, own.st_ino == target.st_ino {
                    throw FileRefusal(
                        .refused,
                        "the metrics file \(path) is \(file), one of the job's own files; give metricsFile a path of its own"
                    )
                }
            }
        }
        if let refusal = Metrics.refusal(of: name, in: directory) { throw FileRefusal(.refused, refusal) }
        let file = try directory.create(name, mode: 0o644)
        try file.write(text)
        try file.commit()
    }

    /// The directory and the name of `path`.
    static func split(_ path: String) -> (directory: String, name: String) {
        let url = URL(fileURLWithPath: path)
        return (url.deletingLastPathComponent().path, url.lastPathComponent)
    }

    /// Why the metrics file may not be written at `path`, or nil: a file of another user's
    /// at its name (in a collector's directory shared with others), or a place where it
    /// would replace one of the job's own files: inside the state directory or the report
    /// directory, or one of `ownFiles` (the config, the token file). A directory that does
    /// not exist yet is no reason: the write says so when it fails.
    package static func refusal(
        of path: String, stateDirectory: String, reportDirectory: String, ownFiles: [String]
    ) -> String? {
        let (parent, name) = split(path)
        let place = resolved(parent)
        for (directory, what) in [(stateDirectory, "the state directory"), (reportDirectory, "the report directory")] {
            let own = resolved(directory)
            if place == own || place.hasPrefix(own + "/") {
                return "the metrics file \(path) is inside \(what) \(directory), where it would replace the job's "
                    + "own files; give metricsFile a path in the textfile collector's directory"
            }
        }
        var target = stat()
        let exists = stat(path, &target) == 0
        for file in ownFiles {
            var own = stat()
            let same =
                resolved(file) == place + "/" + name
                || (exists && stat(file, &own) == 0 && own.st_dev == target.st_dev && own.st_ino == target.st_ino)
            if same {
                return "the metrics file \(path) is \(file), one of the job's own files; give metricsFile a path "
                    + "of its own"
            }
        }
        guard let directory = try? WriteDirectory(parent, sharing: .shared, create: false) else { return nil }
        return refusal(of: name, in: directory)
    }

    /// Why `name` in `directory` may not be written: something there that is not the job's
    /// own file (another user's, or a directory).
    private static func refusal(of name: String, in directory: WriteDirectory) -> String? {
        guard let status = directory.status(of: name) else { return nil }
        let path = "\(directory.path)/\(name)"
        if status.st_uid != geteuid() {
            return "the metrics file \(path) belongs to another user (uid \(status.st_uid)); "
                + "remove it, or give metricsFile a name of your own"
        }
        if status.st_mode & S_IFMT == S_IFDIR { return "the metrics file \(path) is a directory" }
        return nil
    }

    /// `path` absolute, with its links resolved as far as it exists.
    private static func resolved(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let real = realpath(absolute, nil) else { return absolute }
        defer { free(real) }
        return String(cString: real)
    }
}
