public import Foundation
public import RoundUp

/// What runs roundup weekly for one state directory on this machine, as `check` and
/// `status` say it: the crontab lines and the `roundup.timer` that target that directory
/// (no other), whether each will really fire, and when the next run is.
public struct Scheduling: Sendable {
    /// What was found that will fire, each in a line for `check`.
    public var found: [String] = []
    /// Why nothing, or not everything found, will fire: a warning in `check`, a WARNING in
    /// `status`.
    public var problems: [String] = []
    /// The next run, in the system's time zone, named; nil when nothing will fire.
    public var nextRun: String?
}

extension Scheduling {
    /// Where `check` and `status` look: commands on `searchPath`, `home` for the crontab's
    /// `$HOME`, the process table under `processes`, and times told in `zone`, the system's.
    public struct Lookup: Sendable {
        public var searchPath: String?
        public var home: String?
        public var processes: String
        public var zone: TimeZone
        /// The setting flags among a command line's words, read by the command line's parser.
        public var settingFlags: @Sendable ([String]) -> SettingFlags
        /// Whether `roundup run` with these words runs the job: flags it takes, no dry run,
        /// no help.
        public var runsTheJob: @Sendable ([String]) -> Bool

        public init(
            searchPath: String?, home: String?, processes: String = "/proc", zone: TimeZone = Scheduling.systemZone(),
            settingFlags: @escaping @Sendable ([String]) -> SettingFlags,
            runsTheJob: @escaping @Sendable ([String]) -> Bool = { _ in true }
        ) {
            self.searchPath = searchPath
            self.home = home
            self.processes = processes
            self.zone = zone
            self.settingFlags = settingFlags
            self.runsTheJob = runsTheJob
        }
    }

    /// A schedule that targets the state directory: where it is, whether it will fire and
    /// why not, and its next run when it will.
    package struct Candidate {
        package var name: String
        var fires: Bool
        /// Why it will or will not fire, and what makes it fire when it will not.
        var state: String
        var fix: String = ""
        var next: Next
        /// It runs only when the machine starts (`@reboot`): a catch-up, not a weekly run.
        var atBoot = false
    }

    /// When a candidate runs next: at an instant, as its scheduler wrote it, or not known.
    enum Next {
        case at(Instant)
        case written(String)
        case cannotCompute(String)
    }

    /// Looks for what runs roundup for `stateDirectory` as of `now`. With `scheduler:
    /// external`, nothing is looked for. `crontab` is this user's, as read once.
    public static func look(
        for stateDirectory: String, scheduler: Scheduler, crontab: String?, crontabTimedOut: Bool = false,
        now: Instant, lookup: Lookup
    ) -> Scheduling {
        guard scheduler == .auto else {
            return Scheduling(
                found: ["scheduling: from outside this machine (scheduler: external); no crontab or timer looked for"],
                nextRun: "set outside this machine (scheduler: external)")
        }
        let target = samePlace(stateDirectory)
        var candidates = cronCandidates(for: target, crontab: crontab, now: now, lookup: lookup)
        candidates += timers(for: target, lookup: lookup)
        var scheduling = report(candidates, stateDirectory: stateDirectory, zone: lookup.zone)
        if crontabTimedOut { scheduling.problems.insert("scheduling: \(Crontab.crontabTimedOut)", at: 0) }
        return scheduling
    }

    /// What runs the job for `settings`' state directory, with this user's crontab.
    public static func look(for settings: Settings, now: Instant, lookup: Lookup) -> Scheduling {
        let crontab = Crontab.crontab(scheduler: settings.watch.scheduler, searchPath: lookup.searchPath)
        return look(
            for: settings.state.directory, scheduler: settings.watch.scheduler, crontab: crontab.text,
            crontabTimedOut: crontab.timedOut, now: now, lookup: lookup)
    }

