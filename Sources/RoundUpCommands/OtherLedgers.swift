import Foundation
import RoundUp
import RoundUpHost
import RoundUpLedger

/// Ledgers other than the configured one that `check` can see: each state directory is a
/// ledger of its own, and two ledgers for one account each count its payments once. The
/// machine-wide account lock and the feed check stop a second transfer of the same week,
/// but not a payment counted in two different windows, one in each ledger.
enum OtherLedgers {
    /// State directories where another ledger may be: this user's default one (with and
    /// without `XDG_STATE_HOME`), the system service's, and the one the crontab's line
    /// keeps, as cron resolves it (`Check`'s reading of the line).
    static func candidates(locations: Locations, cronStateDirectory: String?) -> [String] {
        [locations.stateDirectory, locations.home.map { "\($0)/.local/state/roundup" }].compactMap { $0 }
            + [SystemService.stateDirectory, "/var/lib/private/roundup"] + [cronStateDirectory].compactMap { $0 }
    }

    /// For each ledger among `candidates` that is not the one in `stateDirectory` and holds
    /// weeks of any of `accounts` (uid → label): a warning naming it and the accounts. A
    /// ledger this user cannot read is passed over; nothing is written.
    static func warnings(stateDirectory: String, candidates: [String], accounts: [String: String]) -> [String] {
        let own = canonical(stateDirectory)
        var seen: Set<String> = [own]
        var warnings: [String] = []
        for directory in candidates {
            let path = Ledger.path(in: directory)
            let real = canonical(directory)
            guard !seen.contains(real), access(path, R_OK) == 0 else { continue }
            seen.insert(real)
            guard let entries = try? Ledger.readOnlyCopy(of: path).accountWeeks() else { continue }
            let shared = Set(entries.map(\.accountUid)).filter { accounts[$0] != nil }
            guard !shared.isEmpty else { continue }
            let names = shared.sorted().map { accounts[$0] ?? $0 }.joined(separator: ", ")
            warnings.append(
                "ledger: another ledger, \(path), also holds weeks of \(names); each state directory is a ledger of "
                    + "its own, and a payment can be counted once in each: run every schedule with one state "
                    + "directory (--state-dir \(stateDirectory)), or move the other aside")
        }
        return warnings
    }

    /// `path` with links resolved, when it exists.
    private static func canonical(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return URL(fileURLWithPath: path).standardized.path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
