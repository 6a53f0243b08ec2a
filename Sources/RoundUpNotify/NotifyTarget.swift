import Foundation

/// One place `notify.to` names, in Apprise's URL syntax: an ntfy topic, a Gotify
/// application, a URL that takes a small JSON object, or any other scheme, which the
/// `apprise` command is handed. Parsed when the settings are loaded, so that a mistake is
/// refused (78) before anything is asked of the bank. Everything after the host is taken
/// for a secret: the URL is only ever shown as `shown` (`ntfys://ntfy.example.com/***`).
public struct NotifyTarget: Sendable, Equatable {
    public enum Service: Sendable, Equatable {
        /// `ntfy://`, `ntfys://`: a message published to `topic` on `server` (`https://ntfy.sh`
        /// when the URL names only a topic), as ntfy's JSON publishing takes it.
        case ntfy(server: String, topic: String, auth: Authorization?, priority: Int?, tags: [String])
        /// `gotify://`, `gotifys://`: a message to the application whose token is `token`, at
        /// `endpoint` (`…/message`).
        case gotify(endpoint: String, token: String, priority: Int?)
        /// `json://`, `jsons://`: roundup's small JSON object, POSTed to `endpoint`, with the
        /// URL's `+Header=value` parameters as headers.
        case json(endpoint: String, auth: Authorization?, headers: [Header])
        /// Any other scheme: handed to the `apprise` command, through its environment.
        case apprise(url: String)
    }

    public enum Authorization: Sendable, Equatable {
        case basic(user: String, password: String)
        case bearer(String)
    }

    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public let service: Service
    /// The URL as output may show it: its scheme and host, the rest `***`.
    public let shown: String
    /// The proxy its requests go through ("" for none), by the same rules as the bank's.
    public var proxy = ""

    /// The URL its requests go to; nil for the `apprise` command, which makes its own.
    public var endpoint: String? {
        switch service {
        case .ntfy(let server, _, _, _, _): server
        case .gotify(let endpoint, _, _), .json(let endpoint, _, _): endpoint
        case .apprise: nil
        }
    }

    /// The schemes handled here, without any other program.
    public static let builtIn: Set<String> = ["ntfy", "ntfys", "gotify", "gotifys", "json", "jsons"]

    /// ntfy's own service, for a URL that names only a topic (`ntfy://roundup-alerts`).
    static let ntfyCloud = "https://ntfy.sh"

    /// Why a URL of `notify.to` cannot be used, in words that never quote its secrets.
    public struct Problem: Error, Equatable, Sendable {
        public let message: String
        public init(_ message: String) { self.message = message }
    }

