import Foundation
import RoundUpOutput
import StarlingAPI

#if canImport(Glibc)
import Glibc
#endif

/// While a run is under way, SIGINT, SIGTERM and SIGHUP (a closed terminal) end it saying
/// which accounts were finished and which were not, once any ledger write under way has
/// completed: the ledger is never left between a transfer's intent and its record. The
/// first signal closes the `StopGate`, so that no request to the bank starts after it;
/// any signal after the first finds the run already stopping.
public final class InterruptWatch {
    private let sources: [any DispatchSourceSignal]

    /// `stopped` hears of the signal, and the exit status, before the process ends; it
    /// returns false when the run had already recorded its own ending, which it then
    /// finishes telling and ends as it would have.
    public init(progress: RunProgress, stopped: @escaping @Sendable (String, Int32) -> Bool = { _, _ in true }) {
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
    public func stop() {
        for source in sources { source.cancel() }
        for (number, _) in InterruptWatch.signals { signal(number, SIG_DFL) }
    }

    static let signals = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")]
}