    /// The crontab's commands that run roundup for `target`, each judged: whether it runs the
    /// job at all, whether its settings can be had and cron finds the program, whether its
    /// time fields ever match, and whether a cron daemon runs. The same command is judged
    /// once, and at most 50 are.
    static func cronCandidates(for target: String, crontab: String?, now: Instant, lookup: Lookup) -> [Candidate] {
        var judged: [String: (directory: String?, problem: String?)] = [:]
        var lines: [(run: Crontab.CronRun, problem: String?)] = []
        for run in Crontab.cronRuns(in: crontab, home: lookup.home) where judged.count <= 50 {
            let key =
                ([run.executable, run.directory ?? ""] + run.arguments
                + run.variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
                .joined(separator: "\u{0}")
            let verdict = judged[key] ?? judge(run, lookup: lookup)
            judged[key] = verdict
            if verdict.directory.map(samePlace) == target { lines.append((run, verdict.problem)) }
        }
        guard !lines.isEmpty else { return [] }
        let daemon = cronDaemon(lookup)
        return lines.map { line in
            let name = "your crontab's line (\(line.run.schedule))"
            let parsed = CronSchedule(line.run.schedule)
            let next = parsed.flatMap { $0.next(after: now, in: lookup.zone) }
            if let problem = line.problem {
                return Candidate(
                    name: name, fires: false, state: problem, fix: "`roundup check --crontab` prints one that does",
                    next: .cannotCompute(line.run.schedule))
            }
            if parsed != nil, next == nil {
                return Candidate(
                    name: name, fires: false, state: "its time fields match no date", fix: "correct them (crontab -e)",
                    next: .cannotCompute(line.run.schedule))
            }
            if line.run.schedule.lowercased() == "@reboot" {
                return Candidate(
                    name: name, fires: daemon.running, state: daemon.words + ", when the machine starts",
                    fix: daemon.running ? "" : daemon.fix, next: .written("when the machine next starts"),
                    atBoot: true)
            }
            return Candidate(
                name: name, fires: daemon.running, state: daemon.words, fix: daemon.running ? "" : daemon.fix,
                next: next.map(Next.at) ?? .cannotCompute(line.run.schedule))
        }
    }

    /// The shells a crontab's `SHELL=` may name for its lines to run as written.
    static let shells: Set<String> = ["sh", "bash", "dash", "ash", "ksh", "mksh", "zsh", "busybox"]

    /// The state directory `run` keeps, and why it would not run the job, if it would not.
    static func judge(_ run: Crontab.CronRun, lookup: Lookup) -> (directory: String?, problem: String?) {
        let (loaded, directory) = Crontab.settings(of: run, home: lookup.home, settingFlags: lookup.settingFlags)
        if !lookup.runsTheJob(run.arguments) {
            return (directory, "it does not run the job (a dry run, help, or flags roundup run refuses)")
        }
        if case .failure(let error) = loaded { return (directory, "it would fail: \(error.message)") }
        if let shell = run.variables["SHELL"],
            !shells.contains(URL(fileURLWithPath: shell).lastPathComponent)
                || !FileManager.default.isExecutableFile(atPath: shell)
        {
            return (directory, "cron would run it with SHELL=\(shell), which is not a shell that can")
        }
        return (directory, missingProgram(run))
    }

    /// Why cron would not find the program `run` names, or nil when it would: a path, from
    /// the directory the command starts in; a name, on the crontab's PATH (cron's own is
    /// /usr/bin:/bin).
    static func missingProgram(_ run: Crontab.CronRun) -> String? {
        if run.executable.contains("/") {
            let path = run.executable.hasPrefix("/") ? run.executable : (run.directory ?? "") + "/" + run.executable
            return FileManager.default.isExecutableFile(atPath: path) ? nil : "there is no program \(path)"
        }
        let path = run.variables.nonEmpty("PATH") ?? "/usr/bin:/bin"
        let found = path.split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(run.executable)")
        }
        return found ? nil : "cron would not find \(run.executable) on its PATH (\(path)): name it by its full path"
    }

    /// What `check` and `status` say of `candidates`.
    package static func report(_ candidates: [Candidate], stateDirectory: String, zone: TimeZone) -> Scheduling {
        var scheduling = Scheduling()
        for candidate in candidates {
            if candidate.fires {
                scheduling.found.append(
                    "scheduling: \(candidate.name) runs roundup for this state directory; "
                        + candidate.state)
            } else {
                scheduling.problems.append(
                    "scheduling: \(candidate.name) runs roundup for this state directory, but \(candidate.state), so "
                        + "nothing fires: \(candidate.fix)")
            }
        }
        let firing = candidates.filter { $0.fires && !$0.atBoot }
        if firing.isEmpty, let boot = candidates.first(where: { $0.fires && $0.atBoot }) {
            scheduling.problems.append(
                "scheduling: nothing runs roundup weekly for this state directory: \(boot.name) runs it only when "
                    + "the machine starts; add the lines `roundup check --crontab` prints")
        }
        if firing.isEmpty, candidates.isEmpty {
            scheduling.problems.append(
                "scheduling: nothing schedules this state directory (\(stateDirectory)): no crontab line runs roundup "
                    + "for it and no roundup.timer does; add the lines `roundup check --crontab` prints (with cron "
                    + "installed and running), or enable roundup.timer; set scheduler: external when something "
                    + "outside this machine runs it")
        }
        let instants = firing.compactMap { candidate -> (Instant, String)? in
            if case .at(let instant) = candidate.next { return (instant, candidate.name) }
            return nil
        }
        if let (soonest, name) = instants.min(by: { $0.0 < $1.0 }) {
            scheduling.nextRun = "\(localText(soonest, in: zone)), by \(name)"
        } else if let first = firing.first ?? candidates.first(where: \.fires) {
            switch first.next {
            case .written(let text): scheduling.nextRun = "\(text), by \(first.name)"
            case .cannotCompute(let written):
                scheduling.nextRun = "\(written), by \(first.name): cannot compute when that is"
            case .at: break
            }
        }
        return scheduling
    }

