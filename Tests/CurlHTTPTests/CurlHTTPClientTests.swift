import CurlHTTP
import Foundation
import StarlingEmulator
import TestSupport
import Testing

/// The libcurl client against a real server on loopback.
@Suite struct CurlHTTPClientTests {
    let client: CurlHTTPClient

    init() throws {
        client = try CurlHTTPClient(configuration: CurlHTTPConfiguration(lanes: 3, userAgent: "roundup-tests/1"))
    }

    func state() -> BankState {
        var bank = TestBank(token: "curl-token")
        bank.account("GBP")
        return bank.state
    }

    @Test func getsAResponseWithStatusHeadersAndBody() async throws {
        try await withEmulator(state()) { server in
            let response = try await client.send(
                HTTPRequest(
                    method: .get, url: server.baseURL + "/api/v2/accounts",
                    headers: [("Authorization", "Bearer curl-token"), ("Accept", "application/json")]))
            #expect(response.status == 200)
            #expect(response.header("content-type") == "application/json")
            let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            #expect((body?["accounts"] as? [Any])?.count == 1)
            let seen = try #require(await server.bank.requests.last)
            #expect(seen.userAgent == "roundup-tests/1")
            #expect(seen.authorized)
        }
    }

    @Test func putsAJSONBody() async throws {
        var bank = TestBank(token: "curl-token")
        let account = bank.account("GBP")
        try await withEmulator(bank.state) { server in
            let body = Array(#"{"name":"Trip","currency":"GBP"}"#.utf8)
            let response = try await client.send(
                HTTPRequest(
                    method: .put, url: server.baseURL + "/api/v2/account/\(account)/savings-goals",
                    headers: [("Authorization", "Bearer curl-token"), ("Content-Type", "application/json")],
                    body: body))
            #expect(response.status == 200)
            #expect(await server.bank.state.goals[account]?.map(\.name) == ["Trip"])
        }
    }

    @Test func theTrafficLogKeepsEachExchangeWithoutTheToken() async throws {
        let directory = try TemporaryDirectory()
        let log = try TrafficLog(directory: directory.path)
        let server = try await EmulatorServer.start(bank: EmulatedBank(state: state()), traffic: log)
        let response = try await client.send(
            HTTPRequest(
                method: .get,
                url: server.baseURL
                    + "/api/v2/feed/account/x/settled-transactions-between?minTransactionTimestamp=a&maxTransactionTimestamp=b",
                headers: [("Authorization", "Bearer curl-token"), ("Accept", "application/json")]))
        await server.stop()
        let text = try String(contentsOfFile: log.path, encoding: .utf8)
        #expect(!text.contains("curl-token"))
        let lines = text.split(separator: "\n")
        try #require(lines.count == 1)
        let exchange = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect((exchange["headers"] as? [String: String])?["authorization"] == "Bearer <redacted>")
        #expect(exchange["status"] as? Int == response.status)
        #expect(
            exchange["query"] as? [[String]] == [["minTransactionTimestamp", "a"], ["maxTransactionTimestamp", "b"]])
        #expect(exchange["altered"] as? Bool == false)
        let mode = try FileManager.default.attributesOfItem(atPath: log.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// However the header is written, the log keeps no part of the token: only the exact
    /// scheme the job sends is kept beside the mark.
    @Test(arguments: [
        ("Bearer s3cr3t-tok", "Bearer <redacted>"), ("s3cr3t-tok", "<redacted>"), ("Bearer\ts3cr3t-tok", "<redacted>"),
        ("bearer  s3cr3t-tok", "<redacted>"), ("s3cr3t-tok Bearer", "<redacted>"),
    ])
    func theTrafficLogKeepsNoPartOfAnAuthorizationHeader(header: String, logged: String) async throws {
        let directory = try TemporaryDirectory()
        let log = try TrafficLog(directory: directory.path)
        let server = try await EmulatorServer.start(bank: EmulatedBank(state: state()), traffic: log)
        _ = try await client.send(
            HTTPRequest(method: .get, url: server.baseURL + "/api/v2/accounts", headers: [("Authorization", header)]))
        await server.stop()
        let text = try String(contentsOfFile: log.path, encoding: .utf8)
        #expect(!text.contains("s3cr3t"))
        let exchange = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((exchange["headers"] as? [String: String])?["authorization"] == logged)
    }

    @Test func errorStatusesAreResponsesNotTransportErrors() async throws {
        // Without a token on purpose: outside the bank's description, so the contract
        // check leaves it out.
        try await withEmulator(state(), contract: .none) { server in
            let response = try await client.send(HTTPRequest(method: .get, url: server.baseURL + "/api/v2/accounts"))
            #expect(response.status == 401)
            #expect(String(decoding: response.body, as: UTF8.self).contains("invalid_token"))
        }
    }

    @Test func manyConcurrentRequestsShareTheLanes() async throws {
        try await withEmulator(state()) { server in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<30 {
                    group.addTask {
                        try await client.send(
                            HTTPRequest(
                                method: .get, url: server.baseURL + "/api/v2/identity/token",
                                headers: [("Authorization", "Bearer curl-token")])
                        ).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 30))
        }
    }

    @Test func aRefusedConnectionIsATypedError() async throws {
        let closed = try ClosedPort()
        let url = closed.baseURL + "/api/v2/accounts"
        do {
            _ = try await client.send(HTTPRequest(method: .get, url: url))
            Issue.record("a stopped server answered")
        } catch {
            #expect(error.kind == .couldNotConnect)
        }
    }

    @Test func onlyHTTPAndHTTPSAreSpoken() async throws {
        do {
            _ = try await client.send(HTTPRequest(method: .get, url: "file:///etc/passwd"))
            Issue.record("fetched a file: URL")
        } catch {
            #expect(error.kind == .badRequest)
        }
    }
}
