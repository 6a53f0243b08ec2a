public import Foundation
public import RoundUp
import RoundUpReports

/// Which payments count and how much of their round-up moves: the week's time zone, the
/// selection, the policy, minimum balances, the bank's own round-up and account types.
public struct RuleSettings: Sendable {
    public var timeZone: TimeZone
    /// The day scheduled weeks end on, in `timeZone`: a plain run and each week of a
    /// catch-up round up weeks ending on it.
    public var weekEndsOn: Weekday
    public var selection: SelectionRule
    public var policy: RoundUpPolicy
    /// Balances the week's transfer must not cut into, by currency code.
    public var minimumBalances: [String: MinimumBalance]
    /// What to do with an account where the bank's own round-up is switched on.
    public var nativeRoundUp: NativeRoundUp
    /// The types of account worked on (`PRIMARY`, `ADDITIONAL`…); others are skipped.
    public var accountTypes: [String]
    /// Whether a transfer may take the account into its overdraft.
    public var overdraft: Overdraft
    /// When pay arrives: the forecast counts what the bank will take until then. Without
    /// it, the next seven days.
    public var payday: Payday?
    /// Whether what the bank has scheduled before payday is counted before money moves.
    public var upcomingPayments: UpcomingPayments

    public static let defaultAccountTypes = ["PRIMARY", "ADDITIONAL"]
}

/// Whether the week's transfer may take the account into its overdraft, where the saver
/// would pay fees to save pennies.
public enum Overdraft: String, CaseIterable, Sendable {
    /// Move only what leaves the account out of overdraft: the bank is asked first
    /// (confirmation of funds), or with only `balance:read` the balance is read.
    case avoid
    /// Move without asking.
    case allow
}

/// Whether the payments the bank has scheduled before payday (standing orders, direct
/// debits, goals' recurring transfers) are taken from the balance the week's transfer is
/// measured against.
public enum UpcomingPayments: String, CaseIterable, Sendable {
    /// Counted: the transfer keeps the balance after them at or above the minimum, or zero.
    case count
    /// Not read at all: the transfer is measured against today's balance.
    case ignore
}

/// What to do with an account where the bank's own round-up is switched on: running both
/// saves the same spending twice.
public enum NativeRoundUp: String, CaseIterable, Sendable {
    /// Skip the account, with a warning.
    case skip
    /// Go on: the payments the bank rounded up are still left out one by one.
    case allow
}

extension RuleSettings {
    package static func resolve(_ sources: SettingSources) throws(SettingsError) -> RuleSettings {
        let file = sources.file
        let weeklyCaps = try file.amounts("weeklyCap", file.weeklyCap)
        let policy: RoundUpPolicy
        do throws(PolicyError) {
            policy = try RoundUpPolicy(
                multiplier: file.multiplier?.value ?? 1, weeklyCaps: weeklyCaps.mapValues(\.amount),
                wholeAmountsSaveAUnit: file.wholeAmountsSaveAUnit ?? false, roundTo: file.roundTo?.value ?? 1)
        } catch {
            throw SettingsError(origin: .file, message: error.description)
        }
        let whenBelow = try file.choice(file.belowMinimumBalance, "belowMinimumBalance", default: BelowMinimum.reduce)
        return RuleSettings(
            timeZone: try timeZone(sources),
            weekEndsOn: try file.choice(file.weekEndsOn, "weekEndsOn", default: Weekday.defaultWeekEnd),
            selection: SelectionRule(
                excludedSources: Set(try file.checked(file.excludeSources, "excludeSources", BankValues.sources)),
                excludedSpendingCategories: Set(
                    try file.checked(
                        file.excludeSpendingCategories, "excludeSpendingCategories", BankValues.spendingCategories)),
                spending: try file.choice(file.spending, "spending", default: .all)),
            policy: policy,
            minimumBalances: try file.amounts("minimumBalance", file.minimumBalance).mapValues {
                MinimumBalance(minimum: $0, whenBelow: whenBelow)
            },
            nativeRoundUp: try file.choice(file.nativeRoundUp, "nativeRoundUp", default: .skip),
            accountTypes: try accountTypes(file),
            overdraft: try file.choice(file.overdraft, "overdraft", default: .avoid),
            payday: try payday(file.payday),
            upcomingPayments: try file.choice(file.upcomingPayments, "upcomingPayments", default: .count))
    }

