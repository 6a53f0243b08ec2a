/// Where roundup keeps its files unless told otherwise, from the environment's `HOME`,
/// `XDG_STATE_HOME` and `XDG_CONFIG_HOME`. These rules are written here and nowhere else.
public struct Locations: Sendable, Equatable {
    /// The user's home directory (`HOME`, else `/root`).
    public var home: String
    /// `XDG_STATE_HOME`, else `~/.local/state`.
    public var stateHome: String
    /// `XDG_CONFIG_HOME`, else `~/.config`.
    public var configHome: String

    /// The locations `environment` gives; an empty variable counts as unset.
    public init(environment: [String: String]) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        home = value("HOME") ?? "/root"
        stateHome = value("XDG_STATE_HOME") ?? "\(home)/.local/state"
        configHome = value("XDG_CONFIG_HOME") ?? "\(home)/.config"
    }

    /// The state directory of real runs: the ledger, the lock and the reports.
    public var stateDirectory: String { "\(stateHome)/roundup" }

    /// The demo's own state directory, apart from real runs.
    public var demoStateDirectory: String { "\(stateDirectory)/demo" }

    /// The config file read when none is named.
    public var configFile: String { "\(configHome)/roundup/config.yaml" }

    /// The reports' directory in `stateDirectory`, unless one is configured.
    public static func reportDirectory(in stateDirectory: String) -> String { "\(stateDirectory)/reports" }

    /// `path` with a leading `~` standing for the home directory.
    public func expand(_ path: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst(1) }
        return path
    }
}
