import Foundation
import RoundUp
import RoundUpHost
import RoundUpLedger
import RoundUpOutput
import RoundUpReports
import RoundUpVocabulary

/// What `check` says of the files and schedules around the job: the state directory, the
/// files a run writes or the service's files, and the schedules that run roundup.
extension Check {
    /// Checks them as of `now`; returns the state directory cron's runs keep, when the
    /// crontab has a line for roundup.
    static func checkFiles(
        _ settings: Settings, configPath: String?, lookup: Lookup, locations: Locations,
        now: Instant, in list: inout Checklist
    ) -> String? {
        checkStateDirectory(
            settings.state.directory,
            from: Settings.stateSearch(
                flags: lookup.flags, environment: lookup.environment, directory: settings.state.directory,
                locations: locations),
            asTheService: lookup.system, in: &list)
        // This user's crontab, read once; the service has none of its own.
        let answer = Crontab.crontab(scheduler: settings.watch.scheduler, searchPath: lookup.scheduling.searchPath)
        let crontab = answer.text
        var cronStateDirectory: String?
        if lookup.system {
            checkServiceFiles(settings, in: &list)
        } else {
            checkWrittenFiles(settings, configPath: configPath, in: &list)
            checkSchedules(locations, crontab: crontab, in: &list)
            cronStateDirectory = checkCron(
                crontab, shell: (configPath, settings.state.directory), locations: locations,
                settingFlags: lookup.scheduling.settingFlags, in: &list)
        }
        let scheduling = Scheduling.look(
            for: settings.state.directory, scheduler: settings.watch.scheduler, crontab: crontab,
            crontabTimedOut: answer.timedOut, now: now,
            lookup: lookup.scheduling)
        for found in scheduling.found { list.ok(found) }
        for problem in scheduling.problems { list.warn(problem) }
        if let next = scheduling.nextRun, settings.watch.scheduler == .auto { list.ok("next run: \(next)") }
        return cronStateDirectory
    }

    /// Both the crontab entry and the systemd timer installed: two schedules for one holder.
    private static func checkSchedules(_ locations: Locations, crontab: String?, in list: inout Checklist) {
        let timers =
            ["/etc/systemd/system/timers.target.wants/roundup.timer"]
            + (locations.configHome.map { ["\($0)/systemd/user/timers.target.wants/roundup.timer"] } ?? [])
        guard let timer = timers.first(where: { FileManager.default.fileExists(atPath: $0) }),
            !Crontab.cronRuns(in: crontab, home: locations.home).isEmpty
        else { return }
        list.warn(
            "scheduling: both your crontab and the systemd timer (\(timer)) run roundup; two schedules run the job "
                + "twice, from two state directories: keep one (crontab -e, or systemctl disable --now roundup.timer)")
    }

    /// The service's state directory and ledger, as root sees them: read, never written.
    /// Its owner is the service's dynamic user, not the one running `check`.
    private static func checkServiceFiles(_ settings: Settings, in list: inout Checklist) {
        let ledger = Ledger.path(in: settings.state.directory)
        guard FileManager.default.fileExists(atPath: ledger) else {
            list.ok("ledger: none yet in \(settings.state.directory): the service has not run")
            return
        }
        if let refusal = Ledger.systemReadRefusal(ledger) {
            list.problem(.configuration, "ledger: \(refusal)")
            return
        }
        do {
            let entries = try Ledger.readOnlyCopy(of: ledger).accountWeeks()
            list.ok("ledger: \(ledger), \(entries.count) account-week(s) (read only; nothing here is written)")
        } catch {
            list.problem(.configuration, "ledger: cannot read \(ledger): \(plainDescription(error))")
        }
    }

