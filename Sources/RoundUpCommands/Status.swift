public import Foundation
public import RoundUp
public import RoundUpHost
public import RoundUpLedger
import RoundUpOutput
import RoundUpReports
public import RoundUpVocabulary

/// `roundup status`: one screen on whether the weekly job is doing its work, from the
/// ledger alone (no token, no request to the bank), with the monitoring-plugin exit codes
/// so that any monitor can run it: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
public enum JobHealth {
    public enum Level: Int32, Sendable, Comparable {
        case ok = 0
        case warning = 1
        case critical = 2
        case unknown = 3

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        var word: String {
            switch self {
            case .ok: "OK"
            case .warning: "WARNING"
            case .critical: "CRITICAL"
            case .unknown: "UNKNOWN"
            }
        }
    }

    /// What `status` found: its level, each reason for it, and the facts behind them.
    public struct Finding: Sendable {
        public var level: Level
        public var reasons: [String]
        public var lastRun: RunRecord?
        public var lastSuccess: RunRecord?
        /// Account-weeks waiting for a person, and those whose transfer is unconfirmed
        /// (pending: recorded, not known to have arrived), whatever error they carry.
        public var held: [AccountWeek]
        public var unconfirmed: [AccountWeek]
        /// What runs the job for this state directory, and when it runs next; nil when not
        /// looked at.
        public var scheduling: Scheduling?
        /// The newest week that is over, when it ended more than a day ago and accounts have
        /// no week for it in the ledger: its end, and those accounts' labels.
        public var missing: (weekEnd: LocalDate, labels: [String])?
        /// The zone its times are shown in: the config's `timeZone`, the saver's clock.
        public var zone: TimeZone
        /// Each account whose lock another user's process holds, with who holds it: runs
        /// skip the account (75) while it does.
        public var blocked: [(label: String, holder: String)] = []

        /// `instant` on the saver's clock, with its offset: `2026-11-23 06:00 +00:00`.
        func local(_ instant: Instant) -> String {
            LocalTimeText(zone: zone, showingOffsets: true).text(instant, else: instant.iso8601)
        }
    }

    /// The status table: what `status` judges, each with its level, as docs/operating.md and the
    /// man page give it. Status is the worst of the rows that hold.
    public static let table: [(finding: String, level: String)] = [
        ("no ledger in the state directory, or no run recorded in it", "UNKNOWN"),
        ("a week held for a person (`roundup resolve`)", "WARNING; CRITICAL once it has waited more than a day"),
        (
            "an unconfirmed week (its transfer recorded, not known to have arrived), whatever error it carries, as "
                + "after a run killed mid-transfer", "WARNING"
        ),
        ("the last run failed with 69 or 75, or was stopped by a signal (129, 130, 143)", "WARNING"),
        ("the last run failed with anything else", "CRITICAL"),
        ("the last run started more than 6 hours ago and never finished", "WARNING"),
        (
            "the newest week that is over ended more than a day ago, and no run has recorded it for an account in the "
                + "ledger (nor has a run of that week succeeded without it)", "WARNING"
        ),
        (
            "nothing on this machine schedules this state directory, or what does will not fire (below)", "WARNING"
        ),
        ("another user's process holds an account's lock", "WARNING"),
        ("no run has succeeded for 8 days, or none ever", "CRITICAL"),
    ]

    /// A run that ended no successful run for this long is critical.
    static let quietLimit: Int64 = 8 * 86_400_000
    /// A week held longer than this is critical.
    static let heldLimit: Int64 = 86_400_000

    /// A week's account with no week in the ledger this long after the week ended is a warning.
    static let missingLimit: Int64 = 86_400_000

