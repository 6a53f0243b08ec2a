import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// `roundup status` as a monitor reads it, against the built binary: OK again once a person
/// has settled every held week, and at least WARNING while a transfer is unconfirmed, however
/// the run that left it ended.
@Suite struct StatusTableTests {
    /// The week that ended last, and the one before: status is OK only once the newest week
    /// is recorded.
    static let newest = Week.newest(endingOn: .sunday, before: .now, in: TestBank.london).endDate
    static let earlier = newest.adding(days: -7).description
    static let week = newest.description

    static func bank(_ token: String) -> (TestBank, String) {
        var bank = TestBank(token: token)
        let gbp = bank.account("GBP", name: "Personal")
        bank.goal(gbp, name: "Round-ups", uid: "90c00000-0000-4000-8000-0000000000f1")
        for end in [earlier, week] {
            bank.spend(gbp, 1_50, settled: londonWeek(end).start.adding(milliseconds: 3_600_000))
        }
        return (bank, gbp)
    }

    /// Nothing on this machine schedules these runs: `status` is not asked to find what does.
    static func unscheduled(_ home: TemporaryDirectory, token: String) -> [String: String] {
        binaryEnvironment(home, token: token).merging(["ROUNDUP_SCHEDULER": "external"]) { $1 }
    }

    @Test func statusIsOKOnceThePersonHasSettledEveryHeldWeek() async throws {
        let (bank, gbp) = Self.bank("status-held-then-resolved")
        let home = try TemporaryDirectory()
        let environment = Self.unscheduled(home, token: "status-held-then-resolved")
        try await withEmulator(bank.state) { server in
            let config = try writeConfig("goalWaitSeconds: 0\n", in: home)
            let base = ["--api-base-url", server.baseURL, "--config", config]
            let first = try await roundup(["run", "--end-date", Self.earlier] + base, environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            // The goal stops taking money: the next week is held for a person (78).
            await server.bank.update { $0.goals[gbp]![0].state = "CREATING" }
            let held = try await roundup(["run", "--end-date", Self.week] + base, environment: environment)
            #expect(held.status == 78, "\(held.stderr)")
            let waiting = try await roundup(["status", "--config", config], environment: environment)
            #expect(waiting.status == 1, "\(waiting.stdout)")
            #expect(waiting.stdout.hasPrefix("roundup WARNING"), "\(waiting.stdout)")
            // A person settles it: status is OK at once, not only after the next run.
            await server.bank.update { $0.goals[gbp]![0].state = "ACTIVE" }
            let resolved = try await roundup(
                ["resolve", "--account", gbp, "--end-date", Self.week, "--retry"] + base, environment: environment)
            #expect(resolved.status == 0, "\(resolved.stdout)\(resolved.stderr)")
            // resolve ends with what status now says.
            #expect(resolved.stdout.hasSuffix("status now: OK\n"), "\(resolved.stdout)")
            let settled = try await roundup(["status", "--config", config], environment: environment)
            #expect(settled.status == 0, "\(settled.stdout)")
            #expect(settled.stdout.hasPrefix("roundup OK"), "\(settled.stdout)")
            #expect(await server.bank.transfers.count == 2)
        }
    }

    @Test func aRunKilledMidTransferLeavesStatusAtLeastWarning() async throws {
        let (bank, _) = Self.bank("status-killed-mid-transfer")
        let home = try TemporaryDirectory()
        let environment = Self.unscheduled(home, token: "status-killed-mid-transfer")
        try await withEmulator(bank.state) { server in
            let first = try await roundup(
                ["run", "--end-date", Self.earlier, "--api-base-url", server.baseURL], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            // The bank moves the money and takes its time to say so; the run is killed meanwhile.
            await server.bank.injectFaults([
                FaultRule(endpoints: [.addMoney], when: .always, faults: [.latency(.seconds(20))])
            ])
            let victim = try LaunchedRoundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL], environment: environment,
                output: home.path + "/killed")
            let moved = await waitFor(victim, within: .seconds(180)) { await server.bank.transfers.count == 2 }
            #expect(moved)
            #expect(victim.kill())
            _ = await victim.exit()
            await server.bank.injectFaults([])
            let status = try await roundup(["status"], environment: environment)
            #expect(status.status == 1, "\(status.stdout)")
            #expect(status.stdout.hasPrefix("roundup WARNING"), "\(status.stdout)")
            #expect(status.stdout.contains("unconfirmed:     1"), "\(status.stdout)")
            #expect(
                status.stdout.contains("is unconfirmed: its transfer is not yet known to have arrived"),
                "\(status.stdout)")
            // The next run finds it in the feed and moves nothing again; status is OK.
            let next = try await roundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL], environment: environment)
            #expect(next.status == 0, "\(next.stderr)")
            #expect(await server.bank.transfers.count == 2)
            let after = try await roundup(["status"], environment: environment)
            #expect(after.stdout.hasPrefix("roundup OK"), "\(after.stdout)")
        }
    }
}
