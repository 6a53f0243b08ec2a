import ChildProcess
import Foundation
import RoundUp
import RoundUpLedger
import StarlingEmulator
import TestSupport
import Testing

/// Being told: the ledger's run table, `roundup status`, the dead man's switch, the metrics
/// file and `--quiet`, through the built binary against the emulator and a local monitor.
@Suite struct WatchTests {
    static let week = "2026-11-15"
    let home: TemporaryDirectory
    let token = "watch-token-" + UUID().uuidString

    init() throws { home = try TemporaryDirectory() }

    /// Nothing on this machine schedules these runs: `status` is not asked to find what does.
    var environment: [String: String] {
        binaryEnvironment(home, token: token).merging(["ROUNDUP_SCHEDULER": "external"]) { $1 }
    }
    var metricsPath: String { home.path + "/metrics/roundup.prom" }
    var stateDirectory: String { home.path + "/.local/state/roundup" }

    func state(week: String = Self.week) -> BankState {
        Seed.realisticWeek(endingOn: LocalDate(iso: week)!, timeZone: TestBank.london, token: token)
    }

    func config(pingURL: String) throws -> String {
        try FileManager.default.createDirectory(atPath: home.path + "/metrics", withIntermediateDirectories: true)
        return try writeConfig("notify:\n  pingURL: \(pingURL)\nmetricsFile: \(metricsPath)\n", in: home)
    }

    func status() async throws -> (code: Int32, json: [String: Any]) {
        let result = try await roundup(["status", "--json"], environment: environment)
        let schema = try JSONSchema(file: SchemaTests.schemaDirectory + "/status-v1.schema.json")
        #expect(schema.problems(inJSON: result.stdout) == [], "status --json follows its schema")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (result.status, try #require(json, "\(result.stdout) \(result.stderr)"))
    }

    func metric(_ name: String) throws -> String? {
        let text = try String(contentsOfFile: metricsPath, encoding: .utf8)
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") || $0.hasPrefix(name + "{") }
            .map(String.init)
    }

    @Test func aGoodRunPingsStartAndSuccessWritesMetricsAndStatusSaysOK() async throws {
        #expect(try await status().code == 3, "no ledger: UNKNOWN")
        let monitor = try await PingReceiver.start()
        let config = try config(pingURL: monitor.url)
        // The week that ended last: status is OK only when the newest week is recorded.
        let week = Week.newest(endingOn: .sunday, before: .now, in: TestBank.london).endDate.description
        try await withEmulator(state(week: week)) { server in
            let result = try await roundup(
                ["run", "--end-date", week, "--api-base-url", server.baseURL, "--config", config],
                environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
        }
        let pings = await monitor.pings
        await monitor.stop()
        #expect(
            pings.map { "\($0.method) \($0.path)" } == [
                "GET /ping/5f1b0c1e-0000-4000-8000-00000000c0de/start",
                "POST /ping/5f1b0c1e-0000-4000-8000-00000000c0de",
            ])
        let body = try #require(pings.last?.body)
        #expect(body.hasPrefix("exit 0: week ending \(week); moved 1.26 EUR, 2.98 GBP; 2 account-week(s) done"))
        #expect(!body.contains(token) && !body.contains("7f4e2a10"), "no token, no account uid")
        #expect(pings.allSatisfy { $0.headers["authorization"] == nil }, "never the bank's headers")

        #expect(try metric("roundup_run_exit_code") == "roundup_run_exit_code 0")
        #expect(
            try metric("roundup_saved_minor_units_total") == "roundup_saved_minor_units_total{currency=\"EUR\"} 126")
        #expect(try metric("roundup_transfers") == "roundup_transfers 2")
        #expect(try metric("roundup_last_success_timestamp_seconds") != nil)
        let mode = try FileManager.default.attributesOfItem(atPath: metricsPath)[.posixPermissions] as? Int
        #expect(mode == 0o644, "node_exporter's user can read it")

        let (code, json) = try await status()
        #expect(code == 0)
        #expect(json["status"] as? String == "OK")
        #expect((json["lastRun"] as? [String: Any])?["accountsDone"] as? Int == 2)

        // Settings that cannot be used: recorded where the state directory is known, and
        // told to a monitor the environment names.
        let second = try await PingReceiver.start()
        let broken = try await roundup(
            ["run", "--end-date", Self.week],
            environment: environment.merging([
                "ROUNDUP_MAX_REQUESTS_PER_SECOND": "0", "ROUNDUP_PING_URL": second.url,
            ]) { $1 })
        #expect(broken.status == 78)
        let told = await second.pings
        await second.stop()
        #expect(told.map(\.path).last?.hasSuffix("/fail") == true, "\(told)")
        let after = try await status()
        #expect(after.code == 2)
        #expect((after.json["lastRun"] as? [String: Any])?["exitCode"] as? Int == 78)
    }

