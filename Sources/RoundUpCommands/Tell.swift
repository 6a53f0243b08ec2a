import Foundation
public import Logging
public import RoundUpHost
import RoundUpLedger
import RoundUpNotify
import RoundUpOutput
import RoundUpVocabulary

/// `roundup tell`: tells the places `notify.to` names that the state directory's newest run
/// failed. systemd's `OnFailure=` starts it (`roundup-tell@.service`) once `roundup.service`
/// has failed for good, its restarts spent or its failure one that needs a person, so that
/// a saver hears once, not at each restart; under it the run itself tells no failure
/// (`notify.failures: on-failure-unit`). It reads the ledger only, and needs no token.
public enum Tell {
    /// What systemd says of the unit whose failure started this one (`OnFailure=`, systemd
    /// 251 and later: `MONITOR_SERVICE_RESULT`, `MONITOR_EXIT_CODE`, `MONITOR_EXIT_STATUS`).
    /// It tells of a failure before roundup could record a run: a credential that could not
    /// be loaded, a binary that is not there.
    public struct UnitFailure: Sendable {
        var result: String
        var code: String?
        var status: String?

        /// From `environment`; nil when systemd did not start this for a failure.
        public init?(environment: [String: String]) {
            guard let result = environment.nonEmpty("MONITOR_SERVICE_RESULT"), result != "success" else { return nil }
            self.result = result
            code = environment.nonEmpty("MONITOR_EXIT_CODE")
            status = environment.nonEmpty("MONITOR_EXIT_STATUS")
        }

        /// Whether `run`'s recorded ending is this failure's.
        func isOf(_ run: RunRecord) -> Bool {
            guard let exit = run.exitCode, exit != 0 else { return false }
            return status.map { $0 == "\(exit)" } ?? true
        }

        var notice: Notice {
            let said = ["result \(result)", code.map { "\($0)" }, status.map { "status \($0)" }].compactMap { $0 }
            return Notice(
                kind: .failure, title: "roundup failed (before it could record a run)",
                message:
                    "systemd says roundup.service failed (\(said.joined(separator: ", "))) before the run recorded "
                    + "anything: a credential it could not load (/etc/roundup/starling-token), or a binary that is not "
                    + "there. `systemctl status roundup.service` says why; `sudo roundup check --system` what to fix.")
        }
    }

    /// Tells of the newest run in `loaded`'s state directory. When the settings cannot be
    /// had, the service's run could not have had them either: `fallback` (the places
    /// `ROUNDUP_NOTIFY_URLS` names) is told why, as that run ended. `unit` is what systemd
    /// said of the failure, when it started this.
    public static func run(
        loaded: Result<LoadedSettings, SettingsError>, fallback: WatchSettings, unit: UnitFailure? = nil,
        logger: Logger
    ) async -> CommandResult {
        let settings: Settings
        switch loaded {
        case .success(let value): settings = value.settings
        case .failure(let error):
            var result = CommandResult.failure(error.failure)
            guard let notifier = Notifier(fallback, logger: logger) else { return result }
            let failure = error.failure
            let sent = await notifier.send(
                .failure(
                    code: failure.status.rawValue,
                    summary: Notice.withoutUids(
                        String("exit \(failure.status.rawValue): \(failure.message)".prefix(400))),
                    heldWeeks: false))
            result.output =
                "the settings cannot be read; told \(sent.delivered) of \(notifier.targets.count) place(s) why\n"
            result.said += sent.warnings.map { Diagnostic(.failure, $0) }
            return result
        }
        guard let notifier = Notifier(settings.watch, logger: logger) else {
            return CommandResult(status: .ok, output: "notify.to names no place to tell: nothing sent\n")
        }
        let directory = settings.state.directory
        let path = Ledger.path(in: directory)
        let newest: RunRecord?
        do {
            guard FileManager.default.fileExists(atPath: path) else {
                if let unit { return await told(unit.notice, notifier, what: "the service failed before any run") }
                return .failure(CommandFailure(.configuration, "no ledger in \(directory): no run to tell of"))
            }
            newest = try Ledger.readOnlyCopy(of: path).runs(limit: 1).first
        } catch {
            return .failure(
                CommandFailure(.configuration, "cannot read the ledger in \(directory): \(plainDescription(error))"))
        }
        guard let run = newest else {
            if let unit { return await told(unit.notice, notifier, what: "the service failed before any run") }
            return CommandResult(status: .ok, output: "no run in the ledger: nothing sent\n")
        }
        // A run that never recorded its end was killed or crashed, unless it is running now.
        guard let code = run.exitCode else {
            if RunLock.isHeld(in: directory) {
                return CommandResult(status: .ok, output: "the newest run is still running: nothing sent\n")
            }
            return await told(
                .unfinished(startedAt: run.startedAt.iso8601), notifier, what: "the newest run did not finish")
        }
        // systemd saw a failure the ledger has not: the run never got to record it.
        if let unit, !unit.isOf(run) {
            return await told(unit.notice, notifier, what: "the service failed before it recorded a run")
        }
        guard code != 0 else {
            return CommandResult(status: .ok, output: "the newest run ended well (exit 0): nothing sent\n")
        }
        // Each held week was told by the run that held it, once.
        guard !run.onlyHeld else {
            return CommandResult(
                status: .ok,
                output: "the newest run waits only for held weeks, told when they were held: nothing sent\n")
        }
        let notice = Notice.failure(
            code: code, summary: run.summary ?? "exit \(code)", heldWeeks: run.accountsHeld > 0)
        return await told(notice, notifier, what: "the newest run failed (exit \(code))")
    }

    /// `notice` sent; 69 when no place took it.
    private static func told(_ notice: Notice, _ notifier: Notifier, what: String) async -> CommandResult {
        let sent = await notifier.send(notice)
        var result = CommandResult(
            status: sent.delivered > 0 ? .ok : .unavailable,
            output: "told \(sent.delivered) of \(notifier.targets.count) place(s) that \(what)\n")
        result.said = sent.warnings.map { Diagnostic(.failure, $0) }
        return result
    }
}
