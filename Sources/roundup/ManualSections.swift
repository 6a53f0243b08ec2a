import ArgumentParser
import Foundation
import RoundUpCommands
import RoundUpHost

extension Roundup {
    /// `roundup manual-sections`: the man page's ENVIRONMENT, FILES, CONFIGURATION and EXIT
    /// STATUS sections in mdoc, from the definitions the code uses (`Manual`). Hidden: the
    /// install and package scripts add its output to the page the command definitions make.
    struct ManualSections: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "manual-sections",
            abstract: "Print the man page's reference sections in mdoc (for scripts/install and scripts/package).",
            shouldDisplay: false)

        func run() throws {
            try finish(CommandResult(status: .ok, output: Manual.sections()))
        }
    }
}
