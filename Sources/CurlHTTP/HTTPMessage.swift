/// An HTTP method the client sends.
public enum HTTPMethod: String, Sendable {
    case get = "GET"
    case put = "PUT"
    case post = "POST"
}

/// One HTTP request. Header values may be secret (the bearer token): the client never
/// prints requests, and `description` shows only the method and URL.
public struct HTTPRequest: Sendable, CustomStringConvertible {
    public var method: HTTPMethod
    public var url: String
    /// Header fields in order, names as written.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// False for a request the server may act on twice if it arrives twice. The transport
    /// then never sends it again on its own (libcurl would, over a reused connection that
    /// broke before the answer); whether to retry is left to the caller.
    public var repeatable: Bool

    public init(
        method: HTTPMethod, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
        repeatable: Bool = true
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.repeatable = repeatable
    }

    public var description: String { "\(method.rawValue) \(url)" }
}

/// One HTTP response, with its body read whole.
public struct HTTPResponse: Sendable {
    /// The status code of the final response (after any interim 1xx responses).
    public var status: Int
    /// Header fields with lower-cased names; a repeated field keeps its last value.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The header value for `name`, in any case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why no HTTP response arrived.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure a caller may treat differently.
    public enum Kind: String, Sendable, Equatable {
        /// No connection could be made (refused, unreachable, name not resolved).
        case couldNotConnect
        /// The connect or total timeout ran out.
        case timedOut
        /// The connection broke, or the server closed it without a complete response.
        case connectionLost
        /// TLS could not be set up or the server's certificate was not trusted.
        case tls
        /// The request itself was unusable (bad URL, a scheme other than http or https).
        case badRequest
        /// The answer was larger than the client reads whole (`maxBodyBytes`).
        case tooLarge
        /// Anything else libcurl reports.
        case other
    }

    public let kind: Kind
    /// What libcurl said, for diagnostics. Never contains header values.
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// Sends HTTP requests. The live transport is `CurlHTTPClient`; tests may supply others
/// for pure logic, but end-to-end tests always use the live one.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, whatever its status.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse

    /// Sends `request`; a successful (2xx) answer's body goes to `consumer` piece by piece
    /// as it arrives and is not kept, so the returned response's body is empty. Any other
    /// answer is returned whole, and `consumer` sees none of it.
    func send(_ request: HTTPRequest, streamingBodyTo consumer: any ResponseBodyConsumer) async throws(TransportError)
        -> HTTPResponse
}

extension HTTPTransport {
    /// For transports that read bodies whole: the consumer gets a 2xx body in one piece.
    public func send(_ request: HTTPRequest, streamingBodyTo consumer: any ResponseBodyConsumer)
        async throws(TransportError) -> HTTPResponse
    {
        var response = try await send(request)
        guard (200..<300).contains(response.status) else { return response }
        _ = response.body.withUnsafeBytes { consumer.consume($0) }
        response.body = []
        return response
    }
}

/// Takes a response body piece by piece, on the transport's thread, while the request is
/// in flight; the request's caller reads the result after `send` returns.
public protocol ResponseBodyConsumer: AnyObject, Sendable {
    /// Takes the next piece of the body; returning false stops the transfer (the consumer
    /// has seen enough to know the body is unusable).
    func consume(_ bytes: UnsafeRawBufferPointer) -> Bool
}
