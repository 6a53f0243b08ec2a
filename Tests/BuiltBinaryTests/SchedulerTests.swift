import ChildProcess
import Foundation
import RoundUp
import RoundUpHost
import StarlingEmulator
import TestSupport
import Testing

/// What `check` and `status` say runs the job, against the built binary: a crontab line
/// for this state directory needs a running cron daemon, a timer needs to be enabled and
/// active, lines and timers for other state directories are not this one's schedule, and
/// the next run is a date. `crontab` and `systemctl` are stand-ins on PATH that answer as the
/// real ones do; the process table is the real one.
@Suite struct SchedulerTests {
    /// A home with stand-ins for `crontab` and `systemctl`, and a ledger for the newest week.
    struct Machine {
        let home: TemporaryDirectory
        let token: String
        var bin: String { home.path + "/bin" }
        var stateDirectory: String { home.path + "/.local/state/roundup" }
        var environment: [String: String] {
            ["HOME": home.path, "PATH": "\(bin):/usr/bin:/bin", "STARLING_ACCESS_TOKEN": token]
        }

        init(token: String) throws {
            home = try TemporaryDirectory()
            self.token = token
            try FileManager.default.createDirectory(atPath: home.path + "/bin", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                atPath: home.path + "/systemctl", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: home.path + "/bin/roundup", withDestinationPath: try #require(roundupBinary))
            // `systemctl ARGS…` prints the file named by its arguments and exits with the
            // code beside it; with no such file it prints nothing, as when systemd is not there.
            try write(
                "#!/bin/sh\nkey=$(printf '%s_' \"$@\")\nf='\(home.path)/systemctl/'\"$key\"\n"
                    + "[ -f \"$f\" ] || { echo 'System has not been booted with systemd' >&2; exit 1; }\n"
                    + "cat \"$f\"; exit $(cat \"$f.rc\" 2>/dev/null || echo 0)\n",
                to: bin + "/systemctl", mode: 0o755)
        }

        func write(_ text: String, to path: String, mode: Int = 0o644) throws {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        }

        /// Runs `body` with the emulator's bank and a ledger in which the newest week is
        /// recorded, so that status judges only what schedules it; `body` gets the environment
        /// that reaches that bank.
        func withLedger(_ body: @escaping @Sendable ([String: String]) async throws -> Void) async throws {
            try await withEmulator(SchedulerTests.bank(token).state) { server in
                let environment = self.environment.merging(["ROUNDUP_API_BASE_URL": server.baseURL]) { $1 }
                let run = try await roundup(
                    ["run", "--end-date", SchedulerTests.newest.description], environment: environment)
                #expect(run.status == 0, "\(run.stderr)")
                try await body(environment)
            }
        }

        /// A `crontab` whose `-l` prints `text`.
        func crontab(_ text: String) throws {
            try write(text, to: home.path + "/crontab.txt")
            try write("#!/bin/sh\ncat '\(home.path)/crontab.txt'\n", to: bin + "/crontab", mode: 0o755)
        }

        /// `systemctl arguments…` prints `answer` and exits `code`.
        func systemctl(_ arguments: [String], _ answer: String, exit code: Int = 0) throws {
            let key = arguments.map { $0 + "_" }.joined()
            try write(answer + "\n", to: home.path + "/systemctl/" + key)
            try write("\(code)\n", to: home.path + "/systemctl/" + key + ".rc")
        }
    }

    static let newest = Week.newest(endingOn: .sunday, before: .now, in: TestBank.london).endDate

    static func bank(_ token: String) -> TestBank {
        var bank = TestBank(token: token)
        let gbp = bank.account("GBP", name: "Personal")
        bank.goal(gbp, name: "Round-ups", uid: "90c00000-0000-4000-8000-0000000000d1")
        bank.spend(gbp, 1_50, settled: londonWeek(newest.description).start.adding(milliseconds: 3_600_000))
        return bank
    }

    /// The first `weekday` (1 Sunday) at `hour`:`minute` after now in the system's zone, or
    /// `date`, as the status line writes it: worked out here by the calendar, not by roundup.
    static func shown(weekday: Int = 0, hour: Int = 0, minute: Int = 0, date: Date? = nil) throws -> String {
        let zone = Scheduling.systemZone()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let next =
            try date
            ?? #require(
                calendar.nextDate(
                    after: Date(), matching: DateComponents(hour: hour, minute: minute, weekday: weekday),
                    matchingPolicy: .nextTime))
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = zone
        format.dateFormat = "EEE d MMM yyyy HH:mm"
        return "\(format.string(from: next)) (\(zone.identifier))"
    }

