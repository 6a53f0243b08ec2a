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

/// While a run is under way, SIGINT, SIGTERM and SIGHUP (a closed terminal) end it saying
/// which accounts were finished and which were not, once any ledger write under way has
/// completed: the ledger is never left between a transfer's intent and its record. The
/// first signal closes the `StopGate`, so that no request to the bank starts after it;
/// any signal after the first finds the run already stopping.
final class InterruptWatch {
    private let sources: [any DispatchSourceSignal]

    /// `stopped` hears of the signal, and the exit status, before the process ends; it
    /// returns false when the run had already recorded its own ending, which it then
    /// finishes telling and ends as it would have.
    init(progress: RunProgress, stopped: @escaping @Sendable (String, Int32) -> Bool = { _, _ in true }) {
        sources = InterruptWatch.signals.map { number, name in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                guard StopGate.close() else { return }
                let said = progress.interrupted(by: name)
                guard stopped(name, 128 + number) else { return }
                _ = writeAll(STDERR_FILENO, said)
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    /// The signals' usual effect again.
    func stop() {
        for source in sources { source.cancel() }
        for (number, _) in InterruptWatch.signals { signal(number, SIG_DFL) }
    }

    static let signals = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")]
}
