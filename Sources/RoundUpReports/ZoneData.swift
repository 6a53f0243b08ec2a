public import Foundation
import RoundUp

/// Whether this machine has the time zone data that reports' local times are written
/// with. Foundation's formatters read a zone's rules from its file under
/// `/usr/share/zoneinfo` (Debian's `tzdata`), and stop the process, which no caller can
/// catch, when the file is missing; so the file is looked for first, and only then is a
/// time formatted, with the formatter the reports use.
public enum ZoneData {
    /// Where the system keeps the compiled zone files.
    public static let directory = "/usr/share/zoneinfo"
    /// What a command says, and exits 78 with, when they are missing.
    public static let missing = "the time zone data is missing: install tzdata"

    /// Nil when `zone` (named `name` where it was configured) loads from `directory` and a
    /// time formats in it; else why not, as a person can act on it.
    public static func problem(with zone: TimeZone, named name: String? = nil, in directory: String = directory)
        -> String?
    {
        for file in Set([name ?? zone.identifier, zone.identifier]) {
            // A name is a relative path under the directory, never one that leaves it.
            guard !file.isEmpty, !file.hasPrefix("/"), !file.split(separator: "/").contains("..") else {
                return missing
            }
            var status = stat()
            guard stat(directory + "/" + file, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
                access(directory + "/" + file, R_OK) == 0
            else { return missing }
        }
        // The formatter the reports use, on the week that holds this moment.
        let week = Week(endingOn: Week.localDate(of: Instant.now, in: zone), in: zone)
        return week.localStartText.isEmpty ? missing : nil
    }
}
