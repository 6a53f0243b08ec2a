import CurlHTTP
import Foundation
public import Logging
public import RoundUp
public import RoundUpLedger
import RoundUpNotify
import RoundUpOutput
public import RoundUpVocabulary
import Synchronization

/// What a real run leaves for those who watch over it: a row in the ledger's run table
/// from its start to its end, a ping to a dead man's switch when it starts and when it
/// ends, and the metrics file. None of it changes the run's outcome: a failure here is
/// logged and said on stderr.
///
/// The row is written in the ledger of the state directory the run holds locked
/// (`record(in:)`), and finished before the run lets go of the lock. A signal thread may
/// finish it too (`stopped(by:status:)`), hence the mutex around it.
public final class RunWatch: Sendable {
    let stateDirectory: String
    let ping: Ping?
    /// The places `notify.to` names, and what they are told.
    let notifier: Notifier?
    let weekly: Bool
    let failures: FailureTelling
    /// The held weeks this run claimed as told when it finished (`finish`), told once it
    /// has let go of the state directory (`tell`), with the ledger to give back those it
    /// could not tell.
    private let heldToTell = Mutex<HeldToTell?>(nil)
    /// When the run before this one started, if it never recorded its end.
    private let unfinishedBefore = Mutex<Instant?>(nil)

    private struct HeldToTell: Sendable {
        var weeks: [AccountWeek]
        var claimedAt: Instant
        var ledger: Ledger
    }
    /// Nil when none is configured, or when the one configured is refused.
    private let configuredMetricsFile: String?
    /// Set when the metrics file is refused once the state directory exists (`checkMetricsAgain`).
    private let metricsRefusedLater = Mutex(false)
    /// The metrics file to write, unless it was refused.
    var metricsFile: String? { metricsRefusedLater.withLock { $0 } ? nil : configuredMetricsFile }
    /// Why the configured metrics file is not written (78): the run stops before it asks
    /// anything of the bank.
    public let metricsRefusal: CommandFailure?
    let startedAt: Instant
    let clock: @Sendable () -> Instant
    let logger: Logger
    /// The state and report directories, and the job's own files (the ledger, the config,
    /// the token file), which the metrics file never replaces: checked again as it is written.
    let jobDirectories: [String]
    let jobFiles: [String]
    /// The run's row, once begun.
    private let recording = Mutex<Recording?>(nil)
    /// Who ends the run's row: the run itself, or a signal; whichever comes first.
    private let phase = Mutex(Phase.running)

    private enum Phase {
        case running
        /// The run recorded its own ending; a signal now changes nothing.
        case finished
        /// A signal ended the run; the run's own ending is not recorded or told.
        case stopped
    }

    /// Whether a signal ended the run: its row, ping and metrics say so, and the process
    /// ends from the signal's handler.
    public var wasStopped: Bool { phase.withLock { $0 == .stopped } }

    /// Where the run's row is, and why it could not be written.
    private struct Recording: Sendable {
        var ledger: Ledger?
        var runId: Int64?
        /// Why the run could not be recorded, said when it ends.
        var problems: [String] = []

        /// Begins the row of a run started at `startedAt` in `ledger`.
        init(beginningIn ledger: Ledger, at startedAt: Instant) {
            self.ledger = ledger
            do {
                runId = try ledger.startRun(at: startedAt)
            } catch {
                problems.append("this run is not in the ledger's run table: \(plainDescription(error))")
            }
        }

        init(problem: String) { problems = [problem] }
    }

    private init(settings: Settings, ownFiles: [String], clock: @escaping @Sendable () -> Instant, logger: Logger) {
        stateDirectory = settings.state.directory
        jobDirectories = [settings.state.directory, settings.state.reportDirectory]
        let jobFiles = ownFiles + [Ledger.path(in: settings.state.directory)]
        self.jobFiles = jobFiles
        ping = Ping(settings.watch, logger: logger)
        notifier = Notifier(settings.watch, logger: logger)
        weekly = settings.watch.weekly
        failures = settings.watch.failures
        let refusal = settings.watch.metricsFile.flatMap {
            Metrics.refusal(
                of: $0, stateDirectory: settings.state.directory, reportDirectory: settings.state.reportDirectory,
                ownFiles: jobFiles)
        }
        metricsRefusal = refusal.map { CommandFailure(.configuration, $0) }
        configuredMetricsFile = refusal == nil ? settings.watch.metricsFile : nil
        startedAt = clock()
        self.clock = clock
        self.logger = logger
    }

