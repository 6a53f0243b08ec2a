import Foundation

/// The checks on where roundup sends requests: the bank's base URL, the proxy in front of
/// it, the certificate authorities it trusts and the monitor's ping URL.
public enum BankAddress {
    public static let productionURL = "https://api.starlingbank.com"
    public static let sandboxURL = "https://api-sandbox.starlingbank.com"

    /// Which bank a base URL is, by its host, however it is spelt.
    public enum Bank: Sendable {
        case live, sandbox, other
    }

    /// What to add when the sandbox refuses a token.
    package static let sandboxTokenHint = "; sandbox tokens last 24 hours: make a new one in the developer portal"

    public static func bank(of baseURL: String) -> Bank {
        switch URLComponents(string: baseURL)?.host?.lowercased() {
        case "api.starlingbank.com": .live
        case "api-sandbox.starlingbank.com": .sandbox
        default: .other
        }
    }

    /// Plain http is allowed only to this machine; anything else must be https.
    static func checkBaseURL(_ text: String, origin: SettingsError.Origin) throws(SettingsError) {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else {
            throw SettingsError(origin: origin, message: "API base URL '\(text)' is not a URL like \(productionURL)")
        }
        switch scheme {
        case "https":
            return
        case "http" where isLoopback(host):
            return
        case "http":
            throw SettingsError(
                origin: origin,
                message: "API base URL '\(text)': https is required (plain http is allowed only to a loopback host)")
        default:
            throw SettingsError(origin: origin, message: "API base URL '\(text)' must start with https://")
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// The proxy for `url`: none for a host on this machine (a token sent over plain http
    /// must not pass through anything), else `https_proxy`, `HTTPS_PROXY`, `all_proxy` or
    /// `ALL_PROXY` unless `no_proxy` (or `NO_PROXY`) names the host.
    static func proxy(for url: String, environment env: (String) -> String?) -> String {
        guard let host = URLComponents(string: url)?.host?.lowercased(), !isLoopback(host),
            url.lowercased().hasPrefix("https:")
        else { return "" }
        let bypass = (env("no_proxy") ?? env("NO_PROXY") ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        for entry in bypass where !entry.isEmpty {
            let name = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            if entry == "*" || host == name || host.hasSuffix("." + name) { return "" }
        }
        return env("https_proxy") ?? env("HTTPS_PROXY") ?? env("all_proxy") ?? env("ALL_PROXY") ?? ""
    }

    /// `caFile`, else `ROUNDUP_CA_FILE`, else libcurl's and OpenSSL's usual `CURL_CA_BUNDLE`
    /// and `SSL_CERT_FILE`; it must be readable.
    static func caFile(_ sources: SettingSources) throws(SettingsError) -> String? {
        let choices: [(String?, String, SettingsError.Origin)] = [
            (sources.file.caFile, "caFile", .file),
            (sources.environment("ROUNDUP_CA_FILE"), "ROUNDUP_CA_FILE", .environment),
            (sources.environment("CURL_CA_BUNDLE"), "CURL_CA_BUNDLE", .environment),
            (sources.environment("SSL_CERT_FILE"), "SSL_CERT_FILE", .environment),
        ]
        guard let (value, name, origin) = choices.first(where: { $0.0 != nil }), let value else { return nil }
        let path = sources.locations.expand(value)
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw SettingsError(
                origin: origin, message: "\(name): the certificate authorities file \(path) cannot be read")
        }
        return path
    }

    /// A ping URL must be http or https with a host; it is never echoed whole. Uptime
    /// Kuma's push URL is taken as Kuma shows it, `?status=up&msg=OK&ping=` and all: the
    /// query is roundup's to write, and goes.
    static func checkedPingURL(_ text: String) throws(SettingsError) -> String {
        var text = text
        if var kuma = URLComponents(string: text),
            Ping.isUptimeKuma(path: kuma.path),
            kuma.fragment == nil, (kuma.queryItems ?? []).allSatisfy({ ["status", "msg", "ping"].contains($0.name) })
        {
            kuma.query = nil
            text = kuma.string ?? text
        }
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host?.isEmpty == false, url.query == nil, url.fragment == nil
        else {
            throw SettingsError(
                origin: .file,
                message: "notify.pingURL (or ROUNDUP_PING_URL) must be an http or https URL without a query or a "
                    + "#fragment, such as https://hc-ping.com/<uuid>")
        }
        var trimmed = text
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }
}
