import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// `roundup resolve`, run as the built binary.
@Suite struct ResolveTests {
    let home: TemporaryDirectory
    let token = "resolve-token-" + UUID().uuidString

    init() throws { home = try TemporaryDirectory() }

    var environment: [String: String] { ["HOME": home.path, "PATH": "/usr/bin:/bin"] }
    var withToken: [String: String] { environment.merging(["STARLING_ACCESS_TOKEN": token]) { $1 } }

    /// A config that lets a transfer reach a bank that refuses it for lack of funds, where
    /// `overdraft: avoid` would hold it back before sending.
    func allowOverdraft() throws {
        let directory = home.path + "/.config/roundup"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "overdraft: allow\n".write(toFile: directory + "/config.yaml", atomically: true, encoding: .utf8)
    }

    @Test func withNoLedgerThereIsNothingToResolve() async throws {
        let result = try await roundup(["resolve"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("nothing to resolve"))
    }

    @Test(arguments: [
        (["resolve", "--check"], "name the week to settle with --account and --end-date"),
        (["resolve", "--account", "a", "--end-date", "2026-11-15"], "say what to do with the week"),
        (["resolve", "--account", "a", "--end-date", "2026-11-15", "--check", "--retry"], "not several"),
        (["resolve", "--account", "a", "--end-date", "2026-11-15", "--abandon", " "], "needs a reason"),
        (["resolve", "--account", "a", "--end-date", "2026-02-30", "--check"], "is invalid for '--end-date"),
    ])
    func aBadResolveIsAUsageError(arguments: [String], message: String) async throws {
        let result = try await roundup(arguments, environment: withToken)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func aRetryMovesAFailedWeekOnce() async throws {
        try allowOverdraft()
        var bank = TestBank(token: token)
        let account = bank.account("GBP", name: "Personal", balance: 0)
        bank.goal(account, name: "Round-ups", uid: "90000000-0000-4000-8000-0000000000aa")
        bank.spend(account, 101, settled: londonWeek("2026-11-15").start.adding(milliseconds: 3_600_000))
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(deduplicatesTransfers: false)) { server in
            let url = ["--api-base-url", server.baseURL]
            #expect(try await roundup(["run", "--end-date", "2026-11-15"] + url, environment: withToken).status == 75)
            await server.bank.update { $0.accounts[0].balance = 10_00 }
            let week = ["--account", account, "--end-date", "2026-11-15"]
            let retried = try await roundup(["resolve", "--retry", "--verbose"] + week + url, environment: withToken)
            #expect(retried.status == 0, "\(retried.stderr)")
            #expect(retried.stdout.contains("Moved 0.99 GBP into \"Round-ups\" for the week ending 2026-11-15"))
            #expect(!retried.stderr.isEmpty && !retried.stderr.contains(token), "--verbose logs, never the token")
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [99])
            let history = try await roundup(["history"], environment: environment)
            #expect(history.stdout.contains("resolved: retried at"))
            #expect(try await roundup(["run", "--end-date", "2026-11-15"] + url, environment: withToken).status == 0)
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [99])
        }
    }

    @Test func aFailedWeekIsListedCheckedAndAbandoned() async throws {
        try allowOverdraft()
        var bank = TestBank(token: token)
        let account = bank.account("GBP", name: "Personal", balance: 0)
        bank.goal(account, name: "Round-ups", uid: "90000000-0000-4000-8000-0000000000aa")
        bank.spend(account, 101, settled: londonWeek("2026-11-15").start.adding(milliseconds: 3_600_000))
        try await withEmulator(bank.state) { server in
            let url = ["--api-base-url", server.baseURL]
            let run = try await roundup(["run", "--end-date", "2026-11-15"] + url, environment: withToken)
            #expect(run.status == 75, "insufficient funds may pass: \(run.stderr)")
            let listed = try await roundup(["resolve"], environment: environment)
            #expect(listed.status == 0)
            #expect(listed.stdout.contains("unconfirmed: Personal (GBP), week ending 2026-11-15"))
            #expect(listed.stdout.contains("INSUFFICIENT_FUNDS"))
            let week = ["--account", account, "--end-date", "2026-11-15"]
            let checked = try await roundup(["resolve", "--check"] + week + url, environment: withToken)
            #expect(checked.status == 0, "\(checked.stderr)")
            #expect(checked.stdout.contains("The feed shows no transfer of 0.99 GBP"))
            // With no money, a retry fails as the run did and changes nothing.
            let broke = try await roundup(["resolve", "--retry"] + week + url, environment: withToken)
            #expect(broke.status == 75, "\(broke.stderr)")
            #expect(broke.stderr.contains("INSUFFICIENT_FUNDS"))
            // Abandoning needs no token and no bank.
            let abandoned = try await roundup(
                ["resolve", "--abandon", "spent elsewhere"] + week, environment: environment)
            #expect(abandoned.status == 0, "\(abandoned.stderr)")
            #expect(abandoned.stdout.contains("Abandoned the week ending 2026-11-15 of Personal (GBP)"))
            let history = try await roundup(["history"], environment: environment)
            #expect(history.stdout.contains("abandoned"))
            #expect(history.stdout.contains("spent elsewhere; resolved: abandoned at"))
            #expect(try await roundup(["resolve"], environment: environment).stdout.contains("Nothing to resolve"))
            await server.bank.update { $0.accounts[0].balance = 10_00 }
            #expect(try await roundup(["run", "--end-date", "2026-11-15"] + url, environment: withToken).status == 0)
            #expect(await server.bank.transfers.isEmpty, "an abandoned week is never moved")
            let again = try await roundup(["resolve", "--retry"] + week + url, environment: withToken)
            #expect(again.status == 64, "an abandoned week is settled")
            for text in [run.stderr, listed.stdout, checked.stdout, checked.stderr, broke.stderr, history.stdout] {
                #expect(!text.contains(token))
            }
        }
    }
}
