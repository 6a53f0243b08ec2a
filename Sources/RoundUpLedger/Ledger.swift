public import Foundation
import GRDB
import RoundUpVocabulary

/// The record of what the job decided and did, one row per (account, week), in SQLite in
/// the state directory, and a row per real run. With the account's feed it is what makes a transfer happen at
/// most once: the intent is written before the transfer is sent, the outcome after the
/// bank confirms it or the feed shows it, and a row is never removed. It also counts the
/// requests real runs sent each UTC day, for the daily allowance. It holds no secret.
///
/// Its tables each have a file: the week entries (`WeekEntries.swift`), the requests per
/// day (`RequestCounts.swift`), the runs (`RunRecord.swift`) and the goals' progress
/// (`GoalRecord.swift`); their schema is made by
/// the frozen migrations (`LedgerMigrations.swift`).
public struct Ledger: Sendable {
    let database: DatabaseQueue
    /// What opening the ledger found that a person should hear of once: said by the run
    /// that opened it (`Runner`).
    public private(set) var notices: [String] = []

    /// Where the ledger of `stateDirectory` is.
    public static func path(in stateDirectory: String) -> String { stateDirectory + "/ledger.sqlite" }

    /// Whether the file at `path` is an SQLite database in write-ahead-log mode (bytes 18
    /// and 19 of its header are 2), which roundup never sets: reading one creates `-wal` and
    /// `-shm` files beside it, so the `--system` views, run as root, leave it unread rather
    /// than make files the service's user could not write.
    public static func isWriteAheadLog(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return false }
        return header[18] == 2 && header[19] == 2
    }

    /// Why the `--system` views leave the ledger at `path` unread, or nil when they can read it.
    public static func systemReadRefusal(_ path: String) -> String? {
        guard isWriteAheadLog(path) else { return nil }
        return "\(path) is in write-ahead-log mode, which roundup never sets: reading it as root would create "
            + "files beside it that the service's user could not write, so it is left unread; set it back with "
            + "sqlite3 \(path) 'pragma journal_mode=delete' as the file's owner"
    }

    /// Opens (creating if needed) the ledger at `path`. With `weekZone`, the configured
    /// zone, weeks recorded without their bounds get them (`boundWeeks`). Without `migrates`
    /// (a run that does not hold the state directory's lock) a ledger of an older schema is
    /// refused rather than changed: only the run that holds the lock, which no older
    /// roundup's run then holds, brings it up to date.
    public init(path: String, weekZone: TimeZone? = nil, migrates: Bool = true) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        if !FileManager.default.fileExists(atPath: path) {
            // A new ledger is made whole beside its place and then renamed into it, so a run
            // killed while making it leaves no ledger rather than an empty one.
            let partial = path + ".new"
            unlink(partial)
            let fresh = try DatabaseQueue(path: partial, configuration: configuration)
            _ = try Ledger(database: fresh, weekZone: nil)
            try fresh.close()
            guard rename(partial, path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        }
        try Ledger.refuseIfEmpty(path)
        try self.init(
            database: try DatabaseQueue(path: path, configuration: configuration), weekZone: weekZone,
            migrates: migrates)
    }

    /// The ledger at `path` as it is now, for reading only: copied into memory (and brought
    /// up to the current schema there), so that nothing on disk is created, changed or
    /// locked, and a read-only or missing state directory does not matter. No file gives
    /// an empty ledger.
    public static func readOnlyCopy(of path: String, weekZone: TimeZone? = nil) throws -> Ledger {
        let memory = try DatabaseQueue()
        try refuseIfEmpty(path)
        if FileManager.default.fileExists(atPath: path) {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(10)
            let file = try DatabaseQueue(path: path, configuration: configuration)
            try file.backup(to: memory)
            try file.close()
        }
        return try Ledger(database: memory, weekZone: weekZone)
    }

    /// A ledger file of zero bytes was cut short or damaged (SQLite would take it for a new,
    /// empty ledger and forget every week): refused like any damaged ledger.
    private static func refuseIfEmpty(_ path: String) throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard size != 0 else {
            throw LedgerError.empty(path)
        }
    }

    private init(database: DatabaseQueue, weekZone: TimeZone?, migrates: Bool = true) throws {
        self.database = database
        let migrator = Ledger.migrator
        let unknown = try database.read { db in try migrator.appliedIdentifiers(db) }.subtracting(migrator.migrations)
        if let newest = unknown.sorted(by: Ledger.schemaOrder).last {
            throw LedgerError.newer(schema: newest, known: migrator.migrations.last ?? "none")
        }
        let applied = try database.read { db in try migrator.appliedIdentifiers(db) }
        if !applied.isEmpty, let missing = migrator.migrations.first(where: { !applied.contains($0) }) {
            guard migrates else { throw LedgerError.older(missing: missing) }
            // Two rows of one week whose uids differ only in case are refused before any
            // migration, so that the ledger is left as it was.
            try database.read { db in try Ledger.refuseCaseClash(db) }
        }
        try migrator.migrate(database)
        if !applied.isEmpty, !applied.contains(Ledger.paymentsByIdentity) {
            let twice = try database.read { db in try Ledger.paymentsCountedTwice(db) }
            if twice > 0 {
                notices.append(
                    "the ledger now keeps each payment by its identity: \(twice) payment(s) an earlier roundup "
                        + "counted in two weeks (a feed item uid in another spelling, or settled again later) keep "
                        + "both weeks' records, as history; no week counts them again")
            }
        }
        // An older roundup, or a person, may have written a uid in capitals since v8.
        guard migrates else { return }
        try database.write { db in
            try Ledger.lowerCaseUids(db)
            if let weekZone { try Ledger.boundWeeks(db, in: weekZone) }
        }
    }

    /// Orders migration names by their number: `v10: …` after `v9: …`.
    private static func schemaOrder(_ a: String, _ b: String) -> Bool {
        let number = { (name: String) in Int(name.dropFirst().prefix { $0.isNumber }) ?? 0 }
        return (number(a), a) < (number(b), b)
    }

    /// Returns once no write is under way (a write that starts later waits for nothing).
    public func settle() { try? database.writeWithoutTransaction { (_: Database) throws in } }

    /// `text` cut to what a column of free text keeps: 1,000 characters, room for the
    /// longest reason the job writes with the bank's names in it.
    static func clip(_ text: String) -> String { String(text.prefix(1000)) }
}

