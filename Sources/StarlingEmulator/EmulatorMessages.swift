import Foundation
public import RoundUp

/// A request as the emulated bank sees it, independent of the HTTP server.
public struct EmulatorRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [String: String]
    /// Header fields with lower-cased names.
    public var headers: [String: String]
    public var body: [UInt8]
    /// The client's end of the connection the request came on (`127.0.0.1:51234`), when known.
    public var connection: String?

    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: [UInt8] = [], connection: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.connection = connection
    }
}

/// The bank's answer.
public struct EmulatorResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]
    /// How long the server waits before it sends the answer.
    public var delay: Duration = .zero
    /// Close the connection instead of answering.
    public var dropConnection = false
    /// The fault injected into this answer, if any.
    public internal(set) var fault: Fault?

    public init(status: Int, headers: [String: String] = ["Content-Type": "application/json"], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    static let dropped: EmulatorResponse = {
        var response = EmulatorResponse(status: 0, headers: [:], body: [])
        response.dropConnection = true
        return response
    }()
}

/// What the emulator saw of one request, for tests to check. Holds no header values
/// except the ones tests assert on, and never the token.
public struct RecordedRequest: Sendable, Hashable {
    public var method: String
    public var path: String
    public var endpoint: Endpoint
    /// The fault injected into this request, if any.
    public var fault: Fault?
    /// When the bank saw the request.
    public var arrived: Instant
    public var query: [String: String]
    public var status: Int
    public var userAgent: String?
    public var accept: String?
    public var authorized: Bool
}
