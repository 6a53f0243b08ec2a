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

    /// What is wrong, in words a person can act on; `isTheMachines` when no setting can
    /// mend it (the data is missing, unreadable or damaged), false when the configured name
    /// is not in the data (a name older or newer than the machine's `tzdata`).
    public struct Problem: Sendable, Equatable {
        public let message: String
        public let isTheMachines: Bool
    }

    private static let reinstall = "reinstall tzdata (sudo apt install --reinstall tzdata)"

    /// Why `directory` as a whole is no zone data this user can read; nil when it is.
    public static func dataProblem(in directory: String = directory) -> Problem? {
        guard let folder = opendir(directory) else {
            var status = stat()
            let there = stat(directory, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
            return Problem(
                message: there
                    ? "the time zone data in \(directory) cannot be read by this user: its mode or owner was "
                        + "changed; \(reinstall)" : missing,
                isTheMachines: true)
        }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { return nil }
        }
        return Problem(message: missing, isTheMachines: true)
    }

    /// Nil when `zone` (named `name` where it was configured) loads from `directory`;
    /// else why not. Each file is opened without waiting (a pipe planted there is said, not
    /// waited on) and read whole, then a time is formatted in the zone with the reports'
    /// formatter: should it stop the process for a reason not foreseen here, it does so
    /// before any request, not after the money moved.
    public static func problem(with zone: TimeZone, named name: String? = nil, in directory: String = directory)
        -> Problem?
    {
        if let problem = dataProblem(in: directory) { return problem }
        // The name as configured first, then the one Foundation gives the zone, if another.
        var files = [name ?? zone.identifier]
        if zone.identifier != files[0] { files.append(zone.identifier) }
        for file in files {
            let path = directory + "/" + file
            // A name is a relative path under the directory, never one that leaves it.
            var link = stat()
            guard !file.isEmpty, !file.hasPrefix("/"), !file.split(separator: "/").contains(".."),
                lstat(path, &link) == 0
            else {
                return Problem(
                    message: "time zone '\(file)' is not in this machine's time zone data (\(directory)): use a "
                        + "current name such as \(Week.defaultTimeZoneIdentifier), or update tzdata",
                    isTheMachines: false)
            }
            let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            var status = stat()
            guard descriptor >= 0, fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
                if descriptor >= 0 { close(descriptor) }
                return Problem(
                    message: "the time zone file \(path) cannot be read (a broken link, not a file, or not readable "
                        + "by this user): \(reinstall)",
                    isTheMachines: true)
            }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            let bytes = [UInt8]((try? handle.read(upToCount: sizeLimit + 1)) ?? Data())
            // A file cut short or overwritten stops the formatter as surely as none.
            guard bytes.count <= sizeLimit, isCompiledZone(bytes) else {
                return Problem(
                    message: "the time zone file \(path) is damaged (it is not whole compiled zone data): \(reinstall)",
                    isTheMachines: true)
            }
        }
        _ = Week(endingOn: Week.localDate(of: Instant.now, in: zone), in: zone).localStartText
        return nil
    }
}
