public import Foundation
import RoundUp

/// Whether this machine has the time zone data that reports' local times are written
/// with. Foundation's formatters read a zone's rules from its file under
/// `/usr/share/zoneinfo` (Debian's `tzdata`), and stop the process, which no caller can
/// catch, when the file is missing, cut short or overwritten; so the file is looked for and
/// its structure checked first, and only then is a time formatted, with the formatter the
/// reports use.
public enum ZoneData {
    /// Where the system keeps the compiled zone files.
    public static let directory = "/usr/share/zoneinfo"
    /// What a command says, and exits 78 with, when they are missing.
    public static let missing = "the time zone data is missing: install tzdata"
    /// The most of a zone file that is read: the largest tzdata ships is a few KiB.
    static let sizeLimit = 1 << 20

    /// Whether `bytes` hold compiled zone data (RFC 8536) whole: the header's counts, the
    /// data they announce, each transition's type within the types, and for version 2 and
    /// later the second header, its 64-bit data and the footer between newlines.
    static func isCompiledZone(_ bytes: [UInt8]) -> Bool {
        func count(at offset: Int) -> Int? {
            guard offset + 4 <= bytes.count else { return nil }
            return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        /// The end of the block whose header starts at `start`, with times of `timeSize`
        /// bytes; nil when it is not whole.
        func block(at start: Int, timeSize: Int) -> Int? {
            guard start + 44 <= bytes.count, Array(bytes[start..<start + 4]) == Array("TZif".utf8),
                let isUT = count(at: start + 20), let isStd = count(at: start + 24), let leap = count(at: start + 28),
                let times = count(at: start + 32), let types = count(at: start + 36), let chars = count(at: start + 40),
                types >= 1, chars >= 1, isUT == 0 || isUT == types, isStd == 0 || isStd == types
            else { return nil }
            let indices = start + 44 + times * timeSize
            let end = indices + times + types * 6 + chars + leap * (timeSize + 4) + isStd + isUT
            guard end <= bytes.count, bytes[indices..<indices + times].allSatisfy({ Int($0) < types }) else {
                return nil
            }
            return end
        }
        guard let first = block(at: 0, timeSize: 4) else { return false }
        guard bytes[4] >= UInt8(ascii: "2") else { return first == bytes.count }
        guard let second = block(at: first, timeSize: 8), second < bytes.count, bytes[second] == 0x0A,
            bytes.last == 0x0A, bytes[(second + 1)...].dropLast().allSatisfy({ $0 != 0x0A })
        else { return false }
        return true
    }

    /// Whether `directory` holds any zone data at all.
    public static func present(in directory: String = directory) -> Bool {
        !((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).isEmpty
    }

    /// Nil when `zone` (named `name` where it was configured) loads from `directory` and a
    /// time formats in it; else why not, as a person can act on it: no zone data at all,
    /// data this user cannot read, data without this zone (a name older or newer than the
    /// machine's `tzdata`), or a zone file that is damaged.
    public static func problem(with zone: TimeZone, named name: String? = nil, in directory: String = directory)
        -> String?
    {
        var folder = stat()
        if stat(directory, &folder) == 0, folder.st_mode & S_IFMT == S_IFDIR, access(directory, R_OK | X_OK) != 0 {
            return "the time zone data in \(directory) cannot be read by this user: its mode or owner was changed; "
                + "reinstall tzdata (sudo apt install --reinstall tzdata)"
        }
        guard present(in: directory) else { return missing }
        // The name as configured first, then the one Foundation gives the zone, if another.
        let files = [name ?? zone.identifier, zone.identifier].enumerated().filter {
            $0.offset == 0 || $0.element != name
        }
        for file in files.map(\.element) {
            let path = directory + "/" + file
            // A name is a relative path under the directory, never one that leaves it.
            var status = stat()
            var link = stat()
            guard !file.isEmpty, !file.hasPrefix("/"), !file.split(separator: "/").contains(".."),
                lstat(path, &link) == 0
            else {
                return "time zone '\(file)' is not in this machine's time zone data (\(directory)): use a current "
                    + "name such as \(Week.defaultTimeZoneIdentifier), or update tzdata"
            }
            // Something is there: a file this user can read, never a pipe that would wait.
            guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, access(path, R_OK) == 0,
                let file = FileHandle(forReadingAtPath: path)
            else {
                return "the time zone file \(path) cannot be read (a broken link, not a file, or not readable by this "
                    + "user): reinstall tzdata (sudo apt install --reinstall tzdata)"
            }
            let bytes = [UInt8]((try? file.read(upToCount: sizeLimit + 1)) ?? Data())
            try? file.close()
            // A file cut short or overwritten stops the formatter as surely as none.
            guard bytes.count <= sizeLimit, isCompiledZone(bytes) else {
                return "the time zone file \(path) is damaged (it is not whole compiled zone data): "
                    + "reinstall tzdata (sudo apt install --reinstall tzdata)"
            }
        }
        // The formatter the reports use, on the week that holds this moment.
        let week = Week(endingOn: Week.localDate(of: Instant.now, in: zone), in: zone)
        return week.localStartText.isEmpty ? missing : nil
    }
}
