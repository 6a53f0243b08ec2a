package import CurlHTTP
import Foundation
package import Logging
package import RoundUp
package import RoundUpHost
package import RoundUpVocabulary
package import StarlingAPI

extension BankClient {
    /// A client for the bank `bank` names, through libcurl with `lanes` connections,
    /// sending `token`, retrying as `retryPolicy` says and measuring `Retry-After` dates by
    /// `clock`.
    package static func connect(
        bank: BankSettings, token: AccessToken, lanes: Int, retryPolicy: RetryPolicy,
        clock: @escaping @Sendable () -> Instant, logger: Logger
    ) throws(CommandFailure) -> BankClient {
        let transport: CurlHTTPClient
        do {
            transport = try CurlHTTPClient(
                configuration: CurlHTTPConfiguration(
                    requestTimeout: bank.requestTimeout, lanes: lanes, userAgent: "roundup/\(roundupVersion)",
                    caFile: bank.caFile, proxy: bank.proxy))
        } catch {
            throw CommandFailure(.unavailable, error.message)
        }
        return BankClient(
            baseURL: bank.apiBaseURL, token: token, transport: transport,
            retrier: Retrier(policy: retryPolicy, clock: InjectedRetryClock(clock: clock)),
            pacer: RequestPacer(perSecond: bank.maxRequestsPerSecond), deadline: RunDeadline(bank.runTimeout),
            logger: logger)
    }

    /// `SSLKEYLOGFILE` makes libcurl write the TLS secrets that decrypt the token into a
    /// file: a run that can move money refuses to start; one that cannot (a dry run, a
    /// check) goes on without it (the composition root unsets it) and says so.
    package static func guardKeyLog(_ bank: BankSettings, movesMoney: Bool) throws(CommandFailure) -> String? {
        guard let path = bank.keyLogFile else { return nil }
        let why =
            "SSLKEYLOGFILE is set (\(path)): libcurl would write there the TLS secrets that decrypt the access token"
        guard !movesMoney else { throw CommandFailure(.configuration, "\(why); unset it to run") }
        return "\(why); this run ignores it, and a real run refuses to start"
    }
}

/// Retries on the run's own clock, so that `Retry-After` dates are read against the time
/// the composition root gives rather than the machine's.
struct InjectedRetryClock: RetryClock {
    let clock: @Sendable () -> Instant

    func now() -> Date { clock().date }
    func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}

/// What one account-week asks the bank, each failure being the account's.
extension BankClient {
    /// Whether moving `amount` would overdraw `account`, as the bank says; nil when it does not say.
    func wouldOverdraw(_ account: Account, _ amount: Money) async throws(AccountFailure) -> Bool? {
        try await AccountFailure.bankCall { () async throws(BankError) in
            try await wouldOverdraw(accountUid: account.uid, minorUnits: amount.minorUnits)
        }
    }

    /// The account's effective balance now, in `currency`.
    package func balance(of account: Account, in currency: Currency) async throws(AccountFailure) -> Money {
        let balance = try await AccountFailure.bankCall { () async throws(BankError) in
            try await self.balance(accountUid: account.uid).effectiveBalance
        }
        guard balance.currency == currency.code else {
            throw AccountFailure(
                .dataError,
                "the bank gave the balance in '\(balance.currency.prefix(12))', but the account is in "
                    + "\(currency.code); nothing was moved for this account")
        }
        return Money(minorUnits: balance.minorUnits, currency: currency)
    }
}

extension AccountFailure {
    /// `body`'s result, with a bank error becoming the account's failure.
    package static func bankCall<T>(_ body: () async throws(BankError) -> T) async throws(AccountFailure) -> T {
        do {
            return try await body()
        } catch {
            throw AccountFailure(ExitStatus(error), error.description)
        }
    }
}
