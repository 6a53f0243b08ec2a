/// The process exit codes, from sysexits.
public enum ExitStatus: Int32, Sendable, Codable, CaseIterable {
    case ok = 0
    /// Bad flags or arguments, or a week that has not ended.
    case usage = 64
    /// The bank sent data the job cannot use.
    case dataError = 65
    /// The bank could not be reached or kept failing.
    case unavailable = 69
    /// Output could not be written (a full disk); the ledger was already committed.
    case ioError = 74
    /// Try again later: another run holds the lock, or the bank asked us to slow down.
    case temporaryFailure = 75
    /// The token was rejected or lacks a needed scope.
    case permissionDenied = 77
    /// The configuration cannot be used, or a week is held until a person decides.
    case configuration = 78

    /// A failure that may pass by itself, so a scheduler should run the job again.
    public var mayPass: Bool { self == .unavailable || self == .temporaryFailure }

    /// The status of a run made of several outcomes: one that may pass wins, so that the
    /// scheduler runs the job again (a held week stays held meanwhile); otherwise the
    /// first failure.
    public static func overall(_ statuses: [ExitStatus]) -> ExitStatus {
        statuses.first(where: \.mayPass) ?? statuses.first { $0 != .ok } ?? .ok
    }

}
