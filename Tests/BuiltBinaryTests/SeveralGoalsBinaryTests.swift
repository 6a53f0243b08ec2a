import ChildProcess
import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// `saveInto` as a saver uses it: the built binary against the emulator (deduplication off,
/// so that a transfer sent twice would show), reading what it prints, its reports, `check`,
/// `history`, `status` and `resolve`.
@Suite struct SeveralGoalsBinaryTests {
    static let week = "2026-11-15"
    static let token = "several-goals-token"
    static let emergency = "90000000-0000-4000-8000-0000000000e1"
    static let holiday = "90000000-0000-4000-8000-0000000000e2"
    static let roundUps = "90000000-0000-4000-8000-0000000000e3"
    static let fill = "saveInto:\n  fill: [Emergency fund, Holiday, Round-ups]\n"

    /// One GBP account whose week rounds up to 2.29: Emergency fund 1.00 short of its
    /// target, Holiday at its target (or without one), Round-ups without a target.
    static func bank(holidayFull: Bool = true) -> (BankState, account: String) {
        var bank = TestBank(token: token)
        let account = bank.account("GBP", name: "Personal", balance: 100_00)
        bank.goal(account, name: "Emergency fund", uid: emergency, target: 500_00, saved: 499_00)
        bank.goal(account, name: "Holiday", uid: holiday, target: holidayFull ? 300_00 : nil, saved: 300_00)
        bank.goal(account, name: "Round-ups", uid: roundUps, saved: 12_00)
        let start = londonWeek(week).start
        for (hour, spent) in [(1, Int64(1)), (2, 1), (3, 69)] {
            bank.spend(account, spent, settled: start.adding(milliseconds: Int64(hour) * 3_600_000))
        }
        return (bank.state, account)
    }

    static func moved(_ server: EmulatorServer) async -> [String: Int64] {
        await server.bank.transfers.reduce(into: [:]) { $0[$1.goalUid, default: 0] += $1.amount.minorUnits }
    }

    @Test func fillMovesOneAndTwentyNineAndTheReportsListEachLeg() async throws {
        let home = try TemporaryDirectory()
        let (state, _) = Self.bank()
        let environment = binaryEnvironment(home, token: Self.token)
        try await withEmulator(state) { server in
            let config = try writeConfig(Self.fill, in: home)
            let run = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config]
            let check = try await roundup(
                ["check", "--api-base-url", server.baseURL, "--config", config], environment: environment)
            #expect(
                check.stdout.contains(
                    #"fills, in order, each up to its target: 1. "Emergency fund" (1.00 GBP to its target of 500.00 GBP), "#
                        + #"2. "Holiday" (at its target of 300.00 GBP), 3. "Round-ups" (no target: takes any amount); "#
                        + "what no goal has room for goes to the account"), "\(check.stdout)")
            let dry = try await roundup(run + ["--dry-run"], environment: environment)
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(
                dry.stdout.contains(
                    #"a real run would move 2.29 GBP: 1.00 into "Emergency fund" (now full), 1.29 into "Round-ups""#),
                "\(dry.stdout)")
            let first = try await roundup(run + ["--json"], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(await Self.moved(server) == [Self.emergency: 100, Self.roundUps: 129])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
            #expect(report["schemaVersion"] as? Int == 2)
            let account = try #require((report["accounts"] as? [[String: Any]])?.first)
            let legs = try #require(account["legs"] as? [[String: Any]])
            #expect(legs.map { $0["amount"] as? String } == ["1.00", "1.29"])
            #expect(legs.map { $0["status"] as? String } == ["transferred", "transferred"])
            #expect(legs.map { ($0["goal"] as? [String: Any])?["saved"] as? String } == ["500.00", "13.29"])
            #expect(
                account["detail"] as? String
                    == #"moved 2.29 GBP: 1.00 into "Emergency fund" (now full), 1.29 into "Round-ups""#)

            // The savings page shows each goal's progress to its target.
            let page = try String(
                contentsOfFile: home.path + "/.local/state/roundup/reports/savings.html", encoding: .utf8)
            #expect(page.contains("Emergency fund: 500.00 GBP of 500.00 GBP (100 %)"), "\(page)")
            #expect(page.contains("Round-ups: 13.29 GBP saved; no target set"), "\(page)")

            let again = try await roundup(run, environment: environment)
            #expect(again.status == 0)
            #expect(again.stdout.contains("already transferred"), "\(again.stdout)")
            #expect(await server.bank.transfers.count == 2)

            let csv = try await roundup(["history", "--csv", "--config", config], environment: environment)
            let row = csv.stdout.components(separatedBy: "\r\n")[1]
            #expect(row.hasPrefix(#"2026-11-15,Personal,GBP,2.29,"Emergency fund, Round-ups",transferred,"#), "\(row)")
            #expect(
                row.hasSuffix(#",1.00 into Emergency fund (transferred); 1.29 into Round-ups (transferred)"#), "\(row)")
            let history = try await roundup(["history", "--json", "--config", config], environment: environment)
            let weeks = (try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any])?["weeks"]
            let rowLegs = ((weeks as? [[String: Any]])?.first?["legs"] as? [[String: Any]]) ?? []
            #expect(rowLegs.map { $0["goalUid"] as? String } == [Self.emergency, Self.roundUps])
        }
    }

