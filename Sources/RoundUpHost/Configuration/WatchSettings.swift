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
        return WatchSettings(
            pingURL: pingURL,
            pingProxy: pingURL.map { BankAddress.proxy(for: $0, environment: sources.environment) } ?? "",
            caFile: caFile,
            metricsFile: sources.first(flag: sources.flags.metricsFile, file: sources.file.metricsFile).map {
                sources.locations.expand($0.value)
            }, weekly: sources.file.notify?.weekly ?? false, scheduler: try scheduler(sources))
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
        return WatchSettings(
            pingURL: pingURL,
            pingProxy: pingURL.map { BankAddress.proxy(for: $0, environment: environment.nonEmpty) } ?? "",
            caFile: nil, metricsFile: nil)
    }

    /// The ping URL `ROUNDUP_PING_URL` or the config file's `notify.pingURL` names, checked.
    static func pingURL(environment: [String: String], file: String? = nil) throws(SettingsError) -> String? {
        try (environment.nonEmpty("ROUNDUP_PING_URL") ?? file).map(BankAddress.checkedPingURL)
    }
}
