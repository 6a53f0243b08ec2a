import FlyingFox
import FlyingSocks
import Foundation

/// The emulated bank served over real HTTP on the loopback interface.
public final class EmulatorServer: Sendable {
    /// The bank behind the server; tests inspect and change it.
    public let bank: EmulatedBank
    /// The port the server listens on.
    public let port: UInt16
    private let server: HTTPServer
    private let task: Task<Void, any Error>
    /// Where every exchange is written, when asked for.
    public let traffic: TrafficLog?

    /// The base URL to give the job: `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private init(
        bank: EmulatedBank, port: UInt16, server: HTTPServer, task: Task<Void, any Error>, traffic: TrafficLog?
    ) {
        self.bank = bank
        self.port = port
        self.server = server
        self.task = task
        self.traffic = traffic
    }

    /// Starts serving `bank` on 127.0.0.1:`port`; port 0 picks a free one. With `traffic`,
    /// every exchange is written there.
    public static func start(bank: EmulatedBank, port: UInt16 = 0, traffic: TrafficLog? = nil) async throws
        -> EmulatorServer
    {
        let server = HTTPServer(
            config: HTTPServer.Configuration(
                address: try sockaddr_in.inet(ip4: "127.0.0.1", port: port),
                pool: NoDelayPool(inner: HTTPServer.defaultPool()), logger: .disabled))
        await server.appendRoute("*") { request in
            try await EmulatorServer.respond(to: request, bank: bank, traffic: traffic)
        }
        let task = Task { try await server.run() }
        // Generous: on a busy machine the server's task may wait a while for a thread.
        try await server.waitUntilListening(timeout: 60)
        guard case .ip4(_, let boundPort) = await server.listeningAddress else {
            task.cancel()
            throw EmulatorError.notListening
        }
        return EmulatorServer(bank: bank, port: boundPort, server: server, task: task, traffic: traffic)
    }

    /// Stops listening and closes every connection at once.
    public func stop() async {
        await server.stop(timeout: 0)
        task.cancel()
    }

    /// Runs until the surrounding task is cancelled.
    public func wait() async throws {
        try await task.value
    }

    private static func respond(
        to request: FlyingFox.HTTPRequest, bank: EmulatedBank, traffic: TrafficLog?
    ) async throws
        -> FlyingFox.HTTPResponse
    {
        var headers: [String: String] = [:]
        for (name, value) in request.headers {
            headers[name.rawValue.lowercased()] = value
        }
        if request.path == "/_emulator/stats" {
            // Outside the bank's API: what clients did, for benchmarks. Not counted itself.
            let body = try JSONEncoder().encode(await bank.statistics)
            return FlyingFox.HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json"], body: body)
        }
        var query: [String: String] = [:]
        for item in request.query {
            query[item.name] = item.value
        }
        let body = try await request.bodyData
        let connection: String? =
            switch request.remoteAddress {
            case .ip4(let address, let port), .ip6(let address, let port): "\(address):\(port)"
            case .unix(let path): path
            case nil: nil
            }
        let asked = EmulatorRequest(
            method: request.method.rawValue, path: request.path, query: query, headers: headers, body: Array(body),
            connection: connection)
        let answer = await bank.handle(asked)
        traffic?.record(asked, queryItems: request.query.map { [$0.name, $0.value] }, answer: answer)
        if answer.delay > .zero { try await Task.sleep(for: answer.delay) }
        if answer.dropConnection { return FlyingFox.HTTPResponse(webSocket: HangUp()) }
        var responseHeaders = HTTPHeaders()
        for (name, value) in answer.headers {
            responseHeaders[HTTPHeader(name)] = value
        }
        return FlyingFox.HTTPResponse(
            statusCode: HTTPStatusCode(answer.status, phrase: phrase(answer.status)), headers: responseHeaders,
            body: Data(answer.body))
    }

    private static func phrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 409: "Conflict"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// The server writes a response's head and body separately. With Nagle's algorithm on, the
/// body then waits for the client's delayed ACK, about 40 ms on every reused connection.
/// This pool turns Nagle off on every socket it sees: the listening socket first, whose
/// setting accepted connections inherit on Linux, and each connection as it waits.
private struct NoDelayPool: AsyncSocketPool {
    let inner: any AsyncSocketPool

    func prepare() async throws { try await inner.prepare() }
    func run() async throws { try await inner.run() }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        try? socket.setValue(true, for: BoolSocketOption(level: Int32(IPPROTO_TCP), name: Int32(TCP_NODELAY)))
        try await inner.suspendSocket(socket, untilReadyFor: events)
    }
}

/// Closes the connection without an answer. FlyingFox asks a WebSocket handler for its
/// frames before it writes any response bytes; failing there makes the server close the
/// connection with nothing sent, which is how a crashed or cut-off server looks to a client.
private struct HangUp: WSHandler {
    struct Closed: Error {}

    func makeFrames(for client: AsyncThrowingStream<WSFrame, any Error>) async throws -> AsyncStream<WSFrame> {
        throw Closed()
    }
}

/// Why the emulator could not start.
public enum EmulatorError: Error, CustomStringConvertible {
    case notListening

    public var description: String { "the emulator did not start listening on 127.0.0.1" }
}