    @Test func sharesMoveSixtyAndSixtyNine() async throws {
        let home = try TemporaryDirectory()
        let (state, _) = Self.bank(holidayFull: false)
        let environment = binaryEnvironment(home, token: Self.token)
        try await withEmulator(state) { server in
            let config = try writeConfig("saveInto:\n  shares: {Holiday: 70, Round-ups: 30}\n", in: home)
            let run = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config]
            let first = try await roundup(run, environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(await Self.moved(server) == [Self.holiday: 160, Self.roundUps: 69])
            _ = try await roundup(run, environment: environment)
            #expect(await server.bank.transfers.count == 2)
        }
    }

    /// The bank keeps refusing Round-ups: the week is partly transferred everywhere a saver
    /// looks, `resolve` lists its legs, and the next run finishes Round-ups only.
    @Test func aLegLeftOpenIsSaidEverywhereAndFinishedByTheNextRun() async throws {
        let home = try TemporaryDirectory()
        let (state, account) = Self.bank()
        let environment = binaryEnvironment(home, token: Self.token)
        try await withEmulator(state) { server in
            await server.bank.injectFaults([
                FaultRule(
                    endpoints: [.addMoney], pathContains: Self.roundUps, when: .always, faults: [.serverError(503)])
            ])
            let config = try writeConfig("retryAttempts: 1\nfeedSettleMinutes: 0\n" + Self.fill, in: home)
            let run = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config]
            let first = try await roundup(run, environment: environment)
            #expect([69, 75].contains(first.status), "\(first.stdout)\(first.stderr)")
            #expect(summaryRow(first.stdout, "Personal (GBP)")?.last == "partly transferred", "\(first.stdout)")
            let status = try await roundup(["status", "--config", config], environment: environment)
            #expect(
                status.stdout.contains(
                    #"is partly transferred: of 2.29 GBP, 1.00 into "Emergency fund" arrived, and 1.29 into "Round-ups" is not yet known to have arrived"#
                ), "\(status.stdout)")
            let list = try await roundup(["resolve", "--config", config], environment: environment)
            #expect(
                list.stdout.contains("partly transferred: Personal (GBP), week ending 2026-11-15: 2.29 GBP: "),
                "\(list.stdout)")
            #expect(list.stdout.contains(#"1.29 into "Round-ups" (unconfirmed, leg 1, transfer "#), "\(list.stdout)")
            let wrongLeg = try await roundup(
                [
                    "resolve", "--account", account, "--end-date", Self.week, "--leg", "0", "--retry", "--api-base-url",
                    server.baseURL, "--config", config,
                ], environment: environment)
            #expect(wrongLeg.status == 64 && wrongLeg.stderr.contains("is transferred: there is nothing to resolve"))
            await server.bank.injectFaults([])
            let second = try await roundup(run, environment: environment)
            #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
            #expect(summaryRow(second.stdout, "Personal (GBP)")?.last == "transferred", "\(second.stdout)")
            #expect(await Self.moved(server) == [Self.emergency: 100, Self.roundUps: 129])
            let emergencySends = await server.bank.requests.filter {
                $0.endpoint == .addMoney && $0.path.contains(Self.emergency)
            }
            #expect(emergencySends.count == 1)
        }
    }

    /// Every goal at its target: the week's money stays in the account and the report says
    /// so; with `whenAllFull: last` a dry run would send it to the last goal.
    @Test func whenEveryGoalIsFullTheMoneyStays() async throws {
        let home = try TemporaryDirectory()
        var (state, account) = Self.bank()
        state.goals[account]![0].totalSaved = 500_00
        state.goals[account]![2].target = 12_00
        let environment = binaryEnvironment(home, token: Self.token)
        try await withEmulator(state) { server in
            let run = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL]
            let last = try await roundup(
                run + ["--dry-run", "--config", try writeConfig(Self.fill + "  whenAllFull: last\n", in: home)],
                environment: environment)
            #expect(last.stdout.contains(#"a real run would move 2.29 GBP into "Round-ups""#), "\(last.stdout)")
            let config = try writeConfig(Self.fill, in: home)
            let result = try await roundup(run + ["--config", config], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(summaryRow(result.stdout, "Personal (GBP)")?.last == "held back", "\(result.stdout)")
            #expect(
                result.stdout.contains("held back 2.29 GBP: every goal is at its target, so it stays in the account"),
                "\(result.stdout)")
            #expect(await server.bank.transfers.isEmpty)
        }
    }

    /// A goal fills up in the middle of a catch-up: the run's later week fills it only to its
    /// target, and the rest goes on to the next goal.
    @Test func aGoalReachingItsTargetInACatchUpTakesNoMore() async throws {
        let home = try TemporaryDirectory()
        var (state, account) = Self.bank()
        // Room for 3.00: the first week's 2.29 fits, then 0.71 of the second's.
        state.goals[account]![0].totalSaved = 497_00
        var bank = TestBank(token: Self.token)
        bank.state = state
        let earlier = londonWeek("2026-11-08").start
        for (hour, spent) in [(1, Int64(1)), (2, 1), (3, 69)] {
            bank.spend(account, spent, settled: earlier.adding(milliseconds: Int64(hour) * 3_600_000))
        }
        let environment = binaryEnvironment(home, token: Self.token)
        try await withEmulator(bank.state) { server in
            let config = try writeConfig(Self.fill, in: home)
            let base = ["run", "--api-base-url", server.baseURL, "--config", config]
            _ = try await roundup(base + ["--end-date", "2026-11-01"], environment: environment)
            let result = try await roundup(base + ["--end-date", Self.week, "--catch-up"], environment: environment)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(await Self.moved(server) == [Self.emergency: 300, Self.roundUps: 158])
        }
    }

    /// The bank refuses Round-ups' transfer (its goal gone): the week is held with Emergency
    /// fund's arrived, and `resolve --redirect` sends the held leg, and only it, elsewhere. A
    /// change of `saveInto` afterwards never divides the week again.
    @Test func aRedirectOfOneLegAndAChangeOfSaveIntoMoveNothingTwice() async throws {
        let home = try TemporaryDirectory()
        let (state, account) = Self.bank(holidayFull: false)
        let environment = binaryEnvironment(home, token: Self.token)
        try await withEmulator(state) { server in
            await server.bank.injectFaults([
                FaultRule(
                    endpoints: [.addMoney], pathContains: Self.roundUps, when: .always, faults: [.serverError(404)])
            ])
            let config = try writeConfig("saveInto:\n  fill: [Emergency fund, Round-ups]\n", in: home)
            let run = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config]
            let first = try await roundup(run, environment: environment)
            #expect(first.status == 78, "\(first.stdout)\(first.stderr)")
            #expect(summaryRow(first.stdout, "Personal (GBP)")?.last == "held", "\(first.stdout)")
            await server.bank.injectFaults([])
            let redirect = try await roundup(
                [
                    "resolve", "--account", account, "--end-date", Self.week, "--redirect", "Holiday", "--api-base-url",
                    server.baseURL, "--config", config,
                ], environment: environment)
            #expect(redirect.status == 0, "\(redirect.stdout)\(redirect.stderr)")
            #expect(redirect.stdout.contains(#"Moved 1.29 GBP into "Holiday""#), "\(redirect.stdout)")
            #expect(await Self.moved(server) == [Self.emergency: 100, Self.holiday: 129])
            // Another division now changes nothing of the week already decided.
            let changed = try writeConfig("saveInto:\n  shares: {Holiday: 50, Round-ups: 50}\n", in: home)
            let again = try await roundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", changed],
                environment: environment)
            #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
            #expect(summaryRow(again.stdout, "Personal (GBP)")?.last == "already transferred", "\(again.stdout)")
            #expect(await server.bank.transfers.count == 2)
        }
    }

    /// The emulator a saver starts by hand, with `--fail-goal`: the first run leaves the week
    /// partly transferred, and the next one finishes it, each goal taking its share once.
    @Test func theEmulatorsFailGoalSwitchShowsAWeekPartlyTransferredThenFinished() async throws {
        let home = try TemporaryDirectory()
        let output = open(home.path + "/emulator.out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let emulator = try Child.spawn(
            try #require(roundupBinary),
            ["emulator", "--port", "0", "--end-date", Self.week, "--fail-goal", "holiday"],
            environment: ["HOME": home.path, "PATH": "/usr/bin:/bin"], stdout: output, stderr: output)
        close(output)
        defer {
            kill(emulator.pid, SIGTERM)
            emulator.waitUntilEnded()
        }
        var banner = ""
        #expect(
            await eventually {
                banner = (try? String(contentsOfFile: home.path + "/emulator.out", encoding: .utf8)) ?? ""
                return banner.contains("token: ")
            }, "\(banner)")
        #expect(banner.contains(#"add-money into "holiday" refused twice"#), "\(banner)")
        let url = try #require(banner.firstMatch(of: /listening on (http:\/\/127\.0\.0\.1:\d+)/)?.output.1)
        let token = try #require(banner.firstMatch(of: /token: (\S+)/)?.output.1)
        let environment = binaryEnvironment(home, token: String(token))
        let config = try writeConfig(
            "feedSettleMinutes: 0\nsaveInto:\n  shares: {Spare: 50, Holiday: 50}\n", in: home)
        let run = ["run", "--end-date", Self.week, "--api-base-url", String(url), "--config", config]
        let first = try await roundup(run, environment: environment)
        #expect([69, 75].contains(first.status), "\(first.stdout)\(first.stderr)")
        #expect(summaryRow(first.stdout, "Personal (GBP)")?.last == "partly transferred", "\(first.stdout)")
        let second = try await roundup(run, environment: environment)
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(summaryRow(second.stdout, "Personal (GBP)")?.last == "transferred", "\(second.stdout)")
        let third = try await roundup(run + ["--json"], environment: environment)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(third.stdout.utf8)) as? [String: Any])
        let personal = try #require(
            (report["accounts"] as? [[String: Any]])?.first { $0["name"] as? String == "Personal" })
        #expect(personal["status"] as? String == "already transferred")
        let saved = (personal["legs"] as? [[String: Any]])?.map { ($0["goal"] as? [String: Any])?["name"] as? String }
        #expect(saved == ["Spare", "Holiday"])
    }

    @Test func aGoalNamedTwiceOrBesideSavingsGoalIsRefusedBeforeAnythingMoves() async throws {
        let home = try TemporaryDirectory()
        let environment = binaryEnvironment(home, token: Self.token)
        let config = try writeConfig("savingsGoal: Holiday\n" + Self.fill, in: home)
        let run = try await roundup(["run", "--end-date", Self.week, "--config", config], environment: environment)
        #expect(run.status == 78)
        #expect(run.stderr.contains("saveInto and savingsGoal exclude each other"), "\(run.stderr)")
        let flag = try await roundup(
            [
                "run", "--end-date", Self.week, "--savings-goal", "Holiday", "--config",
                try writeConfig(Self.fill, in: home),
            ],
            environment: environment)
        #expect(
            flag.status == 64 && flag.stderr.contains("saveInto and --savings-goal exclude each other"),
            "\(flag.status) \(flag.stderr)")
    }
}