    /// Looks at the ledger in `stateDirectory` as of `now`, with `scheduling` (what runs the
    /// job there) when it was looked at; its times are told in `zone`, and weeks end on
    /// `weekEndsOn` there. With `bank`, the bank's base URL, it also looks at who holds its
    /// accounts' locks.
    public static func find(
        stateDirectory: String, now: Instant, scheduling: Scheduling?, zone: TimeZone = .gmt,
        weekEndsOn: Weekday = .defaultWeekEnd, bank: String? = nil
    ) -> Finding {
        var finding = Finding(level: .ok, reasons: [], held: [], unconfirmed: [], scheduling: scheduling, zone: zone)
        let path = Ledger.path(in: stateDirectory)
        guard FileManager.default.fileExists(atPath: path) else {
            finding.level = .unknown
            finding.reasons = ["no ledger in \(stateDirectory): roundup has not run here yet"]
            return finding
        }
        do {
            let ledger = try Ledger.readOnlyCopy(of: path)
            // The newest runs, read once: the last, and any that covered the newest week.
            let runs = try ledger.runs()
            finding.lastRun = runs.first
            finding.lastSuccess = try ledger.lastSuccessfulRun()
            let entries = try ledger.accountWeeks()
            finding.held = entries.filter { $0.status == .held }
            finding.unconfirmed = entries.filter { $0.status == .pending }
            if let bank { finding.blocked = blocked(entries, bank: bank) }
            finding.missing = missing(
                entries, known: try ledger.knownAccounts(), runs: runs,
                week: Week.newest(endingOn: weekEndsOn, before: now, in: zone), now: now)
        } catch {
            finding.level = .unknown
            finding.reasons = ["cannot read the ledger \(path): \(plainDescription(error))"]
            return finding
        }
        judge(&finding, now: now)
        return finding
    }

    /// The ledger's accounts whose lock another user's process holds now, each once.
    static func blocked(_ entries: [AccountWeek], bank: String) -> [(label: String, holder: String)] {
        var seen = Set<String>()
        return entries.compactMap { entry in
            guard seen.insert(entry.accountUid).inserted,
                let holder = AccountLock.currentHolder(baseURL: bank, accountUid: entry.accountUid),
                holder.isAnotherUsers
            else { return nil }
            return (entry.label, holder.description)
        }
    }

    /// The accounts with no week in the ledger for `week`, the newest that is over, when it
    /// ended more than a day before `now` and no run that covered it succeeded: each account
    /// with a week in the ledger, and each a run began but never recorded a week for
    /// (`known`). A successful run of the week leaves out, rightly, an account the bank no
    /// longer lists or that the settings skip.
    static func missing(
        _ entries: [AccountWeek], known: [String: LocalDate], runs: [RunRecord], week: Week, now: Instant
    ) -> (weekEnd: LocalDate, labels: [String])? {
        guard now.millisecondsSince1970 - week.end.millisecondsSince1970 > missingLimit,
            !runs.contains(where: { $0.exitCode == 0 && $0.covers(week.endDate) })
        else { return nil }
        var labels: [String: String] = [:]
        for entry in entries.sorted(by: { $0.weekEnd < $1.weekEnd }) { labels[entry.accountUid] = entry.label }
        for (uid, first) in known where first <= week.endDate && labels[uid] == nil { labels[uid] = uid }
        let recorded = Set(entries.filter { $0.weekEnd == week.endDate }.map(\.accountUid))
        let missing = labels.filter { !recorded.contains($0.key) }.values.sorted()
        return missing.isEmpty ? nil : (week.endDate, missing)
    }

