import CurlHTTP
import Foundation
import JobTestSupport
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// Accounts worked on at once, over reused connections (a fresh one per transfer), counted by the emulator.
@Suite struct ConcurrencyTests {
    @Test(arguments: [1, 3, 10])
    func aRunOpensNoMoreConnectionsThanItsLanes(concurrency: Int) async throws {
        let token = "lanes-\(concurrency)"
        let seed = Seed.benchmark(accounts: 12, items: 25, endingOn: LocalDate(iso: "2026-11-15")!, token: token)
        let harness = try JobHarness(token: token)
        try await withEmulator(seed.state) { server in
            // Latency on every request keeps the lanes busy at once.
            await server.bank.injectFaults([FaultRule(when: .always, faults: [.latency(.milliseconds(20))])])
            let result = await harness.run(
                server, endDate: "2026-11-15", config: JobHarness.quickRetries + "concurrency: \(concurrency)\n")
            #expect(result.status == .ok, "\(result.diagnostics)")
            let statistics = await server.bank.statistics
            // Reads share the lanes' connections; each transfer goes out on a fresh one, so
            // that libcurl never sends it twice on its own.
            #expect(statistics.connections >= 1 && statistics.connections <= concurrency + statistics.transfers)
            #expect(
                statistics.requests == 2 + 12 * 10,
                """
                identity, accounts, then the bank's own round-up, feed, standing orders, direct debits, goals and \
                their one recurring transfer, whether the transfer would overdraw, a look for the transfer beside \
                the goal's total, and the transfer per account
                """
            )
            // The generator's own total for each account, moved once each.
            let moved = await server.bank.transfers.map(\.amount.minorUnits).sorted()
            #expect(moved == seed.roundUpPerAccount.sorted())
        }
    }

    @Test func theStatisticsAreServedOverHTTPAndNotCounted() async throws {
        let seed = Seed.benchmark(accounts: 1, items: 3, endingOn: LocalDate(iso: "2026-11-15")!, token: "stats")
        try await withEmulator(seed.state) { server in
            let client = try CurlHTTPClient(configuration: CurlHTTPConfiguration(lanes: 1, userAgent: "test"))
            for _ in 0..<2 {
                let response = try await client.send(
                    HTTPRequest(method: .get, url: server.baseURL + "/_emulator/stats", headers: []))
                #expect(response.status == 200)
                let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
                #expect(body?["requests"] as? Int == 0)
                #expect(body?["connections"] as? Int == 0)
            }
        }
    }
}