    /// A real run with `settings` begins; `announce` then pings `<url>/start`. Its row in
    /// the run table waits until the run holds the state directory. The metrics file is
    /// checked now, so that it never replaces another user's file or one of `ownFiles` (the
    /// config file, the token file) or the job's state: `metricsRefusal` says why not.
    public static func begin(
        settings: Settings, ownFiles: [String], clock: @escaping @Sendable () -> Instant, logger: Logger
    ) -> RunWatch {
        RunWatch(settings: settings, ownFiles: ownFiles, clock: clock, logger: logger)
    }

    /// Pings `<url>/start` (not Uptime Kuma, which has no start).
    public func announce() async { await ping?.send(.start) }

    /// The metrics file checked again once the run holds its state directory, which a
    /// first run has only just made: a collector's path that leads into it through a link
    /// is refused now (78), before anything is asked of the bank, and is never written.
    public func checkMetricsAgain() -> CommandFailure? {
        guard let path = configuredMetricsFile,
            let refusal = Metrics.refusal(
                of: path, stateDirectory: jobDirectories[0], reportDirectory: jobDirectories[1], ownFiles: jobFiles)
        else { return nil }
        metricsRefusedLater.withLock { $0 = true }
        return CommandFailure(.configuration, refusal)
    }

    /// Begins the run's row in the ledger of `state`, which the run holds locked until the
    /// row is finished (`end`).
    public func record(in state: StateDirectory) {
        // The run before, if it never recorded its end, was killed or crashed: this run
        // holds the state directory, so it is not running. Told once, by the run after it.
        if notifier != nil, let before = try? state.ledger.runs(limit: 1).first, before.exitCode == nil {
            unfinishedBefore.withLock { $0 = before.startedAt }
        }
        recording.withLock { $0 = Recording(beginningIn: state.ledger, at: startedAt) }
    }

    /// The run's row. A run that never held the state directory (refused its lock, unable
    /// to open it, or stopped before it took it) gets its row now through an unlocked open:
    /// it touched no week, and its row is all it writes.
    private func begunRecording() -> Recording {
        recording.withLock { recording in
            if let recording { return recording }
            let begun: Recording
            do throws(CommandFailure) {
                begun = Recording(beginningIn: try StateDirectory.openUnlocked(stateDirectory).ledger, at: startedAt)
            } catch {
                begun = Recording(problem: "this run is not in the ledger's run table: \(error.message)")
            }
            recording = begun
            return begun
        }
    }

    /// Records how the run ended in its row, while the run still holds the state directory;
    /// returns what to say on stderr. `tell` then tells the monitor and the metrics file.
    public func finish(_ result: CommandResult) -> [String] {
        // Decided with the signal's handler: one of the two records the ending.
        let own = phase.withLock { phase in
            guard phase == .running else { return false }
            phase = .finished
            return true
        }
        guard own else { return [] }
        let recording = begunRecording()
        var notes = recording.problems
        guard let ledger = recording.ledger, let runId = recording.runId else { return notes }
        let tally = result.tally
        let weeks =
            tally.weeks.count > 1 ? "\(tally.weeks.first!) – \(tally.weeks.last!)" : tally.weeks.first?.description
        var record = RunRecord(
            id: runId, startedAt: startedAt, endedAt: clock(), exitCode: result.status.rawValue, weeks: weeks,
            accountsDone: tally.done, accountsHeld: tally.held, accountsFailed: tally.failed + tally.unconfirmed,
            summary: RunWatch.summary(of: result))
        record.onlyHeld = RunWatch.onlyHeld(result)
        do {
            try ledger.finishRun(record)
        } catch {
            notes.append("could not record the run in the ledger: \(plainDescription(error))")
        }
        if notifier != nil {
            // Claimed while the run still holds the state directory: no other run tells them.
            let now = clock()
            if let weeks = try? ledger.claimHeldUntold(at: now), !weeks.isEmpty {
                heldToTell.withLock { $0 = HeldToTell(weeks: weeks, claimedAt: now, ledger: ledger) }
            }
        }
        return notes
    }

