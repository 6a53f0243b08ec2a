import CurlHTTP
import Logging
import StarlingAPI

/// roundup's version, sent in `User-Agent` and written in reports.
public let roundupVersion = "0.1.0"

extension BankClient {
    /// A client for the bank `settings` name, through libcurl with `lanes` connections,
    /// sending `token` and retrying as `retrier` says.
    static func connect(
        settings: Settings, token: AccessToken, lanes: Int, retrier: Retrier, logger: Logger
    ) throws(RunFailure) -> BankClient {
        let transport: CurlHTTPClient
        do {
            transport = try CurlHTTPClient(
                configuration: CurlHTTPConfiguration(
                    requestTimeout: settings.requestTimeout, lanes: lanes, userAgent: "roundup/\(roundupVersion)"))
        } catch {
            throw RunFailure(.unavailable, error.message)
        }
        return BankClient(
            baseURL: settings.apiBaseURL, token: token, transport: transport, retrier: retrier, logger: logger)
    }
}
