import ArgumentParser
import Foundation
import RoundUp
import RoundUpJob
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
    // A diagnostic may carry the bank's text: each of its lines is made printable.
    for diagnostic in result.diagnostics {
        let lines = diagnostic.split(separator: "\n", omittingEmptySubsequences: false).map { printable(String($0)) }
        _ = writeAll(STDERR_FILENO, lines.joined(separator: "\n") + "\n")
    }
    guard let failure = writeAll(STDOUT_FILENO, result.output) else { throw ExitCode(result.status.rawValue) }
    if failure == EPIPE { throw ExitCode(result.status.rawValue) }
    _ = writeAll(STDERR_FILENO, "roundup: cannot write to standard output: \(String(cString: strerror(failure)))\n")
    throw ExitCode(ExitStatus.ioError.rawValue)
}
