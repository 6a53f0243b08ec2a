/// Where the ledger and the reports are, and how long a run waits for another to finish.
public struct StateSettings: Sendable {
    /// The state directory: the ledger, the lock and, unless told otherwise, the reports.
    public var directory: String
    public var reportDirectory: String
    /// How long a second run waits for a running one before giving up.
    public var lockWait: Duration
}

extension StateSettings {
    package static func resolve(_ sources: SettingSources) throws(SettingsError) -> StateSettings {
        let file = sources.file
        guard
            let directory = directory(
                flags: sources.flags, environment: sources.variables, file: file.stateDir,
                locations: sources.locations)
        else {
            throw SettingsError(
                origin: .environment,
                message: "HOME is not set, so there is no default state directory: give one with --state-dir, "
                    + "ROUNDUP_STATE_DIR or stateDir in the config file")
        }
        let reports =
            sources.first(flag: sources.flags.reportDirectory, environment: "ROUNDUP_REPORT_DIR", file: file.reportDir)?
            .value ?? Locations.reportDirectory(in: directory)
        return StateSettings(
            directory: directory, reportDirectory: sources.locations.expand(reports),
            lockWait: .seconds(try file.bounded(file.lockWaitSeconds, "lockWaitSeconds", 0...3600) ?? 10))
    }

    /// The state directory the flags, the environment and the config file's `stateDir` name,
    /// else the default one; nil when there is none (no HOME). For a run whose config file
    /// cannot be read, `file` is nil.
    public static func directory(
        flags: SettingFlags, environment: [String: String], file: String? = nil, locations: Locations
    ) -> String? {
        (flags.stateDirectory ?? environment.nonEmpty("ROUNDUP_STATE_DIR") ?? file ?? locations.stateDirectory)
            .map(locations.expand)
    }
}