/// The ledger holds something it never writes.
public enum LedgerError: Error, CustomStringConvertible {
    case corrupt(String)
    /// An update found the week in another state than it expects.
    case unchanged(String)
    /// The ledger file has no bytes at all.
    case empty(String)
    /// A newer roundup changed the ledger's schema (`schema`, its newest change) beyond
    /// what this one knows (`known`): reading or writing it could lose what it added.
    case newer(schema: String, known: String)
    /// The ledger's schema lacks `missing`, and the opener may not change it: it does not
    /// hold the state directory's lock.
    case older(missing: String)

    public var description: String {
        switch self {
        case .corrupt(let what): "the ledger holds an unreadable \(what)"
        case .unchanged(let week): "the ledger's entry for \(week) is not in the state this change expects"
        case .empty(let path):
            "the ledger \(path) is empty (0 bytes): it was cut short or damaged; restore it from a backup, or move "
                + "it aside to start a new one"
        case .older(let missing):
            "the ledger's schema is older than this roundup's (it lacks '\(missing)'), and only a run that holds the "
                + "state directory's lock brings it up to date"
        case .newer(let schema, let known):
            "the ledger was written by a newer roundup: its schema is at '\(schema)', and this roundup (\(roundupVersion)) "
                + "knows up to '\(known)'; run the newer roundup, or restore a ledger this one wrote"
        }
    }
}
