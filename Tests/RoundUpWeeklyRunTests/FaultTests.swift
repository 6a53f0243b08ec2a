import Foundation
import JobTestSupport
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// The job against a bank that fails: every kind of transient fault on every endpoint,
/// a bank that stays down, and a quarter of all requests failing at random.
@Suite struct FaultTests {
    let weekEnd = "2026-11-15"

    static let endpoints: [Endpoint] = [
        .identity, .accounts, .roundUp, .settledFeed, .savingsGoals, .createGoal, .categoryFeed, .savingsGoal,
        .addMoney,
    ]

    @Test(
        "one transient fault on one endpoint is retried and the money moves exactly once",
        arguments: Fault.transientKinds, endpoints)
    func oneFault(fault: Fault, endpoint: Endpoint) async throws {
        let week = GeneratedWeek(seed: 7, token: "tok-one-fault")
        let harness = try JobHarness(token: "tok-one-fault")
        // Starling's own round-up set up and off: its endpoint answers 200, whose body a fault can garble.
        var state = week.bank.state
        for index in state.accounts.indices { state.accounts[index].nativeRoundUp = false }
        try await withEmulator(state) { server in
            await server.bank.injectFaults([.first(1, [endpoint], fault)])
            var result = await harness.run(server, endDate: weekEnd)
            // A transfer that got no answer at all, or one a 503 or 429 did not explain, is
            // sent again only by a later run, once the feed has had time to show it (at once
            // here: feedSettleMinutes: 0).
            let unanswered =
                endpoint == .addMoney && [Fault.dropConnection, .serverError(500), .proxyError].contains(fault)
            if unanswered {
                #expect(result.status == .unavailable, "\(result.diagnostics)")
                #expect(await server.bank.transfers.count < week.bank.state.accounts.count)
                result = await harness.run(server, endDate: weekEnd)
            }
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(await server.bank.injectedFaults == [InjectedFault(endpoint: endpoint, fault: fault)])
            let problems = week.problems(in: await server.bank.state)
            #expect(problems.none, "\(problems)")
            let entries = try harness.ledger().accountWeeks()
            #expect(entries.allSatisfy { $0.status != .pending })
            // The retry is logged, saying what failed. (Latency needs none; libcurl itself
            // resends a request whose reused connection was dropped, except goal creation.)
            let retried = harness.log.lines.contains { $0.contains("trying again in") }
            // A transfer the bank may have carried out is not retried blindly: the job looks in the feed.
            let looked = harness.log.lines.contains { $0.contains("looking in the feed first") }
            // (A 429 to a transfer may come after the bank carried it out: looked for too.)
            let answeredOrGarbled: Bool =
                switch fault {
                case .serverError, .proxyError, .failAfterApplying, .malformedBody, .rewrittenBody, .rateLimited: true
                default: false
                }
            switch fault {
            case .latency: #expect(!retried, "\(harness.log.lines.filter { $0.contains("trying again") })")
            case .malformedBody(.wrongShape) where endpoint == .roundUp:
                // Valid JSON with none of the round-up answer's optional fields is an answer
                // that cannot tell: used as it is, with a warning, and the feed's own marks.
                #expect(!retried && harness.log.lines.contains { $0.contains("does not say whether Starling's own") })
            case _ where endpoint == .addMoney && answeredOrGarbled:
                #expect(looked && !retried)
            case .dropConnection, .dropAfterApplying: #expect(retried || endpoint != .createGoal)
            default: #expect(retried)
            }
        }
    }

