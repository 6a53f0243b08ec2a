import Foundation

/// This user's schedule for roundup, as the systemd timer and the crontab say. Commands are
/// found on `searchPath`, the environment's `PATH`.
public enum Schedule {
    /// When the next scheduled run is: the systemd timer's next elapse (system, then user),
    /// else the crontab line's schedule; nil when neither is found.
    public static func nextRun(searchPath: String?) -> String? {
        for scope in [[], ["--user"]] {
            let next = output(
                of: "systemctl", scope + ["show", "roundup.timer", "--property=NextElapseUSecRealtime", "--value"],
                searchPath: searchPath)?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if let next, !next.isEmpty, next != "n/a", !next.hasPrefix("0") { return "\(next) (roundup.timer)" }
        }
        guard let line = crontabLine(searchPath: searchPath) else { return nil }
        let schedule = line.split(separator: " ").prefix(5).joined(separator: " ")
        // cron runs in the system's zone: Debian's and Ubuntu's ignore CRON_TZ, so no other
        // zone is claimed.
        return "crontab: \(schedule), in the system's time zone"
    }

    /// The line of this user's crontab (`crontab -l`) that runs roundup.
    static func crontabLine(searchPath: String?) -> String? {
        guard let crontab = output(of: "crontab", ["-l"], searchPath: searchPath) else { return nil }
        let lines = crontab.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        return lines.first { !$0.hasPrefix("#") && $0.contains("roundup run") }
    }

    /// What `command` (found on PATH) prints, when it exits 0.
    static func output(of command: String, _ arguments: [String], searchPath: String?) -> String? {
        let paths = (searchPath ?? "/usr/bin:/bin").split(separator: ":")
        guard let executable = paths.map({ "\($0)/\(command)" }).first(where: FileManager.default.isExecutableFile)
        else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }
}