    /// Whether the run failed only because weeks wait for a person (78): `status` does not
    /// raise it, and the saver is told of each held week once, not of such a run.
    static func onlyHeld(_ result: CommandResult) -> Bool {
        let tally = result.tally
        return result.status == .configuration && tally.failed + tally.unconfirmed == 0 && tally.weekErrors == 0
            && !tally.weeks.isEmpty
    }

    /// Pings success or failure with the run's one-line summary, and writes the metrics;
    /// returns what to say on stderr. Called once the run has let go of the state directory,
    /// so that a slow monitor never keeps the next run waiting.
    public func tell(_ result: CommandResult) async -> [String] {
        guard !wasStopped else { return [] }
        var notes: [String] = []
        await ping?.send(
            result.status == .ok ? .success : .failure, body: RunWatch.summary(of: result),
            milliseconds: clock().millisecondsSince1970 - startedAt.millisecondsSince1970)
        if let notifier { notes += await tellSaver(result, notifier) }
        if let metricsFile {
            do {
                try Metrics(
                    exitCode: result.status.rawValue, tally: result.tally, at: clock(), ledger: begunRecording().ledger
                ).write(to: metricsFile, jobDirectories: jobDirectories, ownFiles: jobFiles)
            } catch {
                notes.append("could not write the metrics file \(metricsFile): \(plainDescription(error))")
            }
        }
        return notes
    }

    /// What `notify.to` hears of `result`: the week's news when it moved money and
    /// `notify.weekly` asks for it; that it failed, unless systemd's `OnFailure=` tells that
    /// (`notify.failures`) or it failed only for the held weeks; and the weeks held and not
    /// yet told, in one notice, once. A place that failed is not tried again, and nothing
    /// more is sent once `tellingLimit` has passed, so that telling keeps a run (and a
    /// signal that would end it) waiting a bounded time. Returns a warning for each place
    /// that could not be told.
    private func tellSaver(_ result: CommandResult, _ notifier: Notifier) async -> [String] {
        var notices: [Notice] = []
        if weekly, let news = result.savingsNews, result.tally.moved.values.contains(where: { $0 > 0 }) {
            notices.append(.weekly(news: news, goals: result.tally.savedInto, weeks: result.tally.weeks))
        }
        // Under systemd, roundup tell says it, once the unit has failed.
        if failures == .eachRun, let before = unfinishedBefore.withLock({ $0 }) {
            notices.append(.unfinished(startedAt: before.iso8601, byTheNextRun: true))
        }
        if result.status != .ok, failures == .eachRun, !RunWatch.onlyHeld(result) {
            notices.append(
                .failure(
                    code: result.status.rawValue, summary: RunWatch.summary(of: result),
                    heldWeeks: result.tally.held > 0 || !result.held.isEmpty))
        }
        let held = heldToTell.withLock { claimed in
            defer { claimed = nil }
            return claimed
        }
        if let held {
            notices.append(
                .held(
                    held.weeks.map { week in
                        (
                            Account.label(name: week.accountName, uid: week.accountUid, currencyCode: week.currency),
                            week.weekEnd, week.reason
                        )
                    }))
        }
        var warnings: [String] = []
        var heldTold = false
        let began = clock().millisecondsSince1970
        // A place that failed once is not tried again by this run.
        var places: Notifier? = notifier
        for notice in notices {
            guard let reachable = places, clock().millisecondsSince1970 - began < RunWatch.tellingLimit else {
                warnings.append("stopped telling notify.to after \(RunWatch.tellingLimit / 1000) seconds")
                break
            }
            let sent = await reachable.send(notice)
            warnings += sent.warnings
            places = reachable.without(sent.failed)
            if notice.kind == .held { heldTold = sent.delivered > 0 }
        }
        // Told to no place: the claim is given back, and a later run tells them.
        if let held {
            try? held.ledger.settleHeldTold(
                held.weeks.map(\.key), claimedAt: held.claimedAt, toldAt: heldTold ? clock() : nil)
        }
        return warnings
    }

    /// How long, in milliseconds, a run goes on starting notices to `notify.to`: each takes
    /// at most two tries of 10 seconds.
    static let tellingLimit: Int64 = 30_000

