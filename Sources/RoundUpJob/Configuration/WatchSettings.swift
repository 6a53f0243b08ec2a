/// Who hears of each real run: a dead man's switch and node_exporter's textfile collector.
public struct WatchSettings: Sendable {
    /// A dead man's switch to tell of every real run (`notify.pingURL`, `ROUNDUP_PING_URL`):
    /// a secret, never logged or reported in full.
    public var pingURL: String?
    /// Where a real run writes its metrics for node_exporter's textfile collector.
    public var metricsFile: String?
}

extension WatchSettings {
    static func resolve(_ sources: SettingSources) throws(SettingsError) -> WatchSettings {
        WatchSettings(
            pingURL: try pingURL(environment: sources.variables, file: sources.file.notify?.pingURL),
            metricsFile: sources.first(flag: sources.flags.metricsFile, file: sources.file.metricsFile).map {
                sources.locations.expand($0.value)
            })
    }

    /// The ping URL `ROUNDUP_PING_URL` or the config file's `notify.pingURL` names, checked;
    /// for a run whose config file cannot be read, `file` is nil.
    public static func pingURL(environment: [String: String], file: String? = nil) throws(SettingsError) -> String? {
        try (environment.nonEmpty("ROUNDUP_PING_URL") ?? file).map(BankAddress.checkedPingURL)
    }
}