    private static func judge(_ finding: inout Finding, now: Instant) {
        func raise(_ level: Level, _ reason: String) {
            finding.level = max(finding.level, level)
            finding.reasons.append(reason)
        }
        guard let last = finding.lastRun else {
            raise(.unknown, "no real run is recorded yet")
            return
        }
        // Held weeks make every run end 78 until a person settles them: a run that ended so
        // for that alone is judged by the held weeks still open, below (none, once a person
        // has settled them all). The run's summary is shown once, on its own line: the
        // reasons only judge it.
        if let code = last.exitCode, code != 0, !last.onlyHeld {
            // Stopped by SIGHUP, SIGINT or SIGTERM: the next run finishes the rest.
            let mayPass = ExitStatus(rawValue: code)?.mayPass ?? (code == 129 || code == 130 || code == 143)
            if mayPass {
                raise(.warning, "the last run ended with exit \(code), which may pass by itself")
            } else {
                raise(.critical, "the last run needs a person (exit \(code)); its summary says why")
            }
        } else if last.exitCode == nil, now.millisecondsSince1970 - last.startedAt.millisecondsSince1970 > 21_600_000 {
            raise(
                .warning,
                "the last run, started \(finding.local(last.startedAt)), never finished (killed, or the machine stopped)"
            )
        }
        for entry in finding.held {
            let since = entry.updatedAt.flatMap(Instant.init(iso8601:)) ?? now
            let label = "\(entry.label), week ending \(entry.weekEnd)"
            if now.millisecondsSince1970 - since.millisecondsSince1970 > heldLimit {
                raise(
                    .critical,
                    "\(label) is held and has waited for a person since \(finding.local(since)): roundup resolve")
            } else {
                raise(.warning, "\(label) is held, waiting for a person: roundup resolve")
            }
        }
        // A transfer recorded and not known to have arrived: a run killed mid-transfer, or
        // one the bank has not confirmed. The next run looks for it in the feed.
        for entry in finding.unconfirmed {
            let error = entry.lastError.map { " (\($0))" } ?? ""
            if entry.isPartlyTransferred {
                raise(
                    .warning,
                    "\(entry.label), week ending \(entry.weekEnd) is partly transferred: of \(entry.amountText), "
                        + "\(entry.words(of: entry.doneLegs)) arrived, and \(entry.words(of: entry.openLegs)) is not yet "
                        + "known to have arrived\(error); the next run finishes it without sending what arrived again "
                        + "(roundup resolve lists it)")
                continue
            }
            raise(
                .warning,
                "\(entry.label), week ending \(entry.weekEnd) is unconfirmed: its transfer is not yet known to have "
                    + "arrived\(error); the next run looks for it in the feed before sending it again (roundup resolve "
                    + "lists it)")
        }
        for (label, holder) in finding.blocked {
            raise(
                .warning,
                "\(label) is blocked by another user's process: its lock is held by \(holder), and runs skip the "
                    + "account until that process ends")
        }
        if let (weekEnd, labels) = finding.missing {
            raise(
                .warning,
                "the week ending \(weekEnd) ended more than a day ago, and no run has recorded it for "
                    + "\(labels.joined(separator: ", ")): was the scheduled run missed? (roundup run --catch-up does it)"
            )
        }
        for problem in finding.scheduling?.problems ?? [] { raise(.warning, problem) }
        let success = finding.lastSuccess.map { $0.endedAt ?? $0.startedAt }
        if success.map({ now.millisecondsSince1970 - $0.millisecondsSince1970 > quietLimit }) ?? true {
            raise(
                .critical,
                success.map { "no successful run since \(finding.local($0)), more than 8 days ago" }
                    ?? "no run has succeeded yet")
        }
    }

    /// The finding for people: the level first, then the facts, then what to do. Each run
    /// is one line, in local time: when it started, how long it took, and its summary.
    public static func text(_ finding: Finding) -> String {
        var lines = ["roundup \(finding.level.word) (times in \(finding.zone.identifier))"]
        func run(_ record: RunRecord) -> String {
            let took = record.endedAt.map { end in
                let seconds = max(0, end.millisecondsSince1970 - record.startedAt.millisecondsSince1970) / 1000
                return seconds < 120 ? "\(seconds) s" : "\(seconds / 60) min"
            }
            let when = "\(finding.local(record.startedAt)), " + (took.map { "took \($0)" } ?? "not finished")
            guard let summary = record.summary else {
                // A run that never finished has nothing to count yet.
                guard record.endedAt != nil else { return when }
                let code = record.exitCode.map { "exit \($0): " } ?? ""
                return "\(when); \(code)\(record.accountsDone) account-week(s) done, \(record.accountsHeld) held, "
                    + "\(record.accountsFailed) failed or unconfirmed"
            }
            return "\(when); \(summary)"
        }
        if let last = finding.lastRun { lines.append("last run:        \(run(last))") }
        if let success = finding.lastSuccess, success.id != finding.lastRun?.id {
            lines.append("last success:    \(run(success))")
        }
        lines.append("held weeks:      \(finding.held.count)")
        lines.append("unconfirmed:     \(finding.unconfirmed.count)")
        let next =
            finding.scheduling.map { $0.nextRun ?? "none: nothing will run the job (see below)" }
            ?? "not looked for (no ledger here yet)"
        lines.append("next run:        \(next)")
        for reason in finding.reasons { lines.append("- \(reason)") }
        return lines.map(printable).joined(separator: "\n") + "\n"
    }
}