    /// A real run whose settings could not be had (a config mistake, a bad environment
    /// variable): recorded in `stateDirectory` when it already holds a ledger, and told to
    /// the monitor at `pingURL`; both come from the flags and the environment, as the config
    /// could not be read.
    public static func settingsFailed(
        _ failure: CommandFailure, stateDirectory: String?, watch: WatchSettings, clock: @Sendable () -> Instant,
        logger: Logger
    ) async {
        let summary = Notice.withoutUids(String("exit \(failure.status.rawValue): \(failure.message)".prefix(400)))
        if let stateDirectory, FileManager.default.fileExists(atPath: Ledger.path(in: stateDirectory)),
            let ledger = try? Ledger(path: Ledger.path(in: stateDirectory)),
            let id = try? ledger.startRun(at: clock())
        {
            try? ledger.finishRun(
                RunRecord(
                    id: id, startedAt: clock(), endedAt: clock(), exitCode: failure.status.rawValue, weeks: nil,
                    accountsDone: 0, accountsHeld: 0, accountsFailed: 0, summary: summary))
        }
        await Ping(watch, logger: logger)?.send(.failure, body: summary)
        if watch.failures == .eachRun, let notifier = Notifier(watch, logger: logger) {
            _ = await notifier.send(.failure(code: failure.status.rawValue, summary: summary, heldWeeks: false))
        }
    }

    /// The run was stopped by `signal` and the process ends with `status`: the ledger and
    /// the monitor hear of it first (the ping waits at most its own 10 seconds). Called on
    /// a thread outside Swift's concurrency pool, which it may block. Returns false, and
    /// does nothing, when the run had already recorded its own ending: it is then only
    /// telling the monitor and the metrics, which it finishes, and ends as it would have.
    public func stopped(by signal: String, status: Int32) -> Bool {
        let mine = phase.withLock { phase in
            guard phase == .running else { return false }
            phase = .stopped
            return true
        }
        guard mine else { return false }
        let summary = "exit \(status): stopped by \(signal) before it finished; the next run finishes the rest"
        let recording = begunRecording()
        if let ledger = recording.ledger, let runId = recording.runId {
            try? ledger.finishRun(
                RunRecord(
                    id: runId, startedAt: startedAt, endedAt: clock(), exitCode: status, weeks: nil, accountsDone: 0,
                    accountsHeld: 0, accountsFailed: 0, summary: summary))
        }
        if let metricsFile {
            try? Metrics(exitCode: status, tally: RunTally(), at: clock(), ledger: recording.ledger)
                .write(to: metricsFile, jobDirectories: jobDirectories, ownFiles: jobFiles)
        }
        guard ping != nil || notifier != nil else { return true }
        let done = DispatchSemaphore(value: 0)
        let (ping, notifier, failures) = (ping, notifier, failures)
        let milliseconds = clock().millisecondsSince1970 - startedAt.millisecondsSince1970
        Task.detached {
            async let pinged: Void? = ping?.send(.failure, body: summary, milliseconds: milliseconds)
            if failures == .eachRun, let notifier {
                _ = await notifier.send(
                    .failure(code: status, summary: summary, heldWeeks: false))
            }
            _ = await pinged
            done.signal()
        }
        // The ping's 10 seconds, and a notice's two tries.
        _ = done.wait(timeout: .now() + 23)
        return true
    }

    /// The run in one line, for the ledger and the monitor: counts and totals, and the
    /// reason when it failed; no token, no account uid, no balance.
    public static func summary(of result: CommandResult) -> String {
        let tally = result.tally
        var parts: [String] = []
        if let last = tally.weeks.last {
            parts.append(
                tally.weeks.count > 1 ? "weeks ending \(tally.weeks.first!) to \(last)" : "week ending \(last)")
        }
        let moved = tally.moved.sorted { $0.key < $1.key }.map { code, minor in
            Currency(code: code).map { Money(minorUnits: minor, currency: $0).description } ?? "\(minor) \(code)"
        }
        if !moved.isEmpty { parts.append("moved \(moved.joined(separator: ", "))") }
        // A run that ended before any account's week (a usage or config mistake, a refused
        // lock) has no counts to give: "exit 78: 0 held" would say the opposite of its reason.
        if tally.done + tally.held + tally.unconfirmed + tally.failed > 0
            || (result.status == .ok && !tally.weeks.isEmpty)
        {
            parts.append(
                "\(tally.done) account-week(s) done, \(tally.held) held, \(tally.unconfirmed) unconfirmed, "
                    + "\(tally.failed) failed")
        } else if result.status == .ok {
            // A catch-up that found every finished week settled.
            parts.append("no week to run: the ledger already has every finished week")
        }
        var line = "exit \(result.status.rawValue): " + parts.joined(separator: "; ")
        if let reason = result.reason {
            line += (parts.isEmpty ? "" : "; ") + reason.replacingOccurrences(of: "roundup: ", with: "")
        }
        return Notice.withoutUids(String(line.prefix(400)))
    }

}

