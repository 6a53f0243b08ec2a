import ChildProcess
import Foundation
import RoundUp
import StarlingEmulator
import Synchronization
import TestSupport
import Testing

/// The built binary killed with SIGKILL at many points of real runs, then run again,
/// against a bank that does not deduplicate transfers: every account's round-up must be
/// moved exactly once, whatever the moment of the crash.
@Suite struct CrashTests {
    let weekEnd = "2026-11-15"

    /// One crash scenario: a fresh bank and state directory, a run killed when `killWhen`
    /// says, then runs until one ends normally. Returns whether the kill landed (the run
    /// may have finished first) and what is wrong with the money afterwards.
    func crash(
        seed: UInt64, faults: [FaultRule],
        killWhen: @escaping @Sendable (EmulatedBank, LaunchedRoundup) async -> Bool
    ) async throws -> (killed: Bool, problems: MoneyProblems) {
        let token = "crash-token-\(seed)"
        let week = GeneratedWeek(seed: seed, token: token)
        let home = try TemporaryDirectory()
        // A bank that moves money again on a replayed transfer uid: a transfer sent twice shows.
        let behaviour = EmulatorBehaviour(deduplicatesTransfers: false)
        return try await withEmulator(week.bank.state, behaviour: behaviour) { server in
            await server.bank.injectFaults(faults)
            let arguments = [
                "run", "--end-date", weekEnd, "--api-base-url", server.baseURL, "--state-dir", home.path + "/state",
            ]
            let environment = binaryEnvironment(home, token: token)
            let victim = try LaunchedRoundup(arguments, environment: environment, output: home.path + "/killed")
            if await killWhen(server.bank, victim) { _ = victim.kill() }
            // The run may have ended just before the signal; only a death by SIGKILL counts.
            let killed = await victim.exit() == .signal(SIGKILL)
            // The bank may still be acting on a request the dead run sent; let it finish,
            // as a real bank would, before the next run starts.
            await settle(server.bank)
            await server.bank.injectFaults([])

            let rerun = try LaunchedRoundup(arguments, environment: environment, output: home.path + "/rerun")
            let status = await rerun.exit()
            let stderr = (try? String(contentsOfFile: home.path + "/rerun.err", encoding: .utf8)) ?? ""
            #expect(status == .exit(0), "seed \(seed): the run after the crash ended \(status): \(stderr)")
            #expect(!stderr.contains("another roundup run"), "the dead run's lock must not block: \(stderr)")
            let problems = week.problems(in: await server.bank.state)
            return (killed, problems)
        }
    }

    @Test("SIGKILL at every request, before the bank acts and after it acted but before it answered")
    func killAtEveryRequest() async throws {
        var points = 0
        var problems: [String] = []
        // An undisturbed run of seed 11 makes 20 requests or more (a feed check before each
        // transfer included); try each of the first 20 both ways.
        for request in 1...20 {
            for afterActing in [false, true] {
                let fault: Fault = afterActing ? .latency(.seconds(2)) : .stall(.milliseconds(500))
                let outcome = try await crash(
                    seed: 11, faults: [FaultRule(when: .onRequests([request]), faults: [fault])]
                ) { bank, victim in
                    // After acting, the request is recorded; before, it has only arrived.
                    await waitFor(victim) {
                        afterActing ? await bank.requests.count >= request : await bank.arrivals >= request
                    }
                }
                if outcome.killed { points += 1 }
                if !outcome.problems.none {
                    problems.append("request \(request), after acting \(afterActing): \(outcome.problems)")
                }
            }
        }
        #expect(problems.isEmpty, "\(problems)")
        // All 40 kills can land; on a loaded machine a kill now and then comes after the run
        // ended, which proves nothing either way.
        #expect(points >= 36, "most requests should have been reached before the run ended")
        print(
            "crash test (at requests): \(points) SIGKILLs landed; money lost or doubled: \(problems.isEmpty ? "none" : "\(problems)")"
        )
    }

