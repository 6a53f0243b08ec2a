import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// A bank, and surroundings, that try the job's limits: a bank slower than the whole run
/// may take, a `Retry-After` padded with zeros, an answer nested 1,000 deep or larger than
/// the job reads whole, a token file of 50 MB, relative XDG paths. Each runs the built
/// binary against the emulator, which does not deduplicate transfers, and says what it did.
@Suite struct HostileBankTests {
    static let week = "2026-11-15"
    let home: TemporaryDirectory
    let token = "hostile-bank-" + UUID().uuidString

    init() throws { home = try TemporaryDirectory() }

    var environment: [String: String] { binaryEnvironment(home, token: token) }

    func state() -> BankState {
        Seed.realisticWeek(endingOn: LocalDate(iso: Self.week)!, timeZone: TestBank.london, token: token)
    }

    func run(_ server: EmulatorServer, _ extra: [String: String] = [:]) async throws -> Execution {
        try await roundup(
            ["run", "--end-date", Self.week, "--api-base-url", server.baseURL],
            environment: environment.merging(extra) { $1 })
    }

    @Test func aBankSlowerThanTheRunsTimeEndsTheRunWith75() async throws {
        try await withEmulator(state(), behaviour: EmulatorBehaviour(deduplicatesTransfers: false)) { server in
            await server.bank.injectFaults([
                FaultRule(when: .always, faults: [.latency(.milliseconds(1200))])
            ])
            let started = ContinuousClock.now
            let slow = try await run(server, ["ROUNDUP_RUN_TIMEOUT_SECONDS": "2"])
            let took = ContinuousClock.now - started
            #expect(slow.status == 75, "\(slow.stderr)")
            #expect(
                slow.stderr.contains("the run's time limit (runTimeoutSeconds: 2) was spent before"), "\(slow.stderr)")
            #expect(slow.stderr.contains("the slowest request was GET /api/v2/"), "\(slow.stderr)")
            #expect(!slow.stderr.contains("trying again"), "what the time limit stops is not retried")
            #expect(took < .seconds(30), "it ends soon after its limit, not after every request: \(took)")
            #expect(await server.bank.transfers.count <= 2)
            await server.bank.injectFaults([])
            let next = try await run(server)
            #expect(next.status == 0, "\(next.stderr)")
            let moved = await server.bank.transfers.map(\.amount.minorUnits).sorted()
            #expect(moved == [126, 298])
            robustnessLine(
                "a bank slower than runTimeoutSeconds (1.2 s a request, 2 s a run)",
                "exit \(slow.status) naming the slowest request; the next run finishes",
                moneyExactlyOnce: moved == [126, 298])
        }
    }

    /// A bank that asks to wait a minute, in a run of 20 seconds: the run does not wait past
    /// its limit, and says what it would have waited for.
    @Test func aRetryAfterLongerThanWhatIsLeftOfTheRunEndsItAtOnce() async throws {
        try await withEmulator(state()) { server in
            await server.bank.injectFaults([
                FaultRule(endpoints: [.accounts], when: .always, faults: [.rateLimited(retryAfter: "60")])
            ])
            let started = ContinuousClock.now
            let slow = try await run(server, ["ROUNDUP_RUN_TIMEOUT_SECONDS": "20"])
            let took = ContinuousClock.now - started
            #expect(slow.status == 75, "\(slow.stderr)")
            #expect(
                slow.stderr.contains(
                    "the run's time limit (runTimeoutSeconds: 20) was spent before GET /api/v2/accounts could be sent; "
                        + "it would have waited 60"), "\(slow.stderr)")
            #expect(took < .seconds(50), "it does not wait the minute: \(took)")
            #expect(await server.bank.transfers.isEmpty)
            robustnessLine(
                "Retry-After: 60 in a run of runTimeoutSeconds: 20",
                "exit \(slow.status) after \(took.components.seconds) s, naming the endpoint and the wait",
                moneyExactlyOnce: await server.bank.transfers.isEmpty)
        }
    }

    @Test func aRetryAfterWithLeadingZerosIsADayNotZero() async throws {
        try await withEmulator(state()) { server in
            await server.bank.injectFaults([
                FaultRule(
                    endpoints: [.accounts], when: .always, faults: [.rateLimited(retryAfter: "0000000000086400")])
            ])
            let result = try await run(server)
            #expect(result.status == 75, "\(result.stderr)")
            #expect(!result.stderr.contains("trying again"), "a day is longer than the run waits: \(result.stderr)")
            #expect(await server.bank.transfers.isEmpty)
            robustnessLine(
                "Retry-After: 0000000000086400", "exit \(result.status) at once, read as a day",
                moneyExactlyOnce: await server.bank.transfers.isEmpty)
        }
    }

    @Test func anAnswerNestedTooDeeplyIsBadDataNotRetried() async throws {
        let deep = String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
        try await withEmulator(state(), contract: .requestsOnly) { server in
            await server.bank.injectFaults([
                FaultRule(
                    endpoints: [.accounts], when: .always,
                    faults: [.rewrittenBody(#""accounts":["#, #""nested":"# + deep + #","accounts":["#)])
            ])
            let result = try await run(server)
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.contains("nested too deeply"), "\(result.stderr)")
            #expect(!result.stderr.contains("not valid JSON") && !result.stderr.contains("trying again"))
            #expect(await server.bank.transfers.isEmpty)
            robustnessLine(
                "an answer nested 1,000 deep", "exit \(result.status), nested too deeply, not retried",
                moneyExactlyOnce: await server.bank.transfers.isEmpty)
        }
    }

    @Test func anAnswerLargerThanTheJobReadsWholeIsRefused() async throws {
        let padding = String(repeating: "x", count: 9 << 20)
        try await withEmulator(state(), contract: .requestsOnly) { server in
            await server.bank.injectFaults([
                FaultRule(
                    endpoints: [.accounts], when: .always,
                    faults: [.rewrittenBody(#""accounts":["#, #""padding":""# + padding + #"","accounts":["#)])
            ])
            let result = try await run(server)
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.contains("GET /api/v2/accounts"), "\(result.stderr)")
            #expect(result.stderr.contains("larger than the 8 MiB"), "\(result.stderr)")
            #expect(!result.stderr.contains("trying again"))
            robustnessLine(
                "an accounts answer of 9 MiB", "exit \(result.status) naming the endpoint, not retried",
                moneyExactlyOnce: await server.bank.transfers.isEmpty)
        }
    }

    @Test func aTokenFileOf50MBIsRefused() async throws {
        let path = home.path + "/token"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(ftruncate(descriptor, 50 << 20) == 0)
        close(descriptor)
        var without = environment
        without["STARLING_ACCESS_TOKEN"] = nil
        let result = try await roundup(
            ["run", "--end-date", Self.week, "--api-base-url", "http://127.0.0.1:9"],
            environment: without.merging(["ROUNDUP_TOKEN_FILE": path]) { $1 })
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("holds 52428800 bytes, more than the 64 KiB"), "\(result.stderr)")
        #expect(!result.stderr.contains("Out of memory"))
        robustnessLine("a token file of 50 MB", "exit \(result.status), refused by its size", moneyExactlyOnce: true)
    }

    @Test func relativeXDGPathsAreIgnored() async throws {
        let relative = "relative-xdg-" + UUID().uuidString
        try await withEmulator(state()) { server in
            let result = try await run(server, ["XDG_STATE_HOME": relative, "XDG_CONFIG_HOME": relative])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(FileManager.default.fileExists(atPath: home.path + "/.local/state/roundup/ledger.sqlite"))
            #expect(!FileManager.default.fileExists(atPath: relative), "nothing under the working directory")
            robustnessLine(
                "relative XDG_STATE_HOME and XDG_CONFIG_HOME", "ignored: the ledger is under $HOME/.local/state",
                moneyExactlyOnce: await server.bank.transfers.count == 2)
        }
    }
}
