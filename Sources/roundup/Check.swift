import ArgumentParser
import Foundation
import RoundUpJob

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the config, the token, its scopes, the accounts and their goals, writing nothing.",
        discussion: """
            Each line starts with ok or FIX, and a FIX line says what to change. The exit status is that of \
            the first problem (78 configuration, 77 token or scopes, 69 bank unreachable), 0 when all is well.

            Examples:
              roundup check
              roundup check --config ~/.config/roundup/config.yaml
            """
    )

    @OptionGroup var settings: SettingOptions

    @OptionGroup var logging: LoggingOptions

    @OptionGroup var colour: ColourOptions

    func run() async throws {
        let result = await Composition.live.check(settings.flags(), logger: logging.logger, style: colour.style)
        try finish(result)
    }
}