    /// `Mon 30 Nov 2026 06:00 (Europe/London)`.
    static func localText(_ instant: Instant, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let date = Date(timeIntervalSince1970: Double(instant.millisecondsSince1970) / 1000)
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let day = Week.localDate(of: instant, in: zone)
        let time = String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
        return "\(day.weekdayDayAndMonth) \(day.year) \(time) (\(zone.identifier))"
    }

    /// `path` as one place: symbolic links resolved where it exists, `.`, `..` and a
    /// trailing `/` gone.
    static func samePlace(_ path: String) -> String {
        let standard = URL(fileURLWithPath: path).standardized.path
        guard let resolved = realpath(standard, nil) else { return standard }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The zone cron and systemd tell times in: `/etc/localtime`'s (the zone it links to,
    /// else `/etc/timezone`'s name), and UTC when there is none, as the C library does.
    public static func systemZone(localtime: String = "/etc/localtime", named: String = "/etc/timezone") -> TimeZone {
        let utc = TimeZone(identifier: "UTC") ?? .gmt
        guard FileManager.default.fileExists(atPath: localtime) else { return utc }
        if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: localtime),
            let range = link.range(of: "zoneinfo/"), let zone = TimeZone(identifier: String(link[range.upperBound...]))
        {
            return zone
        }
        if let name = try? String(contentsOfFile: named, encoding: .utf8),
            let zone = TimeZone(identifier: name.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            return zone
        }
        return TimeZone.current
    }
}

extension Scheduling {
    /// The cron units systemd may run, and the names a cron daemon's process has.
    static let cronUnits = ["cron.service", "crond.service"]
    static let cronProcesses: Set<String> = ["cron", "crond", "fcron"]

    /// Whether a cron daemon runs: systemd says a cron unit is active, or the process
    /// table holds one (a container's cron, or one started by hand). In words either way.
    static func cronDaemon(_ lookup: Lookup) -> (running: Bool, words: String, fix: String) {
        let answers =
            Crontab.output(of: "systemctl", ["is-active"] + cronUnits, searchPath: lookup.searchPath, anyStatus: true)?
            .split(separator: "\n").map(String.init) ?? []
        if let index = answers.firstIndex(of: "active"), index < cronUnits.count {
            return (true, "the cron daemon is running (\(cronUnits[index]) is active)", "")
        }
        if let pid = cronProcess(under: lookup.processes) {
            return (true, "a cron daemon is running (process \(pid))", "")
        }
        let systemd =
            answers.count == cronUnits.count
            ? "systemctl says \(zip(cronUnits, answers).map { "\($0) is \($1)" }.joined(separator: " and ")), and " : ""
        return (
            false, "no cron daemon is running (\(systemd)no cron process is in the process table)",
            "install and start cron (sudo apt-get install cron; sudo systemctl enable --now cron), or start cron in "
                + "the container"
        )
    }

