import Synchronization

/// Which accounts of a run are finished, for saying so when the run is interrupted, and a
/// way to wait for a ledger write under way to complete before the process ends.
public final class RunProgress: Sendable {
    private struct State {
        package var started: [String] = []
        package var finished: Set<String> = []
        var settle: (@Sendable () -> Void)?
        var describe: (@Sendable () -> String)?
    }

    private let state = Mutex(State())

    public init() {}

    package func started(_ label: String) { state.withLock { $0.started.append(label) } }

    package func finished(_ label: String) { state.withLock { _ = $0.finished.insert(label) } }

    /// Set by the runner: returns once no ledger write is under way.
    package func onSettle(_ settle: @escaping @Sendable () -> Void) { state.withLock { $0.settle = settle } }

    /// Set by a command that says in its own words what it had done when stopped
    /// (`resolve`): read once the ledger has settled.
    package func onInterrupt(_ describe: @escaping @Sendable () -> String) { state.withLock { $0.describe = describe } }

    /// Waits for any ledger write under way, then says which accounts were finished and
    /// which were not; the ledger holds whatever did finish.
    public func interrupted(by signal: String) -> String {
        let (settle, describe) = state.withLock { ($0.settle, $0.describe) }
        settle?()
        if let describe { return "roundup: stopped by \(signal) \(describe())\n" }
        return state.withLock { state in
            let finished = state.started.filter { state.finished.contains($0) }
            let unfinished = state.started.filter { !state.finished.contains($0) }
            var text = "roundup: stopped by \(signal)"
            text += "; finished: " + (finished.isEmpty ? "none" : finished.joined(separator: ", "))
            text += "; not finished: " + (unfinished.isEmpty ? "none" : unfinished.joined(separator: ", "))
            if !unfinished.isEmpty {
                text +=
                    ". The ledger has what was done; the next run finishes the rest, and looks in the feed "
                    + "before it sends any transfer again"
            }
            return text + "\n"
        }
    }
}
