import Foundation
public import Logging
public import RoundUpNotify
import RoundUpOutput

/// Who hears of each real run: a dead man's switch and node_exporter's textfile collector.
public struct WatchSettings: Sendable {
    /// A dead man's switch to tell of every real run (`notify.pingURL`, `ROUNDUP_PING_URL`):
    /// a secret, never logged or reported in full.
    public var pingURL: String?
    /// The proxy the pings go through ("" for none), by the same rules as the bank's.
    public var pingProxy: String
    /// The certificate authorities an https monitor is checked against: the bank's own.
    public var caFile: String?
    /// Where a real run writes its metrics for node_exporter's textfile collector.
    public var metricsFile: String?
    /// A real run ends with one line of what was saved, even under `--quiet`
    /// (`notify.weekly`), so that cron's MAILTO sends it.
    public var weekly = false
    /// What runs the job on a schedule (`scheduler`, `ROUNDUP_SCHEDULER`).
    public var scheduler = Scheduler.auto
    /// Where the saver is told of the week's news, of failures and of held weeks
    /// (`notify.to` and `notify.toFile`, or `ROUNDUP_NOTIFY_URLS`): secrets, shown only as
    /// `NotifyTarget.shown`.
    public var notifyTo: [NotifyTarget] = []
    /// The `apprise` command, when a URL of `notifyTo` is for it.
    public var apprise: String?
    /// Who tells `notifyTo` that a run failed (`notify.failures`, `ROUNDUP_NOTIFY_FAILURES`).
    public var failures = FailureTelling.eachRun
}

extension Notifier {
    /// The places `watch` names; nil when it names none.
    public init?(_ watch: WatchSettings, logger: Logger) {
        self.init(targets: watch.notifyTo, caFile: watch.caFile, apprise: watch.apprise, logger: logger)
    }
}

/// Who tells `notify.to` that a run failed.
public enum FailureTelling: String, Sendable, CaseIterable {
    /// The run itself, each time it fails (cron, a container's own schedule).
    case eachRun = "each-run"
    /// `roundup tell`, which systemd's `OnFailure=` starts once the service has failed for
    /// good (its restarts spent, or a failure that needs a person): the run itself tells
    /// no failure, so that a saver hears once, not at each restart.
    case onFailureUnit = "on-failure-unit"
}

/// What runs the job on a schedule, as `check` and `status` look for it.
public enum Scheduler: String, Sendable, CaseIterable {
    /// This machine: a crontab line or `roundup.timer`, which `check` and `status` look for,
    /// and warn of when neither schedules the state directory.
    case auto
    /// Something outside that `check` and `status` cannot see (a container's host, a
    /// Kubernetes CronJob): they look for no crontab line or timer.
    case external
}

extension WatchSettings {
    package static func resolve(_ sources: SettingSources, caFile: String?) throws(SettingsError) -> WatchSettings {
        let pingURL = try pingURL(environment: sources.variables, file: sources.file.notify?.pingURL)
        let notifyTo = try notifyTo(sources)
        return WatchSettings(
            pingURL: pingURL,
            pingProxy: pingURL.map { BankAddress.proxy(for: $0, environment: sources.environment) } ?? "",
            caFile: caFile,
            metricsFile: sources.first(flag: sources.flags.metricsFile, file: sources.file.metricsFile).map {
                sources.locations.expand($0.value)
            }, weekly: sources.file.notify?.weekly ?? false, scheduler: try scheduler(sources),
            notifyTo: notifyTo, apprise: needsApprise(notifyTo) ? appriseCommand(sources.variables) : nil,
            failures: try failures(sources))
    }

    /// `ROUNDUP_NOTIFY_FAILURES`, else the config file's `notify.failures`, else `each-run`.
    static func failures(_ sources: SettingSources) throws(SettingsError) -> FailureTelling {
        guard let variable = sources.environment("ROUNDUP_NOTIFY_FAILURES") else {
            return try sources.file.choice(sources.file.notify?.failures, "notify.failures", default: .eachRun)
        }
        guard let value = FailureTelling(rawValue: variable) else {
            throw SettingsError(
                origin: .environment,
                message: "ROUNDUP_NOTIFY_FAILURES must be 'each-run' or 'on-failure-unit', not '\(variable)'")
        }
        return value
    }

    /// The places to tell: `ROUNDUP_NOTIFY_URLS` (separated by spaces or new lines) when it
    /// is set, else `notify.to` and the lines of the file `notify.toFile` names; each
    /// parsed, and refused (78) by what is wrong with it, never by its text.
    /// `leniently`, for a run whose settings cannot be had: a URL that cannot be used is
    /// left out, and the others are told.
    static func notifyTo(_ sources: SettingSources, leniently: Bool = false) throws(SettingsError) -> [NotifyTarget] {
        let urls: [String]
        let origin: SettingsError.Origin
        // A variable of spaces alone names no place: it is taken as unset, as an empty one is.
        if let variable = sources.environment("ROUNDUP_NOTIFY_URLS"), variable.contains(where: { !$0.isWhitespace }) {
            urls = variable.split(whereSeparator: \.isWhitespace).map(String.init)
            origin = .environment
        } else {
            var listed = sources.file.notify?.to ?? []
            if let file = sources.file.notify?.toFile {
                listed += try urlLines(in: sources.locations.expand(file))
            }
            urls = listed
            origin = .file
        }
        // Looked for only when a URL needs it.
        let apprise = { appriseCommand(sources.variables) != nil }
        var targets: [NotifyTarget] = []
        for url in urls {
            do throws(NotifyTarget.Problem) {
                var target = try NotifyTarget.parse(
                    url,
                    readSecret: { (path) throws(NotifyTarget.Problem) in
                        do throws(SettingsError) {
                            return try secret(
                                in: sources.locations.expand(path), what: "a notify.to tokenFile",
                                setting: "tokenFile=")
                        } catch {
                            throw NotifyTarget.Problem(error.message)
                        }
                    }, appriseFound: apprise)
                if let endpoint = target.endpoint {
                    target.proxy = BankAddress.proxy(for: endpoint, environment: sources.environment)
                }
                targets.append(target)
            } catch {
                if leniently { continue }
                let prefix = origin == .environment ? "ROUNDUP_NOTIFY_URLS: " : ""
                throw SettingsError(origin: origin, message: prefix + error.message)
            }
        }
        return targets
    }

