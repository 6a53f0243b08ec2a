import ArgumentParser
import RoundUpCommands
import RoundUpHost

extension Roundup {
    struct Tell: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tell",
            abstract: "Tell the places notify.to names that the newest run failed (for systemd's OnFailure=).",
            discussion: """
                roundup-tell@.service runs it once roundup.service has failed for good: its restarts spent, or a \
                failure that needs a person. The service sets ROUNDUP_NOTIFY_FAILURES=on-failure-unit, so that its \
                runs tell no failure themselves and you hear once, not at each restart. It reads the ledger's newest \
                run (no token, no request to the bank) and sends nothing when that run ended well, or waits only for \
                held weeks, which the run that held them told once. A run that never recorded its end (killed, \
                crashed) is told as such, unless it is still running. Started by systemd, it reads what systemd says \
                of the failure (MONITOR_SERVICE_RESULT, MONITOR_EXIT_STATUS) and tells a failure that came before \
                any run was recorded. Exit 69 when no place took the message.

                Examples:
                  roundup tell
                  roundup tell --state-dir /var/lib/roundup
                """
        )

        @OptionGroup var locations: LocationOptions

        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let live = Composition.live
            try finish(
                await RoundUpCommands.Tell.run(
                    loaded: live.settings(locations.flags), fallback: .fromEnvironment(live.environment),
                    unit: RoundUpCommands.Tell.UnitFailure(environment: live.environment), logger: logging.logger))
        }
    }
}