extension JobHealth {
    /// The finding for machines.
    public static func json(_ finding: Finding) -> String {
        func run(_ record: RunRecord?) -> Any {
            guard let record else { return NSNull() }
            var object: [String: Any] = [
                "startedAt": record.startedAt.iso8601, "accountsDone": record.accountsDone,
                "accountsHeld": record.accountsHeld, "accountsFailed": record.accountsFailed,
            ]
            object["endedAt"] = record.endedAt?.iso8601
            object["exitCode"] = record.exitCode.map { Int($0) }
            object["weeks"] = record.weeks
            object["summary"] = record.summary
            return object
        }
        let held = finding.held.map { entry -> [String: Any] in
            var object: [String: Any] = ["accountUid": entry.accountUid, "weekEnd": entry.weekEnd.description]
            object["accountName"] = entry.accountName
            object["since"] = entry.updatedAt
            object["reason"] = entry.reason
            return object
        }
        let object: [String: Any] = [
            "schemaVersion": 1, "status": finding.level.word, "exitCode": Int(finding.level.rawValue),
            "reasons": finding.reasons, "lastRun": run(finding.lastRun), "lastSuccess": run(finding.lastSuccess),
            "held": held, "unconfirmed": finding.unconfirmed.count,
            "nextRun": finding.scheduling?.nextRun ?? NSNull(),
        ]
        let data =
            (try? JSONSerialization.data(
                withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return printableJSON(String(decoding: data, as: UTF8.self)) + "\n"
    }
}

extension JobHealth {
    /// What `roundup status` prints, and the level it exits with.
    public struct Answer: Sendable {
        /// For stdout: the finding, as text or JSON.
        public var output: String
        /// For stderr, when there is no finding to give.
        public var problem: String?
        public var level: Level
    }

    /// `roundup status` with the settings `loaded` (or why they could not be had): the ledger
    /// in their state directory looked at as of `now`, its times told in their zone; with
    /// `system`, the service's ledger, refused when this user may not read it. What runs the
    /// job is looked for with `lookup`, only when there is a ledger to look at.
    public static func status(
        _ loaded: Result<LoadedSettings, SettingsError>, system: Bool, json: Bool, now: Instant,
        lookup: Scheduling.Lookup
    ) -> Answer {
        switch loaded {
        case .failure(let error):
            return Answer(output: "", problem: error.message, level: .unknown)
        case .success(let loaded):
            let directory = loaded.settings.state.directory
            if system, let refusal = Ledger.systemReadRefusal(Ledger.path(in: directory)) {
                return Answer(output: "", problem: refusal, level: .unknown)
            }
            let exists = FileManager.default.fileExists(atPath: Ledger.path(in: directory))
            let finding = find(
                stateDirectory: directory, now: now,
                scheduling: exists ? Scheduling.look(for: loaded.settings, now: now, lookup: lookup) : nil,
                zone: loaded.settings.rules.timeZone, weekEndsOn: loaded.settings.rules.weekEndsOn,
                bank: loaded.settings.bank.apiBaseURL)
            return Answer(output: json ? JobHealth.json(finding) : text(finding), level: finding.level)
        }
    }
}
