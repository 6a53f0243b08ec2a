import FlyingFox
import Foundation

/// A local stand-in for a service roundup tells, on 127.0.0.1, that holds each request to
/// what the service's documentation asks of it and answers as the service would: a Gotify
/// server's application message endpoint, an Uptime Kuma push monitor, or any URL that
/// takes a JSON or form POST (for `json://` and Apprise's `form://`). It keeps every
/// request, with why the real service would have refused it.
public actor ServiceStandIn {
    public enum Kind: Sendable {
        /// Gotify: `POST <base>/message` with the application's token in `X-Gotify-Key` (or
        /// `?token=`), a JSON body whose `message` is text, `title` text and `priority` a
        /// whole number; 401 for another token, 400 for a body without a message.
        case gotify(token: String)
        /// Uptime Kuma: `GET <base>/api/push/<token>?status=up|down&msg=…&ping=…`, `ping` a
        /// number; 404 for another token.
        case uptimeKuma(token: String)
        /// Takes any POST.
        case anyPost
    }

    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var query: [String: String]
        public var headers: [String: String]
        public var body: String
        /// Why the service would have refused it; nil when it took it.
        public var problem: String?

        /// The body as a JSON object.
        public var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        }

        /// Everything the request carried, to look for what must not be there.
        public var everything: String {
            ([method, path] + query.map { "\($0.key)=\($0.value)" } + headers.map { "\($0.key): \($0.value)" } + [body])
                .joined(separator: "\n")
        }
    }

    public private(set) var requests: [Request] = []
    public var taken: [Request] { requests.filter { $0.problem == nil } }
    public nonisolated let base: String
    private let server: HTTPServer
    private let task: Task<Void, any Error>

    private init(base: String, server: HTTPServer, task: Task<Void, any Error>) {
        self.base = base
        self.server = server
        self.task = task
    }

    public static func start(_ kind: Kind) async throws -> ServiceStandIn {
        let server = HTTPServer(address: try sockaddr_in.inet(ip4: "127.0.0.1", port: 0), logger: .disabled)
        let box = Box()
        await server.appendRoute("*") { request in
            var headers: [String: String] = [:]
            for (name, value) in request.headers { headers[name.rawValue.lowercased()] = value }
            var query: [String: String] = [:]
            for item in request.query { query[item.name] = item.value }
            let body = String(decoding: try await request.bodyData, as: UTF8.self)
            var kept = Request(
                method: request.method.rawValue, path: request.path, query: query, headers: headers, body: body)
            let (status, answer, problem) = ServiceStandIn.judge(kept, as: kind)
            kept.problem = problem
            await box.standIn?.keep(kept)
            return HTTPResponse(
                statusCode: HTTPStatusCode(status, phrase: "Status"), headers: [.contentType: "application/json"],
                body: Data(answer.utf8))
        }
        let task = Task { try await server.run() }
        try await server.waitUntilListening(timeout: 60)
        guard case .ip4(_, let port) = await server.listeningAddress else { throw CocoaError(.fileNoSuchFile) }
        let standIn = ServiceStandIn(base: "127.0.0.1:\(port)", server: server, task: task)
        await box.set(standIn)
        return standIn
    }

    /// The status, body and problem a real service would answer `request` with.
    static func judge(_ request: Request, as kind: Kind) -> (Int, String, String?) {
        switch kind {
        case .gotify(let token):
            guard request.method == "POST", request.path.hasSuffix("/message") else {
                return (404, #"{"error":"Not Found"}"#, "not POST …/message")
            }
            guard (request.headers["x-gotify-key"] ?? request.query["token"]) == token else {
                return (401, #"{"error":"Unauthorized"}"#, "another application token")
            }
            guard let json = request.json, let message = json["message"] as? String, !message.isEmpty else {
                return (400, #"{"error":"Bad Request"}"#, "no message")
            }
            if let title = json["title"], !(title is String) { return (400, "{}", "a title that is not text") }
            if let priority = json["priority"], (priority as? Int).map({ (0...10).contains($0) }) != true {
                return (400, "{}", "a priority that is not 0 to 10")
            }
            return (200, #"{"id":1,"appid":1,"message":"ok"}"#, nil)
        case .uptimeKuma(let token):
            guard request.path == "/api/push/\(token)" else {
                return (404, #"{"ok":false,"msg":"Monitor not found or not active."}"#, "another push token")
            }
            guard request.method == "GET", let status = request.query["status"], ["up", "down"].contains(status) else {
                return (400, #"{"ok":false}"#, "no status=up or status=down")
            }
            if let ping = request.query["ping"], Double(ping) == nil {
                return (400, #"{"ok":false}"#, "a ping that is not a number")
            }
            return (200, #"{"ok":true}"#, nil)
        case .anyPost:
            guard request.method == "POST", !request.body.isEmpty else { return (405, "{}", "not a POST with a body") }
            return (200, "{}", nil)
        }
    }

    func keep(_ request: Request) { requests.append(request) }

    public func stop() async {
        await server.stop(timeout: 0)
        task.cancel()
    }

    private actor Box {
        var standIn: ServiceStandIn?
        func set(_ value: ServiceStandIn) { standIn = value }
    }
}