    /// The URLs of `notify.toFile`: one a line, blank lines and lines starting `#` skipped.
    static func urlLines(in path: String) throws(SettingsError) -> [String] {
        try secret(in: path, what: "the notify.toFile file", setting: "notify.toFile").split(
            whereSeparator: \.isNewline
        )
        .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// The text of a file of secrets roundup reads beside the config (`notify.toFile`, a
    /// `tokenFile=` parameter): this user's alone, as the token file must be
    /// (`OwnSecretFile`); `setting` is what names it.
    static func secret(in path: String, what: String, setting: String) throws(SettingsError) -> String {
        let read = TrustedFile.read(what, at: path, limit: 64 * 1024) { descriptor, file in
            OwnSecretFile.refusal(
                what, holding: "notify.to's secrets", setting: setting, at: path, descriptor: descriptor, file: file,
                advice: "for the system service, whose user is made anew each run, put the URLs in "
                    + "ROUNDUP_NOTIFY_URLS in \(SystemService.environmentFile)")
        }
        switch read {
        case .success(let bytes):
            guard let text = String(bytes: bytes, encoding: .utf8) else {
                throw SettingsError(origin: .file, message: "\(what) \(path) is not UTF-8 text")
            }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        case .failure(.unopenable):
            throw SettingsError(
                origin: .file, message: "cannot read \(what) \(path): it does not exist or is not accessible")
        case .failure(.notPlain):
            throw SettingsError(origin: .file, message: "\(what) \(path) is not a plain file")
        case .failure(.refused(let why)):
            throw SettingsError(origin: .file, message: why)
        case .failure(.tooLarge(let size)):
            throw SettingsError(origin: .file, message: "\(what) \(path) holds \(size) bytes, more than 64 KiB")
        case .failure(.unreadable(let why)):
            throw SettingsError(origin: .file, message: "cannot read \(what) \(path): \(why)")
        }
    }

    /// Whether a URL of `targets` is for the `apprise` command.
    static func needsApprise(_ targets: [NotifyTarget]) -> Bool {
        targets.contains { if case .apprise = $0.service { true } else { false } }
    }

    /// The `apprise` command: on the `PATH`, else where pip and apt put it (`/usr/local/bin`,
    /// `/usr/bin`, `~/.local/bin`), so that cron's short `PATH` finds the one a shell does.
    static func appriseCommand(_ environment: [String: String]) -> String? {
        let path = (environment.nonEmpty("PATH") ?? "").split(separator: ":").map(String.init)
        let home = environment.nonEmpty("HOME").map { ["\($0)/.local/bin"] } ?? []
        return (path + ["/usr/local/bin", "/usr/bin"] + home).map { "\($0)/apprise" }
            .first(where: FileManager.default.isExecutableFile)
    }

    /// `ROUNDUP_SCHEDULER`, else the config file's `scheduler`, else `auto`.
    static func scheduler(_ sources: SettingSources) throws(SettingsError) -> Scheduler {
        guard let variable = sources.environment("ROUNDUP_SCHEDULER") else {
            return try sources.file.choice(sources.file.scheduler, "scheduler", default: .auto)
        }
        guard let value = Scheduler(rawValue: variable) else {
            throw SettingsError(
                origin: .environment, message: "ROUNDUP_SCHEDULER must be 'auto' or 'external', not '\(variable)'")
        }
        return value
    }

    /// For a run whose settings cannot be had: the monitor `ROUNDUP_PING_URL` names, if it
    /// is a usable URL, with the system's certificate authorities and no metrics file.
    public static func fromEnvironment(_ environment: [String: String]) -> WatchSettings {
        let pingURL = try? pingURL(environment: environment)
        // The places ROUNDUP_NOTIFY_URLS names that can be used.
        let sources = SettingSources(
            flags: SettingFlags(), file: ConfigFile(), variables: environment,
            locations: Locations(environment: environment))
        let notifyTo = (try? notifyTo(sources, leniently: true)) ?? []
        return WatchSettings(
            pingURL: pingURL,
            pingProxy: pingURL.map { BankAddress.proxy(for: $0, environment: environment.nonEmpty) } ?? "",
            caFile: nil, metricsFile: nil, notifyTo: notifyTo,
            apprise: needsApprise(notifyTo) ? appriseCommand(environment) : nil,
            failures: (try? failures(sources)) ?? .eachRun)
    }

    /// The ping URL `ROUNDUP_PING_URL` or the config file's `notify.pingURL` names, checked.
    static func pingURL(environment: [String: String], file: String? = nil) throws(SettingsError) -> String? {
        try (environment.nonEmpty("ROUNDUP_PING_URL") ?? file).map(BankAddress.checkedPingURL)
    }
}
