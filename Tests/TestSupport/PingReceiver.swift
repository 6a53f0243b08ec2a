import FlyingFox
import Foundation

/// A dead man's switch on 127.0.0.1 for tests: it answers 200 to everything (or `status`)
/// and keeps what it was sent. A slow one answers a run's outcome (a POST) only
/// `outcomeDelay` after it has kept it.
public actor PingReceiver {
    public struct Ping: Sendable, Equatable {
        public var method: String
        public var path: String
        public var body: String
        public var headers: [String: String]
    }

    public private(set) var pings: [Ping] = []
    public nonisolated let url: String
    private let server: HTTPServer
    private let task: Task<Void, any Error>

    private init(url: String, server: HTTPServer, task: Task<Void, any Error>) {
        self.url = url
        self.server = server
        self.task = task
    }

    /// Starts listening; the monitor's URL is `url` (with a check's uid as its path).
    public static func start(status: Int = 200, outcomeDelay: Duration = .zero) async throws -> PingReceiver {
        let server = HTTPServer(address: try sockaddr_in.inet(ip4: "127.0.0.1", port: 0), logger: .disabled)
        let box = Box()
        await server.appendRoute("*") { request in
            var headers: [String: String] = [:]
            for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
            let body = String(decoding: try await request.bodyData, as: UTF8.self)
            await box.receiver?.record(
                Ping(method: request.method.rawValue, path: request.path, body: body, headers: headers))
            if request.method == .POST { try await Task.sleep(for: outcomeDelay) }
            return HTTPResponse(statusCode: HTTPStatusCode(status, phrase: "Status"), body: Data("OK".utf8))
        }
        let task = Task { try await server.run() }
        try await server.waitUntilListening(timeout: 60)
        guard case .ip4(_, let port) = await server.listeningAddress else { throw CocoaError(.fileNoSuchFile) }
        let receiver = PingReceiver(
            url: "http://127.0.0.1:\(port)/ping/5f1b0c1e-0000-4000-8000-00000000c0de", server: server, task: task)
        await box.set(receiver)
        return receiver
    }

    func record(_ ping: Ping) { pings.append(ping) }

    public func stop() async {
        await server.stop(timeout: 0)
        task.cancel()
    }

    private actor Box {
        var receiver: PingReceiver?
        func set(_ value: PingReceiver) { receiver = value }
    }
}