    /// The cron daemon of a crontab line for this state directory: not running, then a process
    /// named cron in the process table; nothing at all; and `scheduler: external`.
    @Test func aCrontabLineNeedsARunningCronDaemon() async throws {
        let machine = try Machine(token: "scheduler-cron-daemon")
        // A machine that runs a cron daemon cannot show the case of none: that part is skipped.
        let running = (try FileManager.default.contentsOfDirectory(atPath: "/proc")).first {
            let name = try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8)
            return ["cron\n", "crond\n", "fcron\n"].contains(name ?? "")
        }
        if let running { print("skipped: with a cron daemon running here (process \(running)), none cannot be shown") }
        try await machine.withLedger { environment in

            // Nothing schedules it: a warning, not a failure.
            let nothing = try await roundup(["check"], environment: environment)
            #expect(nothing.status == 0, "\(nothing.stdout)")
            #expect(
                nothing.stdout.contains(
                    "WARN  scheduling: nothing schedules this state directory (\(machine.stateDirectory))"),
                "\(nothing.stdout)")
            let unscheduled = try await roundup(["status"], environment: environment)
            #expect(unscheduled.status == 1, "\(unscheduled.stdout)")
            #expect(unscheduled.stdout.contains("next run:        none"), "\(unscheduled.stdout)")
            #expect(unscheduled.stdout.contains("- scheduling: nothing schedules"), "\(unscheduled.stdout)")

