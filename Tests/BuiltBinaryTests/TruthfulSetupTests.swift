import ChildProcess
import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// What the built binary tells the person at the terminal and the monitor: a typed mistake
/// is said once and recorded only when no person typed it, a rerun that changes nothing
/// writes no report, a held week is said once, and `status` says each run once, in the
/// saver's time.
@Suite struct TruthfulSetupTests {
    static let week = "2026-11-15"
    let home: TemporaryDirectory
    let token = "truthful-token-" + UUID().uuidString

    init() throws { home = try TemporaryDirectory() }

    var environment: [String: String] { binaryEnvironment(home, token: token) }
    var stateDirectory: String { home.path + "/.local/state/roundup" }
    var reports: String { stateDirectory + "/reports" }

    func bank() -> BankState {
        Seed.realisticWeek(endingOn: LocalDate(iso: Self.week)!, timeZone: TestBank.london, token: token)
    }

    /// `arguments` run by the binary with a terminal as its standard input, as a person
    /// types them (util-linux `script`); nil when `script` is missing.
    func typed(_ arguments: [String], environment: [String: String]) async throws -> Execution? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return nil }
        let binary = try #require(roundupBinary)
        let command = ([binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try await run(
            "/usr/bin/script", ["-qec", command, "/dev/null"], environment: unpaced(environment))
    }

    @Test func aMistakeTypedAtATerminalIsSaidOnceAndIsNoRun() async throws {
        let monitor = try await PingReceiver.start()
        defer { Task { await monitor.stop() } }
        let config = try writeConfig("notify:\n  pingURL: \(monitor.url)\n", in: home)
        try await withEmulator(bank()) { server in
            let common = ["run", "--api-base-url", server.baseURL, "--config", config]
            // A first real run, so that there is a ledger where a mistake could be recorded.
            let good = try await roundup(common + ["--end-date", Self.week], environment: environment)
            #expect(good.status == 0, "\(good.stderr)")
            let requests = await server.bank.requests.count
            let pingsBefore = await monitor.pings.count

            let future = ["--end-date", "2099-01-04"]
            guard let typed = try await typed(common + future, environment: environment) else {
                print("skipped: a terminal for standard input needs util-linux's /usr/bin/script")
                return
            }
            #expect(typed.status == 64, "\(typed.stdout)")
            // script joins stdout and stderr: the reason appears once.
            #expect(typed.stdout.components(separatedBy: "has not ended yet").count == 2, "\(typed.stdout)")
            #expect(await server.bank.requests.count == requests, "nothing was asked of the bank")
            #expect(await monitor.pings.count == pingsBefore, "the monitor heard nothing")
            let status = try await roundup(["status", "--json", "--config", config], environment: environment)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
            #expect((json["lastRun"] as? [String: Any])?["exitCode"] as? Int == 0, "the typed mistake is no run")
            #expect(try reportNames().allSatisfy { !$0.contains(".failed.") })

            // The same mistake from a schedule (no terminal) is a run that needs a person.
            let scheduled = try await roundup(common + future, environment: environment)
            #expect(scheduled.status == 64)
            #expect(scheduled.stderr.components(separatedBy: "has not ended yet").count == 2, "\(scheduled.stderr)")
            #expect(scheduled.stdout.isEmpty)
            #expect(await server.bank.requests.count == requests, "nothing was asked of the bank")
            let pings = await monitor.pings.dropFirst(pingsBefore)
            #expect(pings.map(\.path).last?.hasSuffix("/fail") == true, "\(pings.map(\.path))")
            #expect(pings.last?.body.hasPrefix("exit 64: the week ending 2099-01-04 has not ended yet") == true)
            let after = try await roundup(["status", "--config", config], environment: environment)
            #expect(after.status == 2, "\(after.stdout)")
            #expect(after.stdout.contains("exit 64: the week ending 2099-01-04"))

            // A flag the parser refuses: typed, it is no run; from a schedule, it is one.
            let typo = try #require(try await self.typed(common + ["--colr", "x"], environment: environment))
            #expect(typo.status == 64 && typo.stdout.contains("Unknown option '--colr'"), "\(typo.stdout)")
            let unchanged = try await roundup(["status", "--config", config], environment: environment)
            #expect(!unchanged.stdout.contains("--colr"), "\(unchanged.stdout)")
            let scheduledTypo = try await roundup(common + ["--colr", "x"], environment: environment)
            #expect(scheduledTypo.status == 64)
            let recorded = try await roundup(["status", "--config", config], environment: environment)
            #expect(recorded.stdout.contains("exit 64: Unknown option '--colr'"), "\(recorded.stdout)")
            #expect(await monitor.pings.last?.body.contains("Unknown option '--colr'") == true)
        }
    }

    func reportNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: reports).sorted()
    }

    @Test func aRerunThatChangesNothingWritesNoReportAndSaysSo() async throws {
        try await withEmulator(bank()) { server in
            let arguments = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL]
            let first = try await roundup(arguments, environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            let written = try reportNames()
            let moved = try FileManager.default.destinationOfSymbolicLink(atPath: "\(reports)/roundup-\(Self.week).md")
            #expect(moved.hasSuffix(".moved.md"))

            let again = try await roundup(arguments, environment: environment)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("already transferred"))
            #expect(
                again.stdout.contains(
                    "Report: none new (earlier runs settled this week; this run changed nothing): "
                        + "\(reports)/roundup-\(Self.week).md -> \(moved)"), "\(again.stdout)")
            #expect(try reportNames() == written, "no new report pair")
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: "\(reports)/roundup-\(Self.week).md")
                    == moved)

            // A run that does something still writes its report: a week by hand, not counted yet.
            let other = try await roundup(
                ["run", "--end-date", "2026-11-08", "--api-base-url", server.baseURL], environment: environment)
            #expect(other.status == 0, "\(other.stderr)")
            #expect(try reportNames().count == written.count + 4)
        }
    }

    @Test func statusSaysEachRunOnceInTheSaversTime() async throws {
        let config = try writeConfig("timeZone: Pacific/Auckland\n", in: home)
        try await withEmulator(bank()) { server in
            let good = try await roundup(
                ["run", "--end-date", "2026-11-16", "--api-base-url", server.baseURL, "--config", config],
                environment: environment)
            #expect(good.status == 0, "\(good.stderr)")
            // A config mistake from a schedule: a run that needs a person, with no counts.
            let bad = try await roundup(
                ["run", "--api-base-url", server.baseURL, "--config", config, "--quiet"],
                environment: environment.merging(["ROUNDUP_TIME_ZONE": "Mars/Olympus"]) { $1 })
            #expect(bad.status == 78, "\(bad.stdout) \(bad.stderr)")
            #expect(bad.stdout.hasPrefix("exit 78: ") && !bad.stdout.contains("held"), "\(bad.stdout)")
            #expect(!bad.stderr.contains("Mars/Olympus"), "the --quiet line said it: \(bad.stderr)")
        }
        let status = try await roundup(["status", "--config", config], environment: environment)
        #expect(status.status == 2, "\(status.stdout)")
        let lines = status.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "roundup CRITICAL (times in Pacific/Auckland)")
        // Each run on one line, its summary once: the last run's reason is not repeated below.
        #expect(status.stdout.components(separatedBy: "Mars/Olympus").count == 2, "\(status.stdout)")
        #expect(status.stdout.components(separatedBy: "week ending 2026-11-16").count == 2, "\(status.stdout)")
        // The times are Auckland's, with their offset (+13:00 in its summer).
        let last = try #require(lines.first { $0.hasPrefix("last run:") })
        #expect(last.contains(" +13:00, took "), "\(last)")
        #expect(!status.stdout.contains("Z to "), "no UTC timestamps: \(status.stdout)")
    }
}
