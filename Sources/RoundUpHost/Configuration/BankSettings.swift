public import CurlHTTP

/// Where the bank is and how it is talked to: its address, the token file, the
/// certificate authorities and proxy, timeouts, retries, pacing and concurrency.
public struct BankSettings: Sendable {
    public var apiBaseURL: String
    public var tokenFile: String?
    /// The certificate authorities to trust instead of the system's (a PEM file).
    public var caFile: String?
    /// The proxy requests go through ("" for none): from `https_proxy` or `all_proxy` for an
    /// https bank unless `no_proxy` names it; never for a bank on this machine.
    public var proxy: String
    /// `SSLKEYLOGFILE`, where libcurl would write the TLS secrets that decrypt the token.
    public var keyLogFile: String?
    /// How long one request may take before it counts as timed out (and is retried).
    public var requestTimeout: Duration
    /// How long a whole run may take: after it, no new request starts (exit 75).
    public var runTimeout: Duration
    /// How failed requests are tried again.
    public var retryPolicy: RetryPolicy
    /// How many requests may be in flight at once.
    public var concurrency: Int
    /// Requests a second the run keeps under, retries included.
    public var maxRequestsPerSecond: Int
    /// Requests a UTC day the bank allows the token; a catch-up stops before it passes 80 %.
    public var maxRequestsPerDay: Int
    /// How the job allows for the bank's clock and pace when it looks for its own transfers.
    public var feedSearch: FeedSearchWaits
}

/// How the job allows for the bank's clock and pace when it looks in the feed for its own
/// transfers.
public struct FeedSearchWaits: Sendable, Equatable {
    /// How far the bank's clock may be from this machine's when its answers carry no `Date`
    /// to read it by (`BankTime`): feed searches reach this much further back and forward.
    public var clockSkewMargin: Duration = .seconds(600)
    /// After a transfer whose outcome is unknown, how long to wait before reading the feed
    /// a second time.
    public var feedRecheck: Duration = .seconds(10)
    /// How long after a send whose outcome is unknown a later run (or `resolve --retry`)
    /// waits, on the bank's clock, before a feed that shows nothing lets it send again.
    public var feedSettle: Duration = .seconds(15 * 60)

    public init() {}

    public init(clockSkewMargin: Duration, feedRecheck: Duration, feedSettle: Duration = .seconds(15 * 60)) {
        self.clockSkewMargin = clockSkewMargin
        self.feedRecheck = feedRecheck
        self.feedSettle = feedSettle
    }
}

extension BankSettings {
    package static func resolve(_ sources: SettingSources) throws(SettingsError) -> BankSettings {
        let file = sources.file
        let baseURL = try baseURL(sources)
        let standard = RetryPolicy.standard
        let retryPolicy = RetryPolicy(
            maxAttempts: try file.bounded(file.retryAttempts, "retryAttempts", 1...20) ?? standard.maxAttempts,
            initialDelay: try file.bounded(file.retryFirstDelayMilliseconds, "retryFirstDelayMilliseconds", 0...60_000)
                .map { .milliseconds($0) } ?? standard.initialDelay,
            maxDelay: try file.bounded(file.retryMaxDelaySeconds, "retryMaxDelaySeconds", 0...3600)
                .map { .seconds($0) } ?? standard.maxDelay,
            maxRetryAfter: try file.bounded(file.retryAfterLimitSeconds, "retryAfterLimitSeconds", 0...3600)
                .map { .seconds($0) } ?? standard.maxRetryAfter,
            runRetries: standard.runRetries, runWait: standard.runWait)
        let waits = FeedSearchWaits()
        return BankSettings(
            apiBaseURL: baseURL,
            tokenFile: sources.first(environment: "ROUNDUP_TOKEN_FILE", file: file.tokenFile).map {
                sources.locations.expand($0.value)
            },
            caFile: try BankAddress.caFile(sources),
            proxy: BankAddress.proxy(for: baseURL, environment: sources.environment),
            keyLogFile: sources.environment("SSLKEYLOGFILE"),
            requestTimeout: .seconds(
                try file.bounded(file.requestTimeoutSeconds, "requestTimeoutSeconds", 1...600) ?? 60),
            runTimeout: .seconds(try runTimeoutSeconds(sources)),
            retryPolicy: retryPolicy,
            concurrency: try file.bounded(file.concurrency, "concurrency", 1...32) ?? 4,
            maxRequestsPerSecond: try rate(sources),
            maxRequestsPerDay: try file.bounded(file.maxRequestsPerDay, "maxRequestsPerDay", 10...10_000_000) ?? 1000,
            feedSearch: FeedSearchWaits(
                clockSkewMargin: try file.bounded(file.clockSkewMarginSeconds, "clockSkewMarginSeconds", 0...3600)
                    .map { .seconds($0) } ?? waits.clockSkewMargin,
                feedRecheck: try file.bounded(file.feedRecheckSeconds, "feedRecheckSeconds", 0...300)
                    .map { .seconds($0) } ?? waits.feedRecheck,
                feedSettle: try file.bounded(file.feedSettleMinutes, "feedSettleMinutes", 0...1440)
                    .map { .seconds($0 * 60) } ?? waits.feedSettle))
    }

    /// The flag's, else the environment's, else the file's base URL, else the bank's
    /// production (or, with `sandbox: true`, sandbox) API.
    private static func baseURL(_ sources: SettingSources) throws(SettingsError) -> String {
        let given = sources.first(
            flag: sources.flags.apiBaseURL, environment: "ROUNDUP_API_BASE_URL", file: sources.file.apiBaseURL)
        let (baseURL, origin) =
            given ?? (sources.file.sandbox == true ? BankAddress.sandboxURL : BankAddress.productionURL, .file)
        try BankAddress.checkBaseURL(baseURL, origin: origin)
        return baseURL
    }

    /// The environment's, else the file's `runTimeoutSeconds`, else 1800 (half an hour).
    private static func runTimeoutSeconds(_ sources: SettingSources) throws(SettingsError) -> Int {
        let range = 1...86_400
        guard let environment = sources.environment("ROUNDUP_RUN_TIMEOUT_SECONDS") else {
            return try sources.file.bounded(sources.file.runTimeoutSeconds, "runTimeoutSeconds", range) ?? 1800
        }
        guard let value = WholeNumber.decimal(environment), range.contains(value) else {
            throw SettingsError(
                origin: .environment,
                message: "ROUNDUP_RUN_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 86400, not "
                    + "'\(environment)'")
        }
        return value
    }

    /// The environment's, else the file's `maxRequestsPerSecond`, else 5.
    private static func rate(_ sources: SettingSources) throws(SettingsError) -> Int {
        let range = 1...10_000
        guard let environment = sources.environment("ROUNDUP_MAX_REQUESTS_PER_SECOND") else {
            return try sources.file.bounded(sources.file.maxRequestsPerSecond, "maxRequestsPerSecond", range) ?? 5
        }
        guard let value = WholeNumber.decimal(environment), range.contains(value) else {
            throw SettingsError(
                origin: .environment,
                message: "ROUNDUP_MAX_REQUESTS_PER_SECOND must be a whole number from 1 to 10000, not '\(environment)'")
        }
        return value
    }
}
