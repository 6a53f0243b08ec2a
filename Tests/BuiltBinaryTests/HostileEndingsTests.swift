import ChildProcess
import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// Every way a run can end is recorded: SIGHUP (a closed terminal) during a transfer, and
/// a reader that goes away from standard output and error (`2>&1 | head`). Each runs the
/// built binary against the emulator, which does not deduplicate transfers, with a monitor
/// and a metrics file, and then runs again to see that nothing moves twice.
@Suite struct HostileEndingsTests {
    static let week = "2026-11-15"
    let home: TemporaryDirectory
    let token = "hostile-endings-" + UUID().uuidString

    init() throws { home = try TemporaryDirectory() }

    var environment: [String: String] { binaryEnvironment(home, token: token) }
    var metricsPath: String { home.path + "/metrics/roundup.prom" }

    func state() -> BankState {
        Seed.realisticWeek(endingOn: LocalDate(iso: Self.week)!, timeZone: TestBank.london, token: token)
    }

    func config(pingURL: String) throws -> String {
        try FileManager.default.createDirectory(atPath: home.path + "/metrics", withIntermediateDirectories: true)
        return try writeConfig("notify:\n  pingURL: \(pingURL)\nmetricsFile: \(metricsPath)\n", in: home)
    }

    /// The euro account's transfer waits at the bank for `seconds`.
    func stallEuroTransfer(_ server: EmulatorServer, seconds: Int) async throws {
        let euro = try #require(await server.bank.state.accounts.first { $0.currency == "EUR" }).uid
        await server.bank.injectFaults([
            FaultRule(endpoints: [.addMoney], pathContains: euro, when: .first(1), faults: [.stall(.seconds(seconds))])
        ])
    }

    /// The exit code the last run recorded, as `status --json` reads it.
    func lastRecordedExit() async throws -> Int? {
        let status = try await roundup(["status", "--json"], environment: environment)
        let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        return (json?["lastRun"] as? [String: Any])?["exitCode"] as? Int
    }

    func metricsExit() throws -> String? {
        try String(contentsOfFile: metricsPath, encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("roundup_run_exit_code ") }.map(String.init)
    }