    /// The crontab's line for roundup, read as cron runs it (HOME only, no XDG variable,
    /// with the crontab's own variables): a warning when it would read another config file
    /// or keep another ledger than this shell does, find no token, or could not run at all.
    /// Returns the state directory cron's runs keep, when there is a line.
    private static func checkCron(
        _ crontab: String?, shell: (configPath: String?, stateDirectory: String), locations: Locations,
        settingFlags: ([String]) -> SettingFlags, in list: inout Checklist
    ) -> String? {
        guard let cron = Crontab.cronRuns(in: crontab, home: locations.home).first else { return nil }
        let fix = "`roundup check --crontab` prints a line that names this shell's config and state directory"
        let loaded: LoadedSettings
        switch Crontab.settings(of: cron, home: locations.home, settingFlags: settingFlags) {
        case (.failure(let error), let stateDirectory):
            list.warn("cron: your crontab's line for roundup would fail: \(error.message); \(fix)")
            return stateDirectory
        case (.success(let value), _):
            loaded = value
        }
        if cron.variables.nonEmpty("STARLING_ACCESS_TOKEN") == nil, loaded.settings.bank.tokenFile == nil {
            list.warn(
                "cron: your crontab's line would find no token: cron sets no STARLING_ACCESS_TOKEN; set tokenFile in "
                    + "the config it reads (\(loaded.configPath ?? "none"))")
        }
        var differences: [String] = []
        if loaded.configPath != shell.configPath {
            differences.append(
                "the config \(loaded.configPath ?? "(none)") where this shell reads \(shell.configPath ?? "none")")
        }
        if loaded.settings.state.directory != shell.stateDirectory {
            differences.append(
                "the ledger in \(loaded.settings.state.directory) where this shell uses \(shell.stateDirectory)")
        }
        if differences.isEmpty {
            list.ok("cron: your crontab's line reads the same config and ledger as this shell")
        } else {
            list.warn("cron: your crontab's line would read \(differences.joined(separator: ", and ")); \(fix)")
        }
        return loaded.settings.state.directory
    }

    /// Where reports and the metrics file go, checked as a real run checks them before its
    /// first request: a report directory of another user's or that others can write to,
    /// and a metrics file of another user's or among the job's own files, are refused.
    /// Nothing is created.
    private static func checkWrittenFiles(_ settings: Settings, configPath: String?, in list: inout Checklist) {
        let reports = settings.state.reportDirectory
        if access(reports, F_OK) != 0 {
            if let problem = SafePath.problem(with: reports) {
                list.problem(.configuration, "report directory: \(problem)")
            } else {
                list.ok("report directory: \(reports) (a run creates it)")
            }
        } else {
            do {
                _ = try WriteDirectory(reports, sharing: .ownerOnly, create: false)
                list.ok("report directory: \(reports)")
            } catch {
                list.problem(.configuration, "report directory: \(error.description)")
            }
        }
        guard let metrics = settings.watch.metricsFile else { return }
        let refusal = Metrics.refusal(
            of: metrics, stateDirectory: settings.state.directory, reportDirectory: reports,
            ownFiles: [configPath, settings.bank.tokenFile].compactMap { $0 })
        if let refusal {
            list.problem(.configuration, "metrics: \(refusal)")
        } else {
            list.ok("metrics file: \(metrics)")
        }
    }

    /// The state directory must be writable, or creatable, by this user, somewhere no one
    /// else can change (`SafePath`); nothing is created. The service's (`asTheService`)
    /// belongs to its own user, which is another user as `check --system` sees it: only
    /// whether it can be made is checked.
    private static func checkStateDirectory(
        _ path: String, from source: String, asTheService: Bool, in list: inout Checklist
    ) {
        if !asTheService, let problem = SafePath.problem(with: path) {
            list.problem(.configuration, "state directory: \(problem)")
            return
        }
        // An existing directory is held to the rule a run holds it to, in the run's words.
        if !asTheService, let refusal = StateDirectory.refusal(of: path) {
            list.problem(.configuration, refusal)
            return
        }
        var existing = URL(fileURLWithPath: path)
        while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
            existing.deleteLastPathComponent()
        }
        if access(existing.path, W_OK) == 0 {
            list.ok("state directory: \(path) (\(source))\(existing.path == path ? "" : "; a run creates it")")
        } else {
            list.problem(
                .configuration, "state directory: \(existing.path) is not writable; set stateDir to a directory you own"
            )
        }
    }
}
