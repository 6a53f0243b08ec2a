import ArgumentParser
import Foundation
import RoundUp
import RoundUpJob
import RoundUpLedger
import RoundUpOutput
import RoundUpVocabulary

extension Roundup {
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Say whether the weekly job is doing its work: the last run, the last success, held weeks.",
            discussion: """
                Reads the state directory only: no token, no request to the bank. Exit codes follow the \
                monitoring-plugin convention, so any monitor can run it:
                  0 OK        the last run succeeded and nothing waits for a person
                  1 WARNING   the last run failed in a way that may pass, or a week has waited less than a day
                  2 CRITICAL  the last run needs a person, a week has waited more than a day, or no run has \
                succeeded for 8 days
                  3 UNKNOWN   no ledger, or no run recorded yet

                Examples:
                  roundup status
                  roundup status --json
                """
        )

        @OptionGroup var locations: LocationOptions

        @Flag(help: "Print the status as JSON.")
        var json = false

        @Flag(help: "The system service's status, from /var/lib/roundup as roundup.service keeps it (as root).")
        var system = false

        func validate() throws {
            if system, locations.config != nil || locations.stateDir != nil {
                throw ValidationError(
                    "--system reads the service's own config and state directory: leave out --config and --state-dir")
            }
        }

        func run() throws {
            let live = system ? Composition.systemService(from: Composition.live) : Composition.live
            switch live.settings(locations.flags) {
            case .failure(let error):
                _ = writeAll(STDERR_FILENO, "roundup: \(error.message)\n")
                throw ExitCode(JobHealth.Level.unknown.rawValue)
            case .success(let loaded):
                if system, let refusal = Ledger.systemReadRefusal(Ledger.path(in: loaded.settings.state.directory)) {
                    _ = writeAll(STDERR_FILENO, "roundup: \(refusal)\n")
                    throw ExitCode(JobHealth.Level.unknown.rawValue)
                }
                let finding = JobHealth.find(
                    stateDirectory: loaded.settings.state.directory, now: live.clock(),
                    nextRun: Schedule.nextRun(searchPath: live.environment["PATH"]),
                    zone: loaded.settings.rules.timeZone)
                let text = json ? JobHealth.json(finding) : JobHealth.text(finding)
                if let failure = writeAll(STDOUT_FILENO, text), failure != EPIPE {
                    throw ExitCode(ExitStatus.ioError.rawValue)
                }
                throw ExitCode(finding.level.rawValue)
            }
        }
    }
}