    @Test func sighupDuringATransferEndsTheRunAsSigtermDoes() async throws {
        let monitor = try await PingReceiver.start()
        // notify.to hears of it too, as a failure.
        let hook = try await PingReceiver.start()
        let hookURL = "json://" + hook.url.dropFirst("http://".count).prefix { $0 != "/" } + "/notify"
        _ = try config(pingURL: monitor.url)
        let config = try writeConfig(
            "notify:\n  pingURL: \(monitor.url)\n  to: ['\(hookURL)']\nmetricsFile: \(metricsPath)\n", in: home)
        try await withEmulator(state(), behaviour: EmulatorBehaviour(deduplicatesTransfers: false)) { server in
            try await stallEuroTransfer(server, seconds: 6)
            let arguments = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config]
            let said = home.path + "/hangup.err"
            let descriptor = open(said, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            let child = try Child.spawn(
                try #require(roundupBinary), arguments, environment: unpaced(environment), stdout: descriptor,
                stderr: descriptor)
            close(descriptor)
            // The pound account's week is moved and recorded, the euro transfer waits at the bank;
            // the run counts the pound account finished a moment after the ledger has it.
            #expect(
                await eventually {
                    await server.bank.stalled == 1 && weeksDone(in: home.path + "/.local/state/roundup") == 1
                })
            try await Task.sleep(for: .milliseconds(250))
            kill(child.pid, SIGHUP)
            let ending = await ending(of: child)
            let text = try String(contentsOfFile: said, encoding: .utf8)
            #expect(ending.status == 128 + SIGHUP, "\(ending): \(text)")
            #expect(
                text.contains(
                    "stopped by SIGHUP; finished: Personal (GBP), week ending 2026-11-15; "
                        + "not finished: Euro (EUR), week ending 2026-11-15"), "\(text)")
            let pings = await monitor.pings
            #expect(pings.last?.path.hasSuffix("/fail") == true, "\(pings)")
            #expect(pings.last?.body.hasPrefix("exit 129: stopped by SIGHUP") == true, "\(pings)")
            let told = await hook.pings.compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.body.utf8))) as? [String: Any]
            }
            #expect(told.count == 1 && told.first?["title"] as? String == "roundup failed (exit 129)", "\(told)")
            #expect((told.first?["message"] as? String)?.hasPrefix("exit 129: stopped by SIGHUP") == true, "\(told)")
            #expect(try metricsExit() == "roundup_run_exit_code 129")
            #expect(try await lastRecordedExit() == 129)
            for _ in 0..<400 where await server.bank.transfers.count < 2 {
                try await Task.sleep(for: .milliseconds(25))
            }
            let rerun = try await roundup(arguments, environment: environment)
            #expect(rerun.status == 0, "\(rerun.stderr)")
            let moved = await server.bank.transfers.map(\.amount.minorUnits).sorted()
            #expect(moved == [126, 298])
            robustnessLine(
                "SIGHUP during a transfer",
                "exit \(ending.status), run row, /fail ping and metrics written, said which accounts were finished",
                moneyExactlyOnce: moved == [126, 298])
        }
        await monitor.stop()
        await hook.stop()
    }

    /// A signal while the feeds are slow to come, with a monitor slow to answer: nothing is
    /// sent to the bank after the signal, and the run ends once, as the signal says, however
    /// many signals come (SIGHUP, SIGTERM and SIGINT together).
    @Test func nothingIsSentAfterASignalAndTheRunEndsOnce() async throws {
        let monitor = try await PingReceiver.start(outcomeDelay: .seconds(3))
        let config = try config(pingURL: monitor.url)
        try await withEmulator(state(), behaviour: EmulatorBehaviour(deduplicatesTransfers: false)) { server in
            await server.bank.injectFaults([
                FaultRule(endpoints: [.settledFeed], when: .first(2), faults: [.stall(.seconds(3))])
            ])
            let arguments = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config]
            let said = home.path + "/signals.err"
            let descriptor = open(said, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            let child = try Child.spawn(
                try #require(roundupBinary), arguments, environment: unpaced(environment), stdout: descriptor,
                stderr: descriptor)
            close(descriptor)
            // Both feeds are held at the bank when the signals come.
            #expect(await eventually { await server.bank.stalled == 2 })
            for number in [SIGHUP, SIGTERM, SIGINT] { kill(child.pid, number) }
            let ending = await ending(of: child)
            let text = try String(contentsOfFile: said, encoding: .utf8)
            #expect([128 + SIGHUP, 128 + SIGTERM, 128 + SIGINT].contains(ending.status), "\(ending): \(text)")
            // The feeds came back while the run still waited for the monitor (3 s): nothing
            // that follows a week's feed (the funds, the search for its transfer, the goal's
            // total, the transfer) was asked after the signal, nor before it, as the feeds
            // were held.
            #expect(await eventually { await server.bank.stalled == 0 })
            #expect(await server.bank.transfers.isEmpty, "no transfer after the signal")
            let afterFeed: Set<Endpoint> = [.confirmationOfFunds, .categoryFeed, .savingsGoal, .addMoney]
            let asked = await server.bank.requests.filter { afterFeed.contains($0.endpoint) }
            #expect(asked.isEmpty, "no request after the signal: \(asked.map(\.path))")
            let pings = await monitor.pings
            #expect(pings.map(\.method) == ["GET", "POST"], "one start, one ending: \(pings)")
            #expect(pings.last?.path.hasSuffix("/fail") == true)
            #expect(text.components(separatedBy: "stopped by SIG").count == 2, "said once: \(text)")
            #expect(try metricsExit() == "roundup_run_exit_code \(ending.status)")
            #expect(try await lastRecordedExit() == Int(ending.status))
            let rerun = try await roundup(arguments, environment: environment)
            #expect(rerun.status == 0, "\(rerun.stderr)")
            let moved = await server.bank.transfers.map(\.amount.minorUnits).sorted()
            #expect(moved == [126, 298])
            robustnessLine(
                "SIGHUP, SIGTERM and SIGINT at once while the feeds are slow, a monitor slow to answer",
                "exit \(ending.status); no request after the signals; one /fail ping; run row and metrics agree",
                moneyExactlyOnce: moved == [126, 298])
        }
        await monitor.stop()
    }

    @Test func aReaderThatGoesAwayNeverStopsARun() async throws {
        let monitor = try await PingReceiver.start()
        let config = try config(pingURL: monitor.url)
        let binary = try #require(roundupBinary)
        try await withEmulator(state(), behaviour: EmulatorBehaviour(deduplicatesTransfers: false)) { server in
            // The reader goes after six lines of the log; the euro transfer is still to come.
            try await stallEuroTransfer(server, seconds: 2)
            let script =
                "\"$ROUNDUP\" run --verbose --end-date \(Self.week) --api-base-url \(server.baseURL) --config \(config)"
                + " 2>&1 | head -6 > /dev/null; echo \"status ${PIPESTATUS[0]}\" >&2"
            let result = try await run(
                "/bin/bash", ["-c", script], environment: unpaced(environment).merging(["ROUNDUP": binary]) { $1 })
            #expect(result.stderr == "status 0\n", "the run finished with its own code: \(result.stderr)")
            let moved = await server.bank.transfers.map(\.amount.minorUnits).sorted()
            #expect(moved == [126, 298])
            let pings = await monitor.pings
            #expect(pings.last.map { $0.method == "POST" && !$0.path.hasSuffix("/fail") } == true, "\(pings)")
            #expect(try metricsExit() == "roundup_run_exit_code 0")
            #expect(try await lastRecordedExit() == 0)
            let rerun = try await roundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL], environment: environment)
            #expect(rerun.status == 0, "\(rerun.stderr)")
            #expect(await server.bank.transfers.count == 2)
            robustnessLine(
                "run --verbose 2>&1 | head -6 (standard output and error closed mid-run)",
                "\(result.stderr.trimmingCharacters(in: .newlines)), run row, ping and metrics written",
                moneyExactlyOnce: await server.bank.transfers.count == 2)
        }
        await monitor.stop()
    }

    @Test func sigtermDuringAResolveRetrySaysWhatItHadDone() async throws {
        let directory = home.path + "/.config/roundup"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The transfer reaches a bank that refuses it for lack of funds: the week fails.
        try "overdraft: allow\n".write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
        var bank = TestBank(token: token)
        let account = bank.account("GBP", name: "Personal", balance: 0)
        bank.goal(account, name: "Round-ups", uid: "90000000-0000-4000-8000-0000000000ab")
        bank.spend(account, 101, settled: Instant(iso8601: "2026-11-12T12:00:00Z")!)
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(deduplicatesTransfers: false)) { server in
            let url = ["--api-base-url", server.baseURL]
            let failed = try await roundup(["run", "--end-date", Self.week] + url, environment: environment)
            #expect(failed.status == 75, "\(failed.stderr)")
            await server.bank.update { $0.accounts[0].balance = 10_00 }
            await server.bank.injectFaults([
                FaultRule(endpoints: [.addMoney], when: .first(1), faults: [.stall(.seconds(4))])
            ])
            let said = home.path + "/resolve.err"
            let descriptor = open(said, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            let child = try Child.spawn(
                try #require(roundupBinary),
                ["resolve", "--retry", "--account", account, "--end-date", Self.week] + url,
                environment: unpaced(environment), stdout: descriptor, stderr: descriptor)
            close(descriptor)
            // The transfer is at the bank, waiting, when the signal comes.
            #expect(await eventually { await server.bank.stalled == 1 })
            kill(child.pid, SIGTERM)
            let ending = await ending(of: child)
            let text = try String(contentsOfFile: said, encoding: .utf8)
            #expect(ending.status == 128 + SIGTERM, "\(ending): \(text)")
            #expect(
                text.contains(
                    "roundup: stopped by SIGTERM before it finished settling the week ending \(Self.week) of "
                        + "Personal (GBP); the ledger has the week as unconfirmed"), "\(text)")
            // The bank carries out what it had received; a check finds it, and nothing moves twice.
            for _ in 0..<400 where await server.bank.transfers.isEmpty { try await Task.sleep(for: .milliseconds(25)) }
            let check = try await roundup(
                ["resolve", "--check", "--account", account, "--end-date", Self.week] + url, environment: environment)
            #expect(check.status == 0, "\(check.stderr)")
            let rerun = try await roundup(["run", "--end-date", Self.week] + url, environment: environment)
            #expect(rerun.status == 0, "\(rerun.stderr)")
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [99])
            robustnessLine(
                "SIGTERM during resolve --retry", "exit \(ending.status), said where the week stands",
                moneyExactlyOnce: await server.bank.transfers.map(\.amount.minorUnits) == [99])
        }
    }
}
