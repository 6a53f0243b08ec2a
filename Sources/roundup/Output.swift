import ArgumentParser
import Foundation
import RoundUp
import RoundUpCommands
import RoundUpHost
import RoundUpOutput
import RoundUpVocabulary
import StarlingAPI

#if canImport(Glibc)
import Glibc
#endif

/// Prints a finished run and exits with its status. By then the ledger is committed, so a
/// failed write loses no money: a reader that went away (a closed pipe) ends the command
/// quietly with the run's own status; any other failure to write is said on standard
/// error, with the system's reason, and ends it with 74.
func finish(_ result: CommandResult) throws -> Never {
    throw ExitCode(Console.standard.shown(result).status.rawValue)
}
