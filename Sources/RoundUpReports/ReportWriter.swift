import Foundation
public import RoundUp
package import RoundUpOutput

/// Writes reports into the report directory, each file atomically. Every real run writes
/// its own pair, named by the week's end date, the run's time and its outcome
/// (`roundup-2026-11-15.20261116T060001Z.moved.md`), so that no run's report ever replaces
/// another's. `roundup-<end-date>.md` and `.json` are symbolic links to the newest report of
/// the week whose run moved money or found nothing to move, never to a failed run's.
/// Reports of failed runs older than `failedReportDays` are removed by later runs; the
/// others are kept.
public enum ReportWriter {
    /// How long the reports of failed runs are kept.
    public static let failedReportDays = 30

    /// The outcome a report is filed under.
    enum Outcome: String, CaseIterable {
        /// At least one account's money moved in this run.
        case moved
        /// The run succeeded and moved nothing (nothing to move, or already moved).
        case nothing
        /// The run failed, or held a week for a person.
        case failed

        init(_ report: WeekReport) {
            if report.accounts.contains(where: { $0.status == .transferred }) {
                self = .moved
            } else {
                self = report.exitCode == .ok && report.error == nil ? .nothing : .failed
            }
        }
    }

    /// Writes the run's report pair, with any occurrence of `token` removed, points the
    /// week's links at it when the run succeeded, and removes failed runs' old reports;
    /// returns the Markdown file's path.
    public static func write(_ report: WeekReport, to path: String, token: AccessToken?, at time: Instant)
        throws -> String
    {
        let directory = try openDirectory(path)
        let outcome = Outcome(report)
        let week = "roundup-\(report.week.endDate)"
        let name = uniqueName(in: directory, "\(week).\(stamp(time)).\(outcome.rawValue)")
        let json = try ReportFile(in: directory, name: "\(name).json", token: token)
        do {
            try ReportJSON.write(report, to: json)
            try json.commit()
        } catch {
            json.abandon()
            throw error
        }
        // A pair or nothing: a Markdown file that cannot be written (a full disk) takes its
        // JSON with it, so that the report a later run writes is the week's only one.
        do {
            let markdown = try ReportFile(in: directory, name: "\(name).md", token: token)
            do {
                try report.writeMarkdown(to: markdown)
                try markdown.commit()
            } catch {
                markdown.abandon()
                throw error
            }
        } catch {
            directory.remove("\(name).json")
            throw error
        }
        if outcome != .failed {
            for suffix in [".json", ".md"] {
                do {
                    try link("\(week)\(suffix)", to: name + suffix, in: directory)
                } catch {
                    throw LinkFailure(
                        path: "\(path)/\(name).md", link: "\(path)/\(week)\(suffix)", reason: error.description)
                }
            }
        }
        removeOldFailedReports(in: directory, now: time)
        directory.removeLeftovers(now: time)
        return "\(path)/\(name).md"
    }

    /// The run's report pair was written, whole, at `path`; only the week's link
    /// (`roundup-<end>.md`) could not be made to point at it. The report is not missing.
    package struct LinkFailure: Error, CustomStringConvertible, PlainlyWorded {
        package let path: String
        package let link: String
        package let reason: String
        package var description: String {
            "the report is written (\(path)), but \(link) could not be pointed at it: \(reason)"
        }
        package var plainWords: String { description }
    }

    /// What a rerun that changed nothing of the week ending `endDate` says instead of a
    /// report's path: none was written, and where the week's report is.
    package static func unchangedNote(week endDate: LocalDate, in directory: String) -> String {
        let link = "\(directory)/roundup-\(endDate).md"
        let report = (try? FileManager.default.destinationOfSymbolicLink(atPath: link)).map { ": \(link) -> \($0)" }
        return printable("Report: none new (earlier runs settled this week; this run changed nothing)\(report ?? "")")
    }

    /// The report directory at `path`, created for its owner alone if missing; refused
    /// (`FileRefusal.Kind.refused`) when another user owns it or others can write to it, as
    /// they could plant links where reports are written.
    package static func openDirectory(_ path: String) throws(FileRefusal) -> WriteDirectory {
        do {
            return try WriteDirectory(path, sharing: .ownerOnly, create: true)
        } catch {
            throw FileRefusal(error.kind, "the report directory: \(error.description)")
        }
    }

