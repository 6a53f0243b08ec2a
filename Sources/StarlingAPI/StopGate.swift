import Synchronization

/// Closed when a signal stops the process: from then on no request to the bank starts.
/// A request already under way finishes, and its outcome is recorded; one that would
/// start waits, and the process ends once the signal's handler has recorded the stop. So a
/// run stopped by SIGTERM, SIGINT or SIGHUP sends nothing after the signal, and how it
/// ended is recorded once.
public enum StopGate {
    private static let closed = Atomic<Bool>(false)

    /// Closes the gate; returns whether this call closed it (false when it already was).
    @discardableResult
    public static func close() -> Bool {
        closed.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
    }

    public static var isClosed: Bool { closed.load(ordering: .sequentiallyConsistent) }

    /// Returns at once while the gate is open; once it is closed, never: the process ends
    /// while this waits.
    public static func waitIfClosed() async {
        while isClosed {
            try? await Task.sleep(for: .seconds(60))
        }
    }
}
