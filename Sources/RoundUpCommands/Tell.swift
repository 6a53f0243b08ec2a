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
    /// Tells of the newest run in `loaded`'s state directory. When the settings cannot be
    /// had, the service's run could not have had them either: `fallback` (the places
    /// `ROUNDUP_NOTIFY_URLS` names) is told why, as that run ended.
    public static func run(
        loaded: Result<LoadedSettings, SettingsError>, fallback: WatchSettings, logger: Logger
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
        let path = Ledger.path(in: settings.state.directory)
        let newest: RunRecord?
        do {
            guard FileManager.default.fileExists(atPath: path) else {
                return .failure(
                    CommandFailure(.configuration, "no ledger in \(settings.state.directory): no run to tell of"))
            }
            newest = try Ledger.readOnlyCopy(of: path).runs(limit: 1).first
        } catch {
            return .failure(
                CommandFailure(
                    .configuration, "cannot read the ledger in \(settings.state.directory): \(plainDescription(error))")
            )
        }
        guard let run = newest else {
            return CommandResult(status: .ok, output: "no run in the ledger: nothing sent\n")
        }
        // A run that never recorded its end was killed or crashed: systemd's OnFailure= is
        // how anyone hears of it.
        guard let code = run.exitCode else {
            return await told(
                .unfinished(startedAt: run.startedAt.iso8601), notifier, what: "the newest run did not finish")
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