    @Test(
        "a transfer slower than the timeout is abandoned; the bank had already moved the money, and the feed shows it")
    func timeoutAfterTheMoneyMoved() async throws {
        let week = GeneratedWeek(seed: 3, token: "tok-timeout")
        let harness = try JobHarness(token: "tok-timeout")
        try await withEmulator(week.bank.state) { server in
            // The timeout leaves room for a machine busy with every other test; the answer
            // comes well after it.
            await server.bank.injectFaults([.first(1, [.addMoney], .latency(.seconds(8)))])
            let config = "retryFirstDelayMilliseconds: 1\nrequestTimeoutSeconds: 3\nfeedRecheckSeconds: 0\n"
            let result = await harness.run(server, endDate: weekEnd, config: config)
            #expect(result.status == .ok, "\(result.diagnostics)")
            #expect(harness.log.lines.contains { $0.contains("timed out") || $0.contains("Timeout") })
            let problems = week.problems(in: await server.bank.state)
            #expect(problems.none, "\(problems)")
            let puts = await server.bank.requests.filter { $0.endpoint == .addMoney }
            #expect(puts.count == week.expected.values.filter { $0 > 0 }.count, "the timed-out one is not sent again")
        }
    }

    @Test("Retry-After is honoured: the retry comes no sooner than the bank asked")
    func retryAfterIsHonoured() async throws {
        let week = GeneratedWeek(seed: 5, token: "tok-429")
        let harness = try JobHarness(token: "tok-429")
        try await withEmulator(week.bank.state) { server in
            await server.bank.injectFaults([.first(1, [.accounts], .rateLimited(retryAfter: "1"))])
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .ok, "\(result.diagnostics)")
            let accounts = await server.bank.requests.filter { $0.endpoint == .accounts }
            try #require(accounts.count == 2)
            let gap = accounts[1].arrived.millisecondsSince1970 - accounts[0].arrived.millisecondsSince1970
            #expect(gap >= 1000, "the retry came \(gap) ms after the 429")
        }
    }

    // MARK: - A bank that stays down

    @Test("connection refused: exit 69, nothing recorded, a plain message")
    func connectionRefused() async throws {
        let harness = try JobHarness(token: "tok-refused")
        let closed = try ClosedPort()
        let result = await harness.run(baseURL: closed.baseURL, endDate: weekEnd)
        #expect(result.status == .unavailable)
        let message = result.diagnostics.joined(separator: "\n")
        #expect(message.contains("could not reach the bank"), "\(message)")
        #expect(message.contains("6 attempts"), "\(message)")
        let entries = try harness.ledger().accountWeeks()
        #expect(entries.isEmpty)
    }

    @Test("an HTML 502 from a proxy on every request: exit 69, nothing moved or recorded")
    func proxyAlwaysFails() async throws {
        let week = GeneratedWeek(seed: 2, token: "tok-proxy")
        let harness = try JobHarness(token: "tok-proxy")
        try await withEmulator(week.bank.state) { server in
            await server.bank.injectFaults([FaultRule(when: .always, faults: [.proxyError])])
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .unavailable)
            #expect(result.diagnostics.joined().contains("HTTP 502"))
            #expect(await server.bank.requests.count == 6, "one request, tried six times")
            #expect(await server.bank.transfers.isEmpty)
            let entries = try harness.ledger().accountWeeks()
            #expect(entries.isEmpty)
        }
    }

    @Test("5xx on every transfer: exit 69; the intent stays unconfirmed and the next run moves it once")
    func transfersKeepFailing() async throws {
        let week = GeneratedWeek(seed: 4, withGoals: true, token: "tok-5xx")
        let harness = try JobHarness(token: "tok-5xx")
        try await withEmulator(week.bank.state) { server in
            await server.bank.injectFaults([
                FaultRule(endpoints: [.addMoney], when: .always, faults: [.serverError(503)])
            ])
            let failed = await harness.run(server, endDate: weekEnd)
            #expect(failed.status == .unavailable)
            #expect(await server.bank.transfers.isEmpty)
            let pending = try harness.ledger().accountWeeks().filter { $0.status == .pending }
            #expect(pending.count == week.expected.values.filter { $0 > 0 }.count)
            #expect(
                failed.report?.accounts.allSatisfy { $0.status == .unconfirmed || $0.status == .nothingToMove } == true)

            await server.bank.injectFaults([])
            let second = await harness.run(server, endDate: weekEnd)
            #expect(second.status == .ok, "\(second.diagnostics)")
            let problems = week.problems(in: await server.bank.state)
            #expect(problems.none, "\(problems)")
        }
    }

    @Test("429 on every request: exit 75, a temporary failure")
    func rateLimitedThroughout() async throws {
        let week = GeneratedWeek(seed: 6, token: "tok-429s")
        let harness = try JobHarness(token: "tok-429s")
        try await withEmulator(week.bank.state) { server in
            await server.bank.injectFaults([FaultRule(when: .always, faults: [.rateLimited(retryAfter: "0")])])
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .temporaryFailure)
            #expect(result.diagnostics.joined().contains("rate-limiting"))
            #expect(await server.bank.transfers.isEmpty)
        }
    }

    @Test("a Retry-After longer than the job waits ends the run at once with exit 75, saying why")
    func retryAfterTooLong() async throws {
        let week = GeneratedWeek(seed: 6, token: "tok-long")
        let harness = try JobHarness(token: "tok-long")
        try await withEmulator(week.bank.state) { server in
            await server.bank.injectFaults([.first(1, [.identity], .rateLimited(retryAfter: "3600"))])
            let result = await harness.run(server, endDate: weekEnd)
            #expect(result.status == .temporaryFailure)
            let message = result.diagnostics.joined()
            #expect(message.contains("asked to wait 3600 s"), "\(message)")
            #expect(await server.bank.requests.count == 1)
        }
    }

    // MARK: - The matrix

    @Test(
        "fault matrix: a quarter of all requests fail, of every kind on every endpoint, at a bank that does not deduplicate; money moves exactly once"
    )
    func faultMatrix() async throws {
        let seeds: ClosedRange<UInt64> = 1...40
        var requests = 0
        var faults: [String: Int] = [:]
        var lost: Int64 = 0
        var doubled: Int64 = 0
        for seed in seeds {
            let token = "tok-matrix-\(seed)"
            let week = GeneratedWeek(seed: seed, withGoals: seed % 2 == 0, token: token)
            let harness = try JobHarness(token: token)
            // A bank that moves money again on a replayed transfer uid: a transfer sent twice shows.
            let behaviour = EmulatorBehaviour(deduplicatesTransfers: false)
            try await withEmulator(week.bank.state, behaviour: behaviour) { server in
                await server.bank.injectFaults([
                    FaultRule(when: .randomly(probability: 0.25, seed: seed), faults: Fault.transientKinds)
                ])
                // Ten attempts per request: with a quarter failing, a request fails ten
                // times running about once in a million.
                let config = JobHarness.quickRetries + "retryAttempts: 10\n"
                // A transfer that got no answer at all is sent again only by a later run.
                var first = await harness.run(server, endDate: weekEnd, config: config)
                for _ in 0..<3 where first.status != .ok {
                    first = await harness.run(server, endDate: weekEnd, config: config)
                }
                #expect(first.status == .ok, "seed \(seed): \(first.diagnostics)")
                // A rerun, still under faults, moves nothing more.
                let second = await harness.run(server, endDate: weekEnd, config: config)
                #expect(second.status == .ok, "seed \(seed) rerun: \(second.diagnostics)")
                #expect(second.report?.accounts.allSatisfy { $0.status != .transferred } == true)

                let problems = week.problems(in: await server.bank.state)
                #expect(problems.none, "seed \(seed): \(problems)")
                lost += problems.lost
                doubled += problems.doubled
                requests += await server.bank.requests.count
                for injected in await server.bank.injectedFaults { faults[injected.fault.kind, default: 0] += 1 }
            }
        }
        let injected = faults.values.reduce(0, +)
        #expect(Double(injected) > Double(requests) * 0.2, "about a quarter of the requests should fail")
        #expect(Set(faults.keys) == Set(Fault.transientKinds.map(\.kind)))
        print(
            "fault matrix: \(seeds.count * 2) runs, \(requests) requests, \(injected) faults injected ("
                + faults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                + "); money lost: \(lost), doubled: \(doubled) minor units")
    }
}