    @Test("SIGKILL at random moments of runs slowed down by latency on every request")
    func killAtRandomMoments() async throws {
        var random = SeededRandom(seed: 2026)
        var points = 0
        var problems: [String] = []
        for round in 0..<30 {
            let seed = UInt64(20 + round % 5)
            let delay = Int(random.next() % 150)
            let outcome = try await crash(
                seed: seed, faults: [FaultRule(when: .always, faults: [.latency(.milliseconds(10))])]
            ) { _, victim in
                try? await Task.sleep(for: .milliseconds(delay))
                return victim.isRunning
            }
            if outcome.killed { points += 1 }
            if !outcome.problems.none { problems.append("seed \(seed), \(delay) ms: \(outcome.problems)") }
        }
        #expect(problems.isEmpty, "\(problems)")
        #expect(points >= 15, "most kills should land before the run ends")
        print(
            "crash test (random moments): \(points) SIGKILLs landed; money lost or doubled: \(problems.isEmpty ? "none" : "\(problems)")"
        )
    }

    @Test("two runs at once: the second waits for the lock, then exits 75 and moves nothing")
    func secondRunWaitsThenGivesUp() async throws {
        let token = "lock-token"
        let week = GeneratedWeek(seed: 31, token: token)
        let home = try TemporaryDirectory()
        try await withEmulator(week.bank.state) { server in
            // The first run stalls on its first request, holding the lock.
            await server.bank.injectFaults([.first(1, [.identity], .stall(.seconds(3)))])
            let config = home.path + "/config.yaml"
            try "lockWaitSeconds: 1\n".write(toFile: config, atomically: true, encoding: .utf8)
            let arguments = [
                "run", "--end-date", weekEnd, "--api-base-url", server.baseURL, "--state-dir", home.path + "/state",
                "--config", config,
            ]
            let environment = binaryEnvironment(home, token: token)
            let first = try LaunchedRoundup(arguments, environment: environment, output: home.path + "/first")
            _ = await waitFor(first) { await server.bank.arrivals >= 1 }

            let started = ContinuousClock.now
            let second = try await roundup(arguments, environment: environment)
            let waited = ContinuousClock.now - started
            #expect(second.status == 75)
            #expect(second.stderr.contains("another roundup run is using"))
            #expect(waited >= .seconds(1), "it should wait lockWaitSeconds before giving up")

            #expect(await first.exit() == .exit(0))
            let problems = week.problems(in: await server.bank.state)
            #expect(problems.none, "\(problems)")
        }
    }
}

/// Polls `condition` every millisecond until it holds (true) or the run ends (false).
@discardableResult
func waitFor(_ victim: LaunchedRoundup, within limit: Duration = .seconds(20), _ condition: () async -> Bool) async
    -> Bool
{
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        if !victim.isRunning { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return false
}

/// Waits until the bank has answered every request that reached it.
func settle(_ bank: EmulatedBank) async {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
        if await bank.requests.count >= bank.arrivals { return }
        try? await Task.sleep(for: .milliseconds(5))
    }
}

/// The roundup binary started in the background, with stdout and stderr in files
/// (`<output>.out`, `<output>.err`), to be killed or waited for. A thread waits for it and
/// records how it ended; `kill` only signals a child that has not been reaped yet.
final class LaunchedRoundup: Sendable {
    typealias Ending = Child.Ending

    private let child: Child
    private let ending = Box()
    private let ended: AsyncStream<Ending>

    init(_ arguments: [String], environment: [String: String], output: String) throws {
        let binary = try #require(roundupBinary, "the roundup binary was not built beside the tests")
        let flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC
        let out = open(output + ".out", flags, 0o600)
        let err = open(output + ".err", flags, 0o600)
        defer {
            close(out)
            close(err)
        }
        child = try Child.spawn(binary, arguments, environment: unpaced(environment), stdout: out, stderr: err)
        let (stream, continuation) = AsyncStream.makeStream(of: Ending.self)
        ended = stream
        let (child, box) = (child, ending)
        Thread.detachNewThread {
            // Reaped only under the lock that kill() takes, so kill() never signals a pid
            // that has been reaped and perhaps reused.
            child.waitUntilEnded()
            let result = box.value.withLock { end in
                let result = child.wait()
                end = result
                return result
            }
            continuation.yield(result)
            continuation.finish()
        }
    }

    var isRunning: Bool { ending.value.withLock { $0 == nil } }

    /// Sends SIGKILL; false if the process had already ended.
    func kill() -> Bool {
        ending.value.withLock { end in end == nil && Foundation.kill(child.pid, SIGKILL) == 0 }
    }

    /// Waits for the process to end, without blocking a thread.
    func exit() async -> Ending {
        for await end in ended { return end }
        return ending.value.withLock { $0 } ?? .exit(-1)
    }

    private final class Box: Sendable {
        let value = Mutex<Ending?>(nil)
    }
}
