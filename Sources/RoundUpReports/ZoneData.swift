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

    /// Whether the file at `path` begins as compiled zone data (RFC 8536) does.
    static func isCompiledZone(_ path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        let header = (try? file.read(upToCount: 44)) ?? Data()
        return header.count == 44 && header.starts(with: Array("TZif".utf8))
    }

    /// Whether `directory` holds any zone data at all.
    public static func present(in directory: String = directory) -> Bool {
        !((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).isEmpty
    }

    /// Nil when `zone` (named `name` where it was configured) loads from `directory` and a
    /// time formats in it; else why not, as a person can act on it: no zone data at all, or
    /// data without this zone (a name older or newer than the machine's `tzdata`).
    public static func problem(with zone: TimeZone, named name: String? = nil, in directory: String = directory)
        -> String?
    {
        guard present(in: directory) else { return missing }
        // The name as configured first, then the one Foundation gives the zone, if another.
        let files = [name ?? zone.identifier, zone.identifier].enumerated().filter {
            $0.offset == 0 || $0.element != name
        }
        for file in files.map(\.element) {
            // A name is a relative path under the directory, never one that leaves it.
            var status = stat()
            guard !file.isEmpty, !file.hasPrefix("/"), !file.split(separator: "/").contains(".."),
                stat(directory + "/" + file, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
                access(directory + "/" + file, R_OK) == 0
            else {
                return "time zone '\(file)' is not in this machine's time zone data (\(directory)): use a current "
                    + "name such as \(Week.defaultTimeZoneIdentifier), or update tzdata"
            }
            // A file cut short or overwritten stops the formatter as surely as none: the
            // compiled format begins "TZif", and its header alone is 44 bytes.
            guard isCompiledZone(directory + "/" + file) else {
                return "the time zone file \(directory)/\(file) is damaged (it is not compiled zone data): "
                    + "reinstall tzdata (sudo apt install --reinstall tzdata)"
            }
        }
        // The formatter the reports use, on the week that holds this moment.
        let week = Week(endingOn: Week.localDate(of: Instant.now, in: zone), in: zone)
        return week.localStartText.isEmpty ? missing : nil
    }
}
