/// Where roundup keeps its files unless told otherwise, from the environment's `HOME`,
/// `XDG_STATE_HOME` and `XDG_CONFIG_HOME`. These rules are written here and nowhere else.
/// With neither `HOME` nor the XDG variable set there is no default: roundup does not guess.
public struct Locations: Sendable, Equatable {
    /// The user's home directory (`HOME`), if set.
    public var home: String?
    /// `XDG_STATE_HOME`, else `~/.local/state`.
    public var stateHome: String?
    /// `XDG_CONFIG_HOME`, else `~/.config`.
    public var configHome: String?

    /// The locations `environment` gives; an empty variable counts as unset, and so does
    /// an XDG variable that is not an absolute path, as the XDG Base Directory
    /// specification says.
    public init(environment: [String: String]) {
        home = environment.nonEmpty("HOME")
        let absolute = { (name: String) in environment.nonEmpty(name).flatMap { $0.hasPrefix("/") ? $0 : nil } }
        stateHome = absolute("XDG_STATE_HOME") ?? home.map { "\($0)/.local/state" }
        configHome = absolute("XDG_CONFIG_HOME") ?? home.map { "\($0)/.config" }
    }

    /// The state directory of real runs: the ledger, the lock and the reports.
    public var stateDirectory: String? { stateHome.map { "\($0)/roundup" } }

    /// The demo's own state directory, apart from real runs.
    public var demoStateDirectory: String? { stateDirectory.map { "\($0)/demo" } }

    /// The config file read when none is named.
    public var configFile: String? { configHome.map { "\($0)/roundup/config.yaml" } }

    /// The reports' directory in `stateDirectory`, unless one is configured.
    public static func reportDirectory(in stateDirectory: String) -> String { "\(stateDirectory)/reports" }

    /// `path` with a leading `~` standing for the home directory.
    public func expand(_ path: String) -> String {
        guard let home else { return path }
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst(1) }
        return path
    }
}