    /// `20261116T060001Z`.
    static func stamp(_ time: Instant) -> String {
        String(time.iso8601.prefix(19)).replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
            + "Z"
    }

    /// `base`, or `base-2`, `base-3`… when two runs of the week share a second.
    private static func uniqueName(in directory: WriteDirectory, _ base: String) -> String {
        var name = base
        var count = 1
        while directory.contains("\(name).md") || directory.contains("\(name).json") {
            count += 1
            name = "\(base)-\(count)"
        }
        return name
    }

    /// Points the symbolic link `path` at `target` (a name in the same directory),
    /// atomically: a reader sees the old report or the new one. A regular file in its place
    /// (from an older version) becomes the run's report's predecessor and is kept, renamed.
    private static func link(_ name: String, to target: String, in directory: WriteDirectory) throws(FileRefusal) {
        if let status = directory.status(of: name), status.st_mode & S_IFMT == S_IFREG {
            let kept = name.replacingOccurrences(of: ".md", with: ".earlier.md")
                .replacingOccurrences(of: ".json", with: ".earlier.json")
            try directory.move(name, to: kept)
        }
        try directory.link(name, to: target)
    }

    /// Removes failed runs' reports older than `failedReportDays`, judged by the time in
    /// their names; anything that does not read as one of them is left alone.
    private static func removeOldFailedReports(in directory: WriteDirectory, now: Instant) {
        let limit = stamp(now.adding(milliseconds: -Int64(failedReportDays) * 86_400_000))
        for name in directory.names() where name.hasPrefix("roundup-") {
            let parts = name.split(separator: ".")
            // roundup-<end>.<stamp>.failed[-n].<md|json>
            guard parts.count == 4, parts[2].hasPrefix(Outcome.failed.rawValue), parts[3] == "md" || parts[3] == "json",
                parts[1].count == 16, String(parts[1]) < limit
            else { continue }
            directory.remove(name)
        }
    }
}

/// A report file being written: under a temporary name beside it, a piece at a time, then
/// renamed over it (`WriteDirectory`), so that a reader never sees half a report and no
/// planted link redirects it. Every piece is searched for the token before it is written;
/// the last few bytes are held back until the next piece, so that a token split across
/// two pieces is found too.
package final class ReportFile {
    /// How much is gathered before it is written.
    package static let pieceSize = 1 << 20

    private let file: NewFile
    private let token: AccessToken?
    private var pending: [UInt8] = []

    package init(in directory: WriteDirectory, name: String, token: AccessToken?) throws(FileRefusal) {
        file = try directory.create(name, mode: 0o600)
        self.token = token
        pending.reserveCapacity(ReportFile.pieceSize + 4096)
    }

    package func append(_ bytes: [UInt8]) throws {
        pending.append(contentsOf: bytes)
        if pending.count >= ReportFile.pieceSize { try flush(all: false) }
    }

    package func append(_ text: String) throws {
        pending.append(contentsOf: text.utf8)
        if pending.count >= ReportFile.pieceSize { try flush(all: false) }
    }

    /// Writes everything and puts the file in its place.
    package func commit() throws {
        try flush(all: true)
        try file.commit()
    }

    /// Gives up: the temporary file goes, and whatever was at the name stays.
    package func abandon() { file.abandon() }

    /// Writes all that is gathered, without putting the file in its place.
    package func flush() throws { try flush(all: true) }

    private func flush(all: Bool) throws(FileRefusal) {
        if let token { pending = token.redacted(inUTF8: pending) }
        // Bytes that could be the start of a token completed by the next piece wait for it.
        let keep = all ? 0 : min(pending.count, token?.length ?? 0)
        let count = pending.count - keep
        let failed = pending.withUnsafeBytes { bytes in
            Result { () throws(FileRefusal) in try file.write(UnsafeRawBufferPointer(rebasing: bytes[..<count])) }
        }
        try failed.get()
        pending.removeFirst(count)
    }
}
