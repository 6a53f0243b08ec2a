import ArgumentParser
import Foundation
import RoundUp
import RoundUpCommands
import RoundUpOutput
import RoundUpVocabulary

extension Roundup {
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract:
                "Say whether the weekly job is doing its work: the last run, the last success, held and unconfirmed weeks.",
            discussion: """
                Reads the state directory only: no token, no request to the bank. It also looks for what \
                runs the job for this state directory: a crontab line (with a cron daemon running) or \
                roundup.timer (enabled and active); scheduler: external where something outside the machine \
                does. Exit codes follow the monitoring-plugin convention, so any monitor can run it:
                  0 OK        the last run succeeded, and nothing waits for a person
                  1 WARNING   the last run failed in a way that may pass; a week is
                              unconfirmed, or held for less than a day; the newest
                              week went unrecorded; or nothing schedules the job
                  2 CRITICAL  the last run needs a person; a week has been held
                              more than a day; or no run succeeded for 8 days
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
            let answer = JobHealth.status(
                live.settings(locations.flags), system: system, json: json, now: live.clock(),
                lookup: Composition.live.schedulingLookup)
            if let problem = answer.problem { _ = writeAll(STDERR_FILENO, "roundup: \(problem)\n") }
            if let failure = writeAll(STDOUT_FILENO, answer.output), failure != EPIPE {
                throw ExitCode(ExitStatus.ioError.rawValue)
            }
            throw ExitCode(answer.level.rawValue)
        }
    }
}
