import ArgumentParser
import Foundation
import RoundUpCommands

extension Roundup {
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check the config, the token, its scopes, the accounts and their goals, writing nothing.",
            discussion: """
                Each line starts with ok, WARN or FIX, and a FIX line says what to change. The exit status is that \
                of the first problem (78 configuration, 77 token or scopes, 69 bank unreachable), 0 when all is well. \
                It names where it looked: the config file is the one --config or ROUNDUP_CONFIG names, else \
                $XDG_CONFIG_HOME/roundup/config.yaml (default ~/.config/roundup/config.yaml), and no other.

                --system checks the system service as roundup.service runs it: /etc/roundup/config.yaml, the token \
                in /etc/roundup/starling-token (its credential), /etc/roundup/environment and the ledger in \
                /var/lib/roundup; run it as root. It writes nothing there.

                --crontab prints the lines for your crontab instead: they name the config file and the state \
                directory check finds for you, so that cron, which sets no XDG variable, reads the same ones.

                Examples:
                  roundup check
                  roundup check --config ~/.config/roundup/config.yaml
                  sudo roundup check --system
                  roundup check --notify-test   # a test message to each place of notify.to
                  (crontab -l 2>/dev/null; roundup check --crontab) | crontab -
                """
        )

        @OptionGroup var settings: SettingOptions

        @Flag(help: "Check the system service's config, token and ledger, as roundup.service reads them (as root).")
        var system = false

        @Flag(help: "Print the crontab lines that run roundup weekly with your config and state directory.")
        var crontab = false

        @Flag(help: "Send one test message to each place notify.to names (check sends nothing without it).")
        var notifyTest = false

        func validate() throws {
            if system, settings.config != nil || settings.stateDir != nil {
                throw ValidationError(
                    "--system reads the service's own config and state directory: leave out --config and --state-dir")
            }
            if system, crontab { throw ValidationError("--crontab is for your own crontab, not the system service") }
        }

        @OptionGroup var logging: LoggingOptions

        @OptionGroup var colour: ColourOptions

        func run() async throws {
            if crontab { try finish(Composition.live.crontab(settings.flags())) }
            let result = await Composition.live.check(
                settings.flags(), system: system, notifyTest: notifyTest, logger: logging.logger, style: colour.style)
            try finish(result)
        }
    }
}