    /// The payday the file names, if any.
    private static func payday(_ text: String?) throws(SettingsError) -> Payday? {
        guard let text else { return nil }
        do throws(PaydayError) {
            return try Payday(parsing: text)
        } catch {
            throw SettingsError(origin: .file, message: "payday: \(printable(error.description))")
        }
    }

    /// Whether a run reads what the bank has scheduled before payday: when it is counted, and
    /// a rule measures the transfer against the balance (a minimum balance, or keeping out of
    /// overdraft).
    public var readsSchedule: Bool {
        upcomingPayments == .count && (overdraft == .avoid || !minimumBalances.isEmpty)
    }

    /// The account types to work on (`PRIMARY` and `ADDITIONAL` unless the file says), each
    /// one the bank defines.
    private static func accountTypes(_ file: ConfigFile) throws(SettingsError) -> [String] {
        guard let accountTypes = file.accountTypes else { return defaultAccountTypes }
        guard !accountTypes.isEmpty else {
            throw SettingsError(
                origin: .file, message: "accountTypes must name at least one type, such as [PRIMARY, ADDITIONAL]")
        }
        return try file.checked(accountTypes, "accountTypes", BankValues.accountTypes)
    }

    /// The environment's, else the file's time zone, else London; a region or UTC, never a
    /// fixed offset.
    private static func timeZone(_ sources: SettingSources) throws(SettingsError) -> TimeZone {
        let (given, origin) =
            sources.first(environment: "ROUNDUP_TIME_ZONE", file: sources.file.timeZone)
            ?? (Week.defaultTimeZoneIdentifier, .file)
        // A space pasted after the name is no part of it.
        let zoneName = given.trimmingCharacters(in: .whitespacesAndNewlines)
        // Without the zone files, formatting a time stops the process: said before anything else.
        if let problem = ZoneData.dataProblem() { throw Self.machine(problem.message) }
        guard let timeZone = TimeZone(identifier: zoneName) else {
            throw SettingsError(
                origin: origin,
                message: "time zone '\(zoneName)' is not a known IANA zone such as \(Week.defaultTimeZoneIdentifier)")
        }
        guard isRegionOrUTC(zoneName) else {
            // GMT+5 and Etc/GMT+5 are five hours *behind* UTC (the POSIX sign): people read
            // them both ways, and a region follows its own clock changes.
            let offset = timeZone.secondsFromGMT()
            let continents = ["Europe/", "America/", "Asia/", "Africa/", "Australia/", "Pacific/"]
            let rank = { (name: String) in continents.firstIndex { name.hasPrefix($0) } ?? continents.count }
            let alike = TimeZone.knownTimeZoneIdentifiers.filter { name in
                isRegionOrUTC(name) && name != "UTC" && TimeZone(identifier: name)?.secondsFromGMT() == offset
            }.sorted { (rank($0), $0) < (rank($1), $1) }
            throw SettingsError(
                origin: origin,
                message: "time zone '\(zoneName)' is a fixed offset or an old abbreviation, which people read "
                    + "differently; use a region name such as \(alike.first ?? Week.defaultTimeZoneIdentifier), "
                    + "or UTC")
        }
        if let problem = ZoneData.problem(with: timeZone, named: zoneName) {
            // A name the data lacks is the setting's to change; anything else is the machine's.
            throw problem.isTheMachines
                ? Self.machine(problem.message) : SettingsError(origin: origin, message: problem.message)
        }
        return timeZone
    }

    /// A problem with this machine's time zone data, not with a setting.
    private static func machine(_ message: String) -> SettingsError {
        var error = SettingsError(origin: .environment, message: message)
        error.ofTheMachine = true
        return error
    }

    /// `Europe/London`, `America/Argentina/Buenos_Aires` or `UTC`; not `GMT+5`, `Etc/GMT-1`, `EST`.
    private static func isRegionOrUTC(_ name: String) -> Bool {
        name == "UTC" || name == "Etc/UTC"
            || (name.contains("/") && !name.hasPrefix("Etc/") && !name.hasPrefix("SystemV/"))
    }
}