    @Test func aRejectedTokenPingsFailCountsTheFailureAndStatusIsCritical() async throws {
        let monitor = try await PingReceiver.start()
        let config = try config(pingURL: monitor.url)
        try await withEmulator(state()) { server in
            let result = try await roundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config],
                environment: environment.merging(["STARLING_ACCESS_TOKEN": "revoked-token-123456"]) { $1 })
            #expect(result.status == 77)
        }
        let pings = await monitor.pings
        await monitor.stop()
        #expect(pings.map(\.path).last?.hasSuffix("/fail") == true, "\(pings)")
        #expect(pings.last?.body.contains("exit 77") == true)
        #expect(pings.allSatisfy { !$0.body.contains("revoked-token-123456") })
        #expect(try metric("roundup_run_exit_code") == "roundup_run_exit_code 77")
        #expect(
            try metric("roundup_last_success_timestamp_seconds") == "roundup_last_success_timestamp_seconds 0",
            "no run has succeeded: 0, so an alert on its age fires")
        let (code, json) = try await status()
        #expect(code == 2, "the token needs a person")
        #expect(json["status"] as? String == "CRITICAL")
    }

    @Test func aBankThatKeepsFailingIsAWarningAndAnUnreachableMonitorChangesNothing() async throws {
        let closed = try ClosedPort()
        let url = "http://127.0.0.1:\(closed.port)/secret-check-uuid"
        let config = try config(pingURL: url)
        try await withEmulator(state()) { server in
            let arguments = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config]
            let good = try await roundup(arguments + ["--end-date", "2026-11-08"], environment: environment)
            #expect(good.status == 0, "an unreachable monitor leaves the outcome alone: \(good.stderr)")
            #expect(good.stderr.contains("could not ping the monitor at http://127.0.0.1/…"), "\(good.stderr)")
            #expect(!good.stderr.contains("secret-check-uuid"), "the URL is a secret")
            await server.bank.injectFaults([
                FaultRule(endpoints: [.settledFeed], when: .always, faults: [.serverError(503)])
            ])
            let quickRetries = try writeConfig(
                "notify:\n  pingURL: \(url)\nretryAttempts: 1\nmetricsFile: \(metricsPath)\n", in: home)
            let failing = try await roundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", quickRetries],
                environment: environment)
            #expect(failing.status == 69, "\(failing.stderr)")
        }
        #expect(try metric("roundup_run_exit_code") == "roundup_run_exit_code 69", "the failure is counted")
        #expect(try metric("roundup_transfers") == "roundup_transfers 0")
        #expect(try metric("roundup_last_success_timestamp_seconds") != nil, "the good run before it")
        let (code, json) = try await status()
        #expect(code == 1, "a failure that may pass: WARNING")
        #expect((json["lastRun"] as? [String: Any])?["accountsFailed"] as? Int == 2)
        #expect((json["lastSuccess"] as? [String: Any])?["weeks"] as? String == "2026-11-08")
    }

    /// The run's row is finished while the run still holds the state directory's lock, so
    /// no other run writes the ledger meanwhile; the monitor is told after the lock is gone,
    /// so a slow monitor keeps no other run waiting.
    @Test func aRunFinishesItsRowBeforeItLetsGoOfTheLockAndTellsTheMonitorAfter() async throws {
        let monitor = try await PingReceiver.start(outcomeDelay: .seconds(5))
        let config = try config(pingURL: monitor.url)
        try await withEmulator(state()) { server in
            let run = try LaunchedRoundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config],
                environment: environment, output: home.path + "/run")
            // A whole run, on a machine busy with every other test.
            let told = await waitFor(run, within: .seconds(90)) {
                await monitor.pings.contains { $0.method == "POST" }
            }
            #expect(told, "the monitor hears of the run's end (still running: \(run.isRunning))")
            // The monitor is still answering the run's outcome: the row is finished, and the
            // lock is free for the next run.
            let row = try Ledger.readOnlyCopy(of: Ledger.path(in: stateDirectory)).runs(limit: 1).first
            #expect(row?.exitCode == 0 && row?.endedAt != nil, "\(String(describing: row))")
            #expect(run.isRunning, "the run still waits for the monitor's answer")
            let meanwhile = try await RunLock.acquire(in: stateDirectory, wait: .zero)
            #expect(meanwhile != nil, "a slow monitor does not hold the lock")
            #expect(await run.exit() == .exit(0))
        }
        await monitor.stop()
    }

    /// A run refused the lock (another run holds it) changed nothing, yet is recorded with
    /// its exit 75, told to the monitor and counted in the metrics, as any other run.
    @Test func aRunRefusedTheLockIsRecordedAndPinged() async throws {
        try FileManager.default.createDirectory(
            atPath: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let held = try #require(try await RunLock.acquire(in: stateDirectory, wait: .zero))
        let monitor = try await PingReceiver.start()
        let config = try writeConfig(
            "notify:\n  pingURL: \(monitor.url)\nmetricsFile: \(metricsPath)\nlockWaitSeconds: 0\n", in: home)
        try FileManager.default.createDirectory(atPath: home.path + "/metrics", withIntermediateDirectories: true)
        let refused = try await roundup(
            ["run", "--end-date", Self.week, "--config", config], environment: environment)
        #expect(refused.status == 75)
        #expect(refused.stderr.contains("another roundup run is using \(stateDirectory)"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("run table"), "it is recorded: \(refused.stderr)")
        // The monitor records what it heard on its own time, on a machine busy with other tests.
        for _ in 0..<400 where await monitor.pings.count < 2 { try await Task.sleep(for: .milliseconds(25)) }
        let pings = await monitor.pings
        await monitor.stop()
        #expect(pings.map(\.method) == ["GET", "POST"])
        #expect(pings.last?.path.hasSuffix("/fail") == true)
        #expect(pings.last?.body.hasPrefix("exit 75: ") == true, "\(pings)")
        #expect(try metric("roundup_run_exit_code") == "roundup_run_exit_code 75")
        let (_, json) = try await status()
        let lastRun = try #require(json["lastRun"] as? [String: Any])
        #expect(lastRun["exitCode"] as? Int == 75)
        #expect(lastRun["endedAt"] as? String != nil)
        withExtendedLifetime(held) {}
    }

    /// A run stopped by SIGTERM while it waits for another run's lock is recorded as stopped
    /// and told to the monitor, like a run refused the lock.
    @Test func aRunStoppedWhileWaitingForTheLockIsRecorded() async throws {
        try FileManager.default.createDirectory(
            atPath: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let held = try #require(try await RunLock.acquire(in: stateDirectory, wait: .zero))
        let monitor = try await PingReceiver.start()
        let config = try writeConfig("notify:\n  pingURL: \(monitor.url)\nlockWaitSeconds: 60\n", in: home)
        let output = open(home.path + "/stopped.out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let child = try Child.spawn(
            try #require(roundupBinary), ["run", "--end-date", Self.week, "--config", config],
            environment: unpaced(environment), stdout: output, stderr: output)
        close(output)
        // It has begun (pinged /start), and waits for the lock: it holds the lock file open.
        #expect(await eventually { await !monitor.pings.isEmpty })
        #expect(await eventually { holdsOpen(child.pid, stateDirectory + "/roundup.lock") })
        kill(child.pid, SIGTERM)
        let ending = await ending(of: child)
        let said = try String(contentsOfFile: home.path + "/stopped.out", encoding: .utf8)
        #expect(ending == .exit(128 + SIGTERM), "\(said)")
        let pings = await monitor.pings
        await monitor.stop()
        #expect(pings.last?.path.hasSuffix("/fail") == true, "\(pings)")
        #expect(pings.last?.body.hasPrefix("exit 143: stopped by SIGTERM") == true, "\(pings)")
        let (_, json) = try await status()
        #expect((json["lastRun"] as? [String: Any])?["exitCode"] as? Int == 143)
        withExtendedLifetime(held) {}
    }

    @Test func quietPrintsNothingWhenAllIsWellAndOneLineOtherwise() async throws {
        try await withEmulator(state()) { server in
            let arguments = ["run", "--quiet", "--api-base-url", server.baseURL]
            let good = try await roundup(arguments + ["--end-date", Self.week], environment: environment)
            #expect(good.status == 0)
            #expect(good.stdout.isEmpty && good.stderr.isEmpty, "\(good.stdout)\(good.stderr)")
            // A metrics file that cannot be written is said even so.
            let nowhere = try await roundup(
                arguments + ["--end-date", "2026-11-01", "--metrics-file", home.path + "/missing/roundup.prom"],
                environment: environment)
            #expect(nowhere.status == 0)
            #expect(nowhere.stderr.contains("could not write the metrics file"), "\(nowhere.stderr)")
            let fragment = try await roundup(
                arguments + ["--end-date", "2026-11-01"],
                environment: environment.merging(["ROUNDUP_PING_URL": "http://127.0.0.1:9/check#x"]) { $1 })
            #expect(fragment.status == 78)
            // The one line gives the reason; stderr does not say it again.
            #expect(fragment.stdout.hasPrefix("exit 78: "), "\(fragment.stdout)")
            #expect(fragment.stdout.contains("without a query or a #fragment"), "\(fragment.stdout)")
            #expect(!fragment.stdout.contains("0 held"), "no counts for a run that reached no week")
            #expect(!fragment.stderr.contains("without a query or a #fragment"), "\(fragment.stderr)")
            await server.bank.injectFaults([
                FaultRule(endpoints: [.settledFeed], when: .always, faults: [.serverError(503)])
            ])
            let config = try writeConfig("retryAttempts: 1\n", in: home)
            let bad = try await roundup(
                arguments + ["--end-date", "2026-11-08", "--config", config], environment: environment)
            #expect(bad.status == 69)
            #expect(bad.stdout.split(separator: "\n").count == 1)
            #expect(
                bad.stdout.hasPrefix(
                    "exit 69: week ending 2026-11-08; 0 account-week(s) done, 0 held, 0 unconfirmed, 2 failed"))
        }
    }
}