    /// The first process under `processes` (`/proc`) whose name is a cron daemon's.
    static func cronProcess(under processes: String) -> String? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: processes)) ?? []
        return entries.filter { $0.allSatisfy(\.isNumber) }.sorted {
            $0.count < $1.count || $0.count == $1.count && $0 < $1
        }
        .first { pid in
            let name = try? String(contentsOfFile: "\(processes)/\(pid)/comm", encoding: .utf8)
            guard let name, cronProcesses.contains(name.trimmingCharacters(in: .whitespacesAndNewlines)),
                let stat = try? String(contentsOfFile: "\(processes)/\(pid)/stat", encoding: .utf8),
                let close = stat.range(of: ") ", options: .backwards)
            else { return false }
            // Running or sleeping: not a zombie, not stopped.
            return !"ZTtXx".contains(stat[close.upperBound...].prefix(1))
        }
    }

    /// The installed `roundup.timer`s (the system's, then this user's) that target `target`:
    /// the system's runs `roundup.service`, whose state directory is `SystemService`'s; this
    /// user's runs the command its `roundup.service` starts, read as cron's line is.
    static func timers(for target: String, lookup: Lookup) -> [Candidate] {
        var candidates: [Candidate] = []
        // A systemd that does not answer in time is asked nothing more.
        var stuck = false
        for (scope, words) in [("the system's", [String]()), ("your user's", ["--user"])] where !stuck {
            let ask = { (arguments: [String]) in
                let answer = Crontab.answer(
                    of: "systemctl", words + arguments, searchPath: lookup.searchPath, anyStatus: true)
                stuck = stuck || answer.timedOut
                return answer.text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            }
            let enabled = ask(["is-enabled", "roundup.timer"])
            // Not installed, or no systemd to ask.
            guard !enabled.isEmpty, enabled != "not-found" else { continue }
            var directory: String? = SystemService.stateDirectory
            var problem: String?
            if !words.isEmpty {
                let command = ask(["show", "roundup.service", "--property=ExecStart", "--value"])
                let environment = ask(["show", "roundup.service", "--property=Environment", "--value"])
                guard let run = userServiceRun(command: command, environment: environment) else { continue }
                (directory, problem) = judge(run, lookup: lookup)
            }
            guard directory.map(samePlace) == target else { continue }
            let active = ask(["is-active", "roundup.timer"])
            let next = ask([
                "show", "roundup.timer", "--property=NextElapseUSecRealtime", "--value", "--timestamp=unix",
            ])
            // Seconds since 1970, up to the end of the year 9999; anything else as written.
            let when: Next =
                next.hasPrefix("@")
                ? Int64(next.dropFirst()).flatMap { (0...253_402_300_799).contains($0) ? $0 : nil }
                    .map { .at(Instant(millisecondsSince1970: $0 * 1000)) } ?? .written(next)
                : .written(next.isEmpty || next == "n/a" ? "when systemd says" : next)
            var fires = enabled == "enabled" && active == "active"
            var state = "it is \(enabled) and \(active.isEmpty ? "not active" : active)"
            var fix = "systemctl \(words.isEmpty ? "" : "--user ")enable --now roundup.timer"
            if let problem {
                (fires, state, fix) = (false, "its roundup.service: \(problem)", "correct its ExecStart")
            } else if fires, next == "n/a" {
                (fires, state) = (false, "systemd has no next time for it")
            }
            // A user's timer stops when the user's last session ends, unless the user lingers.
            if fires, !words.isEmpty,
                Crontab.output(
                    of: "loginctl", ["show-user", String(getuid()), "--property=Linger", "--value"],
                    searchPath: lookup.searchPath)?.trimmingCharacters(in: .whitespacesAndNewlines) == "no"
            {
                (fires, state, fix) = (
                    false, "it runs only while you are logged in", "sudo loginctl enable-linger $USER"
                )
            }
            candidates.append(
                Candidate(name: "\(scope) roundup.timer", fires: fires, state: state, fix: fix, next: when))
        }
        return candidates
    }

    /// The command this user's `roundup.service` starts: its `ExecStart`'s words
    /// (`{ path=… ; argv[]=/usr/bin/roundup run … ; … }`, roundup the program itself) and
    /// its `Environment`.
    static func userServiceRun(command: String, environment: String) -> Crontab.CronRun? {
        guard let start = command.range(of: "argv[]=") else { return nil }
        let argv = command[start.upperBound...].prefix { $0 != ";" }
        let words = Crontab.shellWords(String(argv), home: nil)
        guard let program = words.first, program.hasSuffix("/roundup"), words.dropFirst().first == "run"
        else { return nil }
        var variables: [String: String] = [:]
        for word in Crontab.shellWords(environment, home: nil) {
            guard let equals = word.firstIndex(of: "=") else { continue }
            variables[String(word[..<equals])] = String(word[word.index(after: equals)...])
        }
        return Crontab.CronRun(
            schedule: "", arguments: Array(words.dropFirst(2)), variables: variables, executable: program)
    }
}