/// A dead man's switch. Healthchecks-style: `GET <url>/start`, then `POST <url>` or
/// `POST <url>/fail` with a one-line body. Uptime Kuma's push monitor (a URL whose path ends
/// `/api/push/<token>`): no start, then `GET <url>?status=up&msg=…&ping=<ms>` or
/// `?status=down&msg=…`, `ping` being how long the run took in milliseconds, the unit Kuma
/// charts it in. Its own libcurl client with a 10-second limit, never the bank's, so it
/// never carries the bank's headers. Its failures are logged and change nothing; the URL, a
/// secret, is only ever shown as its scheme and host.
struct Ping: Sendable {
    enum Signal: String, Sendable {
        case start = "/start"
        case success = ""
        case failure = "/fail"
    }

    let url: String
    let caFile: String?
    let proxy: String
    let logger: Logger

    /// The monitor `watch` names, if any.
    init?(_ watch: WatchSettings, logger: Logger) {
        guard let url = watch.pingURL else { return nil }
        self.url = url
        caFile = watch.caFile
        proxy = watch.pingProxy
        self.logger = logger
    }

    /// The URL as logs may show it: `https://hc-ping.com/…`.
    var shown: String {
        let components = URLComponents(string: url)
        return "\(components?.scheme ?? "https")://\(components?.host ?? "")/…"
    }

    /// Whether the URL is an Uptime Kuma push monitor's.
    var isUptimeKuma: Bool { Ping.isUptimeKuma(path: URLComponents(string: url)?.path ?? "") }

    /// Whether `path` is an Uptime Kuma push monitor's: it ends `/api/push/<token>`, with or
    /// without a slash after it.
    static func isUptimeKuma(path: String) -> Bool {
        path.range(of: "/api/push/[^/]+/?$", options: .regularExpression) != nil
    }

    /// The request that tells the monitor of `signal`; nil when it has no such signal
    /// (Uptime Kuma has no start).
    func request(_ signal: Signal, body: String?, milliseconds: Int64?) -> HTTPRequest? {
        guard isUptimeKuma else {
            return HTTPRequest(
                method: body == nil ? .get : .post, url: url + signal.rawValue,
                headers: body == nil ? [] : [("Content-Type", "text/plain; charset=utf-8")],
                body: body.map { Array($0.utf8) }, repeatable: true)
        }
        guard signal != .start, var components = URLComponents(string: url) else { return nil }
        var items = [
            URLQueryItem(name: "status", value: signal == .success ? "up" : "down"),
            URLQueryItem(name: "msg", value: body ?? ""),
        ]
        if signal == .success, let milliseconds {
            items.append(URLQueryItem(name: "ping", value: "\(max(0, milliseconds))"))
        }
        components.queryItems = items
        // `+` is a space to Kuma's query parser: sent as %2B, as it is in the message.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let target = components.string else { return nil }
        return HTTPRequest(method: .get, url: target, headers: [], body: nil, repeatable: true)
    }

    func send(_ signal: Signal, body: String? = nil, milliseconds: Int64? = nil) async {
        guard let request = request(signal, body: body, milliseconds: milliseconds) else { return }
        do {
            let client = try CurlHTTPClient(
                configuration: CurlHTTPConfiguration(
                    connectTimeout: .seconds(10), requestTimeout: .seconds(10), lanes: 1,
                    userAgent: "roundup/\(roundupVersion)", caFile: caFile, proxy: proxy))
            let response = try await client.send(request)
            guard (200..<300).contains(response.status) else {
                logger.warning("the monitor at \(shown) answered \(response.status) to the \(signal) ping")
                return
            }
            logger.info("pinged the monitor at \(shown) (\(signal))")
        } catch {
            logger.warning("could not ping the monitor at \(shown) (\(signal)): \(error.message)")
        }
    }
}