    /// Parses `text`; `readSecret` reads a `tokenFile=` parameter's file (only this user's,
    /// as the token file), and `appriseFound` says whether another scheme can be handed to
    /// the `apprise` command.
    public static func parse(
        _ text: String, readSecret: (String) throws(Problem) -> String, appriseFound: () -> Bool
    ) throws(Problem) -> NotifyTarget {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let colon = trimmed.range(of: "://"), !trimmed[..<colon.lowerBound].isEmpty else {
            throw Problem("a notify.to entry is not a URL (scheme://…), such as ntfys://ntfy.example.com/topic")
        }
        let scheme = trimmed[..<colon.lowerBound].lowercased()
        guard scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else {
            throw Problem("a notify.to entry does not start with a scheme (letters, digits, + - or . before ://)")
        }
        guard trimmed.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            throw Problem("the notify.to URL for \(scheme):// has a space or a control character in it")
        }
        guard builtIn.contains(scheme) else {
            guard appriseFound() else {
                throw Problem(
                    "notify.to has a \(scheme):// URL, which roundup sends through the apprise command, and apprise "
                        + "is not installed (pip install apprise, or apt install apprise); roundup itself sends "
                        + "ntfy://, ntfys://, gotify://, gotifys://, json:// and jsons://")
            }
            return NotifyTarget(service: .apprise(url: trimmed), shown: "\(scheme)://***")
        }
        guard let url = URLComponents(string: trimmed), let host = url.host, !host.isEmpty else {
            throw Problem("the notify.to URL for \(scheme):// is not a URL with a host roundup can read")
        }
        let secure = scheme.hasSuffix("s")
        let base = "\(secure ? "https" : "http")://\(bracketed(host))\(url.port.map { ":\($0)" } ?? "")"
        let shown = "\(scheme)://\(bracketed(host))\(url.port.map { ":\($0)" } ?? "")/***"
        var query = Query(url.queryItems ?? [], scheme: scheme)
        // Split as written, so that an escaped slash stays inside its part.
        let path = url.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true).map {
            $0.removingPercentEncoding ?? String($0)
        }
        let service: Service
        var shownAs = shown
        switch scheme {
        case "ntfy", "ntfys":
            service = try ntfy(url: url, host: host, base: base, path: path, query: &query, readSecret: readSecret)
            // `ntfy://topic`: the host is the topic, and a secret.
            if path.isEmpty { shownAs = "\(scheme)://ntfy.sh/***" }
        case "gotify", "gotifys":
            service = try gotify(base: base, path: path, query: &query, readSecret: readSecret, scheme: scheme)
        default:
            service = .json(
                endpoint: base + (url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath),
                auth: userAuthorization(url, bearerWithoutPassword: false),
                headers: query.headers())
        }
        try query.refuseTheRest()
        try refuseControlCharacters(in: service, scheme: scheme)
        return NotifyTarget(service: service, shown: shownAs)
    }

    private static func ntfy(
        url: URLComponents, host: String, base: String, path: [String], query: inout Query,
        readSecret: (String) throws(Problem) -> String
    ) throws(Problem) -> Service {
        // `ntfy://topic` is a topic on ntfy.sh; `ntfy://host/topic` one on that server.
        let (server, topic) = path.isEmpty ? (ntfyCloud, host) : (base, path[0])
        guard path.count <= 1 else {
            throw Problem(
                "the notify.to URL for \(url.scheme ?? "ntfy"):// names more than one topic: give each its own URL")
        }
        guard (1...64).contains(topic.count),
            topic.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else {
            throw Problem(
                "the notify.to URL for \(url.scheme ?? "ntfy"):// names a topic ntfy does not take: letters, digits, - and _, "
                    + "at most 64")
        }
        var auth = userAuthorization(url, bearerWithoutPassword: true)
        if let token = query.take("token") { auth = .bearer(token) }
        if let file = query.take("tokenFile") { auth = .bearer(try readSecret(file)) }
        let priority = try query.take("priority").map { (value) throws(Problem) in try ntfyPriority(value) }
        let tags = query.take("tags").map { $0.split(separator: ",").map { String($0) } } ?? []
        _ = query.take("auth")
        return .ntfy(server: server, topic: topic, auth: auth, priority: priority, tags: tags)
    }

    private static func gotify(
        base: String, path: [String], query: inout Query, readSecret: (String) throws(Problem) -> String,
        scheme: String
    ) throws(Problem) -> Service {
        var path = path
        let token: String
        if let file = query.take("tokenFile") {
            token = try readSecret(file)
        } else if let last = path.popLast() {
            token = last
        } else {
            throw Problem(
                "the notify.to URL for \(scheme):// has no application token: \(scheme)://host/TOKEN, or "
                    + "\(scheme)://host/?tokenFile=PATH")
        }
        let priority = try query.take("priority").map { (value) throws(Problem) in try gotifyPriority(value) }
        let prefix = path.map { "/" + ($0.addingPercentEncoding(withAllowedCharacters: unreserved) ?? $0) }
        return .gotify(endpoint: base + prefix.joined() + "/message", token: token, priority: priority)
    }

    /// The URL's `user:password@`, as basic authorization; for ntfy, a user alone that
    /// starts `tk_` is an access token (`ntfys://tk_…@host/topic`).
    private static func userAuthorization(_ url: URLComponents, bearerWithoutPassword: Bool) -> Authorization? {
        guard let user = url.user, !user.isEmpty else { return nil }
        if let password = url.password { return .basic(user: user, password: password) }
        // As Apprise reads it: a user alone that looks like an ntfy access token is one.
        guard bearerWithoutPassword, user.hasPrefix("tk_") else { return .basic(user: user, password: "") }
        return .bearer(user)
    }

    /// ntfy's priorities, 1 to 5, by number or by the names ntfy and Apprise give them.
    static func ntfyPriority(_ value: String) throws(Problem) -> Int {
        let names = ["min": 1, "low": 2, "moderate": 2, "default": 3, "normal": 3, "high": 4, "max": 5, "emergency": 5]
        if let number = Int(value), (1...5).contains(number) { return number }
        if let named = names[value.lowercased()] { return named }
        throw Problem("an ntfy priority is 1 to 5, or min, low, default, high or max")
    }

    /// Gotify's priorities, 0 to 10, by number or by Apprise's names.
    static func gotifyPriority(_ value: String) throws(Problem) -> Int {
        let names = ["low": 1, "moderate": 3, "normal": 5, "high": 8, "emergency": 10]
        if let number = Int(value), (0...10).contains(number) { return number }
        if let named = names[value.lowercased()] { return named }
        throw Problem("a Gotify priority is 0 to 10, or low, moderate, normal, high or emergency")
    }

    /// A token, password, topic or header that would carry a control character (a CR or LF
    /// decoded from `%0D%0A`, or read from a token file) into a request's headers is refused:
    /// it would write headers of its own.
    private static func refuseControlCharacters(in service: Service, scheme: String) throws(Problem) {
        var values: [String] = []
        switch service {
        case .ntfy(_, let topic, let auth, _, let tags): values = [topic] + tags + authorizationValues(auth)
        case .gotify(let endpoint, let token, _): values = [endpoint, token]
        case .json(let endpoint, let auth, let headers):
            values = [endpoint] + authorizationValues(auth) + headers.flatMap { [$0.name, $0.value] }
        case .apprise: return
        }
        for value in values where value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw Problem(
                "the notify.to URL for \(scheme):// has a control character (such as a new line) in a token, a "
                    + "password, a topic or a header, as written or from its tokenFile")
        }
    }

    private static func authorizationValues(_ auth: Authorization?) -> [String] {
        switch auth {
        case .none: []
        case .bearer(let token): [token]
        case .basic(let user, let password): [user, password]
        }
    }

    /// The characters a path's part may hold as they are (RFC 3986's unreserved).
    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// An IPv6 host in brackets, as a URL writes it (Foundation gives it with them, or not).
    private static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }

    /// A URL's parameters, taken one by one: any left over is refused, by name.
    private struct Query {
        var items: [URLQueryItem]
        let scheme: String

        init(_ items: [URLQueryItem], scheme: String) {
            self.items = items
            self.scheme = scheme
        }

        mutating func take(_ name: String) -> String? {
            guard let index = items.firstIndex(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) else {
                return nil
            }
            return items.remove(at: index).value ?? ""
        }

        /// `+Name=value` parameters, as headers (Apprise's json://).
        mutating func headers() -> [Header] {
            let headers = items.filter { $0.name.hasPrefix("+") && $0.name.count > 1 }
            items.removeAll { $0.name.hasPrefix("+") && $0.name.count > 1 }
            return headers.map { Header(name: String($0.name.dropFirst()), value: $0.value ?? "") }
        }

        /// Apprise's parameters for every service that change nothing roundup sends: taken and
        /// left aside, so that a URL copied from another tool works.
        static let ignored: Set<String> = ["format", "overflow", "emojis", "rto", "cto", "store", "tz", "method"]

        func refuseTheRest() throws(Problem) {
            if let verify = items.first(where: { $0.name.lowercased() == "verify" }),
                ["no", "false", "0"].contains((verify.value ?? "").lowercased())
            {
                throw Problem(
                    "the notify.to URL for \(scheme):// asks not to verify the server's certificate (verify=no): roundup "
                        + "always does; give caFile the authority that signed it instead")
            }
            if let method = items.first(where: { $0.name.lowercased() == "method" }),
                (method.value ?? "").uppercased() != "POST"
            {
                throw Problem(
                    "the notify.to URL for \(scheme):// asks for another method than POST, which roundup sends")
            }
            let rest = items.filter {
                !Query.ignored.contains($0.name.lowercased()) && !($0.name.lowercased() == "verify")
            }
            guard !rest.isEmpty else { return }
            let known: String
            switch scheme {
            case "ntfy", "ntfys": known = "priority, tags, token and tokenFile"
            case "gotify", "gotifys": known = "priority and tokenFile"
            default: known = "+Header=value"
            }
            // Not named: a parameter's name may be a secret pasted in the wrong place.
            throw Problem(
                "the notify.to URL for \(scheme):// has \(rest.count == 1 ? "a parameter" : "parameters") roundup does "
                    + "not know: it takes \(known) (and Apprise's format, overflow, emojis, rto, cto, store, tz and "
                    + "verify=yes, which change nothing it sends)")
        }
    }
}