            // The lines `check --crontab` prints, installed; systemd says cron is stopped.
            let lines = try await roundup(["check", "--crontab"], environment: environment)
            try machine.crontab(lines.stdout)
            try machine.systemctl(["is-active", "cron.service", "crond.service"], "inactive\ninactive", exit: 3)
            let stopped = try await roundup(["check"], environment: environment)
            #expect(stopped.status == 0, "\(stopped.stdout)")
            let idle = try await roundup(["status"], environment: environment)
            if running == nil {
                #expect(idle.status == 1 && idle.stdout.contains("no cron daemon is running"), "\(idle.stdout)")
                #expect(
                    stopped.stdout.contains(
                        "WARN  scheduling: your crontab's line (0 6 * * 1) runs roundup for this state directory, but no "
                            + "cron daemon is running (systemctl says cron.service is inactive and crond.service is "
                            + "inactive, and no cron process is in the process table), so nothing fires: install and "
                            + "start cron"), "\(stopped.stdout)")
            }

            // A cron daemon in the process table, as in a container without systemd.
            let daemon = machine.home.path + "/daemon/cron"
            try FileManager.default.createDirectory(
                atPath: machine.home.path + "/daemon", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: daemon)
            let null = open("/dev/null", O_WRONLY)
            let cron = try Child.spawn(daemon, ["300"], environment: [:], stdout: null, stderr: null)
            close(null)
            defer {
                kill(cron.pid, SIGKILL)
                _ = cron.wait()
            }
            let fires = try await roundup(["check"], environment: environment)
            #expect(
                fires.stdout.contains(
                    "ok    scheduling: your crontab's line (0 6 * * 1) runs roundup for this state directory; a cron "
                        + "daemon is running (process \(running ?? String(cron.pid))"), "\(fires.stdout)")
            let monday = try Self.shown(weekday: 2, hour: 6)
            #expect(
                fires.stdout.contains("ok    next run: \(monday), by your crontab's line (0 6 * * 1)"),
                "\(fires.stdout)")
            let healthy = try await roundup(["status"], environment: environment)
            #expect(healthy.status == 0, "\(healthy.stdout)")
            #expect(healthy.stdout.hasPrefix("roundup OK"), "\(healthy.stdout)")
            #expect(
                healthy.stdout.contains("next run:        \(monday), by your crontab's line (0 6 * * 1)"),
                "\(healthy.stdout)")

            // Scheduled from outside: neither looks, and neither warns.
            try machine.crontab("")
            let outside = environment.merging(["ROUNDUP_SCHEDULER": "external"]) { $1 }
            let external = try await roundup(["check"], environment: outside)
            #expect(!external.stdout.contains("WARN  scheduling"), "\(external.stdout)")
            #expect(external.stdout.contains("ok    scheduling: from outside this machine"), "\(external.stdout)")
            let externalStatus = try await roundup(["status", "--json"], environment: outside)
            #expect(externalStatus.status == 0, "\(externalStatus.stdout)")
            #expect(
                externalStatus.stdout.contains("\"nextRun\" : \"set outside this machine"), "\(externalStatus.stdout)")
            let misspelt = try await roundup(
                ["status"], environment: environment.merging(["ROUNDUP_SCHEDULER": "k8s"]) { $1 })
            #expect(misspelt.status == 3, "\(misspelt.stdout)")
            #expect(misspelt.stderr.contains("ROUNDUP_SCHEDULER must be 'auto' or 'external', not 'k8s'"))
        }
    }

    /// A crontab line for another state directory is not this one's schedule; the line that
    /// names this one gives the next run, in the system's time zone.
    @Test func statusTakesTheNextRunOnlyFromALineForThisStateDirectory() async throws {
        let machine = try Machine(token: "scheduler-other-lines")
        try machine.systemctl(["is-active", "cron.service", "crond.service"], "active\ninactive", exit: 3)
        try await machine.withLedger { environment in
            let path = "PATH=\(machine.bin):/usr/bin:/bin\n"
            try machine.crontab(
                path + "0 6 * * 1 roundup run --quiet --state-dir \(machine.home.path)/other\n"
                    + "0 7 * * 1 ROUNDUP_STATE_DIR=/srv/elsewhere roundup run --quiet\n")
            let other = try await roundup(["status"], environment: environment)
            #expect(other.status == 1, "\(other.stdout)")
            #expect(other.stdout.contains("next run:        none"), "\(other.stdout)")
            #expect(other.stdout.contains("- scheduling: nothing schedules this state directory"), "\(other.stdout)")

            try machine.crontab(
                path + "0 6 * * 1 roundup run --quiet --state-dir \(machine.home.path)/other\n"
                    + "30 7 * * tue $HOME/bin/roundup run --quiet --state-dir '\(machine.stateDirectory)/'\n"
                    + "@reboot roundup run --catch-up\n")
            let ours = try await roundup(["status"], environment: environment)
            #expect(ours.status == 0, "\(ours.stdout)")
            let tuesday = try Self.shown(weekday: 3, hour: 7, minute: 30)
            // The `@reboot` line keeps the default state directory too: this one. It has no
            // date, and the Tuesday line's is the one given.
            #expect(
                ours.stdout.contains(
                    "next run:        \(tuesday), by your crontab's line "
                        + "(30 7 * * tue)"), "\(ours.stdout)")
            let check = try await roundup(["check"], environment: environment)
            #expect(
                check.stdout.contains("ok    scheduling: your crontab's line (@reboot) runs roundup"), "\(check.stdout)"
            )

            // Only a line that runs at boot: nothing runs the job weekly.
            try machine.crontab(path + "@reboot roundup run --catch-up\n")
            let reboot = try await roundup(["status"], environment: environment)
            #expect(reboot.status == 1, "\(reboot.stdout)")
            #expect(
                reboot.stdout.contains(
                    "next run:        when the machine next starts, by your crontab's line (@reboot)"),
                "\(reboot.stdout)")
            #expect(reboot.stdout.contains("- scheduling: nothing runs roundup weekly"), "\(reboot.stdout)")
            // Time fields roundup cannot read (another cron's own): shown as written.
            try machine.crontab(path + "0 6 L * * roundup run --catch-up\n")
            let unread = try await roundup(["status"], environment: environment)
            #expect(
                unread.stdout.contains(
                    "next run:        0 6 L * *, by your crontab's line (0 6 L * *): cannot compute when that is"),
                "\(unread.stdout)")
        }
    }

    /// A `roundup.timer` for this state directory needs to be enabled and active; the
    /// system's, which keeps /var/lib/roundup, is not a user's schedule.
    @Test func aTimerMustBeEnabledAndActive() async throws {
        let machine = try Machine(token: "scheduler-timer")
        try await machine.withLedger { environment in
            // The system's timer, enabled and active: it keeps the service's ledger, not this one.
            try machine.systemctl(["is-enabled", "roundup.timer"], "enabled")
            try machine.systemctl(["is-active", "roundup.timer"], "active")
            let system = try await roundup(["status"], environment: environment)
            #expect(system.stdout.contains("- scheduling: nothing schedules this state directory"), "\(system.stdout)")

            // This user's timer, whose service names this state directory: disabled.
            try machine.systemctl(["--user", "is-enabled", "roundup.timer"], "disabled", exit: 1)
            try machine.systemctl(["--user", "is-active", "roundup.timer"], "inactive", exit: 3)
            try machine.systemctl(
                ["--user", "show", "roundup.service", "--property=ExecStart", "--value"],
                "{ path=\(machine.bin)/roundup ; argv[]=\(machine.bin)/roundup run --catch-up --state-dir \(machine.stateDirectory)"
                    + " ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }")
            try machine.systemctl(["--user", "show", "roundup.service", "--property=Environment", "--value"], "")
            let disabled = try await roundup(["status"], environment: environment)
            #expect(disabled.status == 1, "\(disabled.stdout)")
            #expect(
                disabled.stdout.contains(
                    "- scheduling: your user's roundup.timer runs roundup for this state directory, but it is disabled "
                        + "and inactive, so nothing fires: systemctl --user enable --now roundup.timer"),
                "\(disabled.stdout)")

            // Enabled and active: its next elapse, in the system's time zone.
            try machine.systemctl(["--user", "is-enabled", "roundup.timer"], "enabled")
            try machine.systemctl(["--user", "is-active", "roundup.timer"], "active")
            let elapse = Instant.now.adding(milliseconds: 3 * 86_400_000)
            try machine.systemctl(
                [
                    "--user", "show", "roundup.timer", "--property=NextElapseUSecRealtime", "--value",
                    "--timestamp=unix",
                ], "@\(elapse.millisecondsSince1970 / 1000)")
            let enabled = try await roundup(["status"], environment: environment)
            #expect(enabled.status == 0, "\(enabled.stdout)")
            let when = try Self.shown(date: Date(timeIntervalSince1970: Double(elapse.millisecondsSince1970 / 1000)))
            #expect(
                enabled.stdout.contains("next run:        \(when), by your user's roundup.timer"),
                "\(enabled.stdout)")
        }
    }

    /// Lines that would not run the job for this state directory are not its schedule,
    /// however they name it: a dry run, help, a typo, a command that is not roundup's, a
    /// program cron cannot find, a config that cannot be read, time fields that never match,
    /// and paths read as cron reads them (from HOME, after a `cd`, `$HOME` kept in single
    /// quotes). A crontab that never answers, or a timer's date at the end of time, neither
    /// hangs nor breaks status.
    @Test func onlyALineThatWouldRunTheJobCounts() async throws {
        let machine = try Machine(token: "scheduler-lines-that-do-not-run")
        try machine.systemctl(["is-active", "cron.service", "crond.service"], "active\ninactive", exit: 3)
        try await machine.withLedger { environment in
            let (path, state) = ("PATH=\(machine.bin):/usr/bin:/bin\n", machine.stateDirectory)
            let status = { (line: String) async throws -> Execution in
                try machine.crontab(path + line + "\n")
                return try await roundup(["status"], environment: environment)
            }
            for line in [
                "0 6 * * 1 roundup run --dry-run --state-dir \(state)",
                "0 6 * * 1 roundup run --help --state-dir \(state)",
                "0 6 * * 1 roundup run --bogus --state-dir \(state)",
                "0 6 * * 1 echo roundup run --state-dir \(state)",
                "0 6 * * 1 true # roundup run --state-dir \(state)",
                "0 6 * * 1 root \(machine.bin)/roundup run --state-dir \(state)",
                "0 6 * * 1 /nonexistent/roundup run --state-dir \(state)",
                "0 6 * * 1 roundup run --config /nonexistent.yaml --state-dir \(state)",
                "0 6 * * 1 roundup run --state-dir '$HOME/.local/state/roundup'",
                "0 0 30 2 * roundup run --state-dir \(state)",
                "0 6 * * 1 true || roundup run --state-dir \(state)",
                "0 6 * * 1 false && roundup run --state-dir \(state)",
                "0 6 * * 1 exit 0; roundup run --state-dir \(state)",
                "0 6 * * 1 cd /nonexistent && roundup run --state-dir \(state)",
                "SHELL=/bin/false\n0 6 * * 1 roundup run --state-dir \(state)",
            ] {
                let result = try await status(line)
                #expect(result.status == 1, "\(line)\n\(result.stdout)")
                #expect(result.stdout.contains("- scheduling: "), "\(line)\n\(result.stdout)")
                #expect(!result.stdout.contains("next run:        Mon"), "\(line)\n\(result.stdout)")
            }
            try machine.crontab(path + "0 6 * * 1 roundup run --dry-run --state-dir \(state)\n")
            let dry = try await roundup(["check"], environment: environment)
            #expect(
                dry.stdout.contains(
                    "WARN  scheduling: your crontab's line (0 6 * * 1) runs roundup for this state "
                        + "directory, but it does not run the job"), "\(dry.stdout)")
            let never = try await status("0 0 30 2 * roundup run --state-dir \(state)")
            #expect(never.stdout.contains("but its time fields match no date"), "\(never.stdout)")
            try machine.crontab("0 6 * * 1 roundup run --state-dir \(state)\n")
            let unfound = try await roundup(["status"], environment: environment)
            #expect(
                unfound.stdout.contains("cron would not find roundup on its PATH (/usr/bin:/bin)"), "\(unfound.stdout)")

            // A link to the state directory, or a spelling with `..`, is the same place.
            try FileManager.default.createSymbolicLink(
                atPath: machine.home.path + "/link-to-state", withDestinationPath: state)
            // Read as cron reads them: from HOME, after a `cd`, with the crontab's own variables.
            for line in [
                "0 6 * * 1 roundup run --state-dir .local/state/roundup",
                "0 6 * * 1 cd \(machine.home.path)/.local && roundup run --state-dir state/roundup",
                "0 6 * * 1 umask 077 && roundup\trun --quiet",
                "0 6 * * 1 \"\(machine.bin)/roundup\" run",
                "0 6 * * 1 roundup run --state-dir /elsewhere; roundup run --state-dir \(state)",
                "0 6 * * 1 export ROUNDUP_STATE_DIR=\(state); roundup run",
                "0 6 * * 1 roundup run --state-dir \(state) >> $HOME/roundup.log 2>&1",
                "0 6 * * 1 roundup run --state-dir \(state) 2>&1 | logger -t roundup",
                "0 6 * * 1 roundup run </dev/null --state-dir \(state) >/dev/null",
                "0 6 * * 1 false || roundup run --state-dir \(state)",
                "0 6 * * 1 roundup run --state-dir \(state) > --dry-run",
                "0 6 * * 1 roundup run --state-dir \(machine.home.path)/link-to-state",
                "0 6 * * 1 roundup run --state-dir \(machine.home.path)/.local/../.local/state/roundup/",
            ] {
                let result = try await status(line)
                #expect(result.status == 0, "\(line)\n\(result.stdout)")
            }
            try machine.crontab(path + "ROUNDUP_STATE_DIR = \(state)\n0 6 * * 1 roundup run\n")
            #expect(try await roundup(["status"], environment: environment).status == 0)
            // A HOME the crontab sets is the one cron's `$HOME` and `~` are.
            try machine.crontab(path + "HOME=/nonexistent\n0 6 * * 1 roundup run --state-dir ~/.local/state/roundup\n")
            #expect(try await roundup(["status"], environment: environment).status == 1)

            // A crontab that never answers: status gives up on it in seconds.
            try machine.write("#!/bin/sh\nexec sleep 600\n", to: machine.bin + "/crontab", mode: 0o755)
            let started = Date()
            let hung = try await roundup(["status"], environment: environment)
            #expect(Date().timeIntervalSince(started) < 60, "status does not wait for a crontab that hangs")
            #expect(hung.status == 1, "\(hung.stdout)")

            // A timer whose next elapse is past the year 9999 is shown as systemd wrote it.
            try machine.crontab("")
            try machine.systemctl(["--user", "is-enabled", "roundup.timer"], "enabled")
            try machine.systemctl(["--user", "is-active", "roundup.timer"], "active")
            try machine.systemctl(
                ["--user", "show", "roundup.service", "--property=ExecStart", "--value"],
                "{ path=\(machine.bin)/roundup ; argv[]=\(machine.bin)/roundup run --catch-up ; ignore_errors=no }")
            try machine.systemctl(
                [
                    "--user", "show", "roundup.timer", "--property=NextElapseUSecRealtime", "--value",
                    "--timestamp=unix",
                ], "@9223372036854775807")
            try machine.systemctl(
                ["--user", "show", "roundup.service", "--property=ExecStart", "--value"],
                "{ path=\(machine.bin)/roundup ; argv[]=\(machine.bin)/roundup run --dry-run ; ignore_errors=no }")
            let dryTimer = try await roundup(["status"], environment: environment)
            #expect(dryTimer.status == 1, "\(dryTimer.stdout)")
            #expect(dryTimer.stdout.contains("its roundup.service: it does not run the job"), "\(dryTimer.stdout)")
            try machine.systemctl(
                ["--user", "show", "roundup.service", "--property=ExecStart", "--value"],
                "{ path=\(machine.bin)/roundup ; argv[]=\(machine.bin)/roundup run --catch-up ; ignore_errors=no }")
            let far = try await roundup(["status"], environment: environment)
            #expect(far.status == 0, "\(far.stdout)\(far.stderr)")
            #expect(
                far.stdout.contains("next run:        @9223372036854775807, by your user's roundup.timer"),
                "\(far.stdout)")
        }
    }
}
