import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

@testable import roundup

/// The built `roundup` binary: what it prints and how it exits.
@Suite struct CommandLineTests {
    let home: TemporaryDirectory
    let token = "cli-token-" + UUID().uuidString

    init() throws { home = try TemporaryDirectory() }

    var environment: [String: String] { ["HOME": home.path, "PATH": "/usr/bin:/bin"] }

    func withToken(_ extra: [String: String] = [:]) -> [String: String] {
        environment.merging(["STARLING_ACCESS_TOKEN": token]) { $1 }.merging(extra) { $1 }
    }

    @Test func helpListsTheCommandsAndExitCodes() async throws {
        let result = try await roundup(["--help"], environment: environment)
        #expect(result.status == 0)
        for word in ["run", "demo", "emulator", "77 token rejected"] {
            #expect(result.stdout.contains(word), "\(word)")
        }
        let runHelp = try await roundup(["run", "--help"], environment: environment)
        #expect(runHelp.stdout.contains("--end-date"))
        #expect(!runHelp.stdout.contains("--token"))
    }

    /// Every help's examples fit the 80 columns help is wrapped to: no command line is split,
    /// so a line pasted from the help runs the command it shows. A wrapped line of help starts
    /// at the margin; an example line is indented.
    @Test(arguments: [[], ["run"], ["check"], ["status"], ["history"], ["export"], ["resolve"], ["demo"], ["emulator"]])
    func noHelpExampleIsSplitOverTwoLines(command: [String]) async throws {
        let result = try await roundup(["help"] + command, environment: environment.merging(["COLUMNS": "80"]) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasSuffix("Examples:") }) else { return }
        let examples = lines[(start + 1)...].prefix { !$0.isEmpty }
        #expect(!examples.isEmpty)
        for line in examples {
            #expect(line.hasPrefix("  ") && line.count <= 80, "split or too wide: \(line)")
        }
    }

    @Test(arguments: ["2026-13-01", "15/11/2026", "tomorrow", "2026-02-30"])
    func aBadDateIsAUsageError(date: String) async throws {
        let result = try await roundup(["run", "--end-date", date], environment: withToken())
        #expect(result.status == 64)
        #expect(result.stderr.contains("The value '\(date)' is invalid for '--end-date <YYYY-MM-DD>'"))
        #expect(result.stdout.isEmpty)
    }

    @Test func aWeekThatHasNotEndedIsRefused() async throws {
        let result = try await roundup(["run", "--end-date", "2099-01-04"], environment: withToken())
        #expect(result.status == 64)
        #expect(result.stderr.contains("has not ended yet"))
    }

    @Test func anUnknownFlagIsAUsageError() async throws {
        let result = try await roundup(["run", "--token", "x"], environment: environment)
        #expect(result.status == 64)
    }

    @Test func noTokenIsAConfigurationError() async throws {
        let result = try await roundup(["run", "--end-date", "2026-11-15"], environment: environment)
        #expect(result.status == 78)
        #expect(result.stderr.contains("no access token"))
    }

    @Test func plainHTTPToAnotherHostIsRefused() async throws {
        let result = try await roundup(
            ["run", "--end-date", "2026-11-15", "--api-base-url", "http://bank.example.com"], environment: withToken())
        #expect(result.status == 64)
        #expect(result.stderr.contains("https is required"))
    }

    @Test func aTokenFileOthersCanReadIsRefused() async throws {
        let tokenFile = home.path + "/token"
        try "some-token\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: tokenFile)
        let config = home.path + "/config.yaml"
        try "tokenFile: \(tokenFile)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try await roundup(
            ["run", "--end-date", "2026-11-15", "--config", config], environment: environment)
        #expect(result.status == 78)
        #expect(result.stderr.contains("chmod 600"))
        #expect(!result.stderr.contains("some-token"))
    }

    @Test func aMisspeltSettingIsNamed() async throws {
        let config = home.path + "/config.yaml"
        try "multipler: 2\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try await roundup(["run", "--config", config], environment: withToken())
        #expect(result.status == 78)
        #expect(result.stderr.contains("unknown setting 'multipler' (did you mean 'multiplier'?)"))
    }

    @Test func aRealRunAgainstTheEmulatorThenARerun() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        try await withEmulator(state) { server in
            let arguments = ["run", "--end-date", "2026-11-15", "--api-base-url", server.baseURL, "--verbose"]
            let first = try await roundup(arguments, environment: withToken())
            #expect(first.status == 0, "\(first.stderr)")
            #expect(
                summaryRow(first.stdout, "Personal (GBP)") == [
                    "Personal (GBP)", "7", "2.98 GBP", "Round-ups", "transferred",
                ])
            #expect(
                summaryRow(first.stdout, "Euro (EUR)") == ["Euro (EUR)", "3", "1.26 EUR", "Round-ups", "transferred"])
            #expect(first.stdout.contains("Personal (GBP): moved 2.98 GBP into \"Round-ups\""))
            #expect(first.stdout.contains("Report: \(home.path)/.local/state/roundup/reports/roundup-2026-11-15.20"))
            #expect(first.stdout.contains("Z.moved.md"))
            #expect(!first.stderr.isEmpty, "--verbose logs the steps")
            let second = try await roundup(arguments + ["--json"], environment: withToken())
            #expect(second.status == 0)
            let report = try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any]
            let accounts = report?["accounts"] as? [[String: Any]]
            #expect(accounts?.compactMap { $0["status"] as? String } == ["already transferred", "already transferred"])
            #expect(await server.bank.transfers.count == 2)
            for text in [first.stdout, first.stderr, second.stdout, second.stderr] {
                #expect(!text.contains(token))
            }
        }
    }

    @Test func aDryRunShowsTheProposedAmounts() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        try await withEmulator(state) { server in
            let result = try await roundup(
                ["run", "--end-date", "2026-11-15", "--dry-run", "--api-base-url", server.baseURL],
                environment: withToken())
            #expect(result.status == 0)
            #expect(result.stdout.contains("2.98 GBP"))
            #expect(result.stdout.contains("dry run"))
            #expect(await server.bank.requests.allSatisfy { $0.method == "GET" })
        }
    }

    @Test func theTokenIsRejected() async throws {
        let state = Seed.realisticWeek(
            endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: "other")
        try await withEmulator(state) { server in
            let result = try await roundup(
                ["run", "--end-date", "2026-11-15", "--api-base-url", server.baseURL], environment: withToken())
            #expect(result.status == 77)
            #expect(result.stderr.contains("rejected the access token"))
        }
    }

    @Test func theDemoMovesMoneyOnceAndShowsTheReport() async throws {
        // A pager and a browser opener on the PATH: the demo names them.
        let programs = home.path + "/programs"
        try FileManager.default.createDirectory(atPath: programs, withIntermediateDirectories: true)
        for name in ["less", "xdg-open"] {
            _ = FileManager.default.createFile(
                atPath: programs + "/" + name, contents: Data("#!/bin/sh\n".utf8),
                attributes: [.posixPermissions: 0o755])
        }
        let first = try await roundup(["demo"], environment: ["HOME": home.path, "PATH": programs])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(summaryRow(first.stdout, "Personal (GBP)")?.last == "transferred")
        // The demo ends with the summary and what to open next: the report, the chart, the history.
        let lines = first.stdout.split(separator: "\n").map(String.init)
        let reportLine = try #require(lines.first { $0.hasPrefix("Report: ") }, "\(first.stdout)")
        let reportPath = String(reportLine.dropFirst("Report: ".count))
        #expect(lines.contains("  less \(reportPath)   # the week's whole report"), "\(first.stdout)")
        #expect(lines.contains { $0.hasPrefix("  xdg-open ") && $0.contains("/reports/savings.html") })
        #expect(!first.stdout.contains("# Round-up for the week"), "the whole report is in its file, not here")
        let report = try String(contentsOfFile: reportPath, encoding: .utf8)
        #expect(report.contains("| Personal (GBP) | 7 | 2.98 GBP | 2.98 GBP | Round-ups | transferred |"))
        #expect(report.contains("| Tesco | card | 23.75 | 0.25 |"))
        // Each payment says where it came from: the water bill is a direct debit.
        #expect(report.contains("| Thames Water | direct debit | 38.62 | 0.38 |"), "\(report)")
        #expect(
            FileManager.default.fileExists(
                atPath: reportPath.replacingOccurrences(
                    of: #"/roundup-[^/]+$"#, with: "/savings.html", options: .regularExpression)))
        // Where there is neither, as in the image, the demo names no program it lacks (a
        // directory of the name is no program).
        let empty = home.path + "/nothing"
        try FileManager.default.createDirectory(atPath: empty + "/less", withIntermediateDirectories: true)
        let second = try await roundup(["demo"], environment: ["HOME": home.path, "PATH": empty])
        #expect(second.status == 0)
        #expect(second.stdout.contains("already transferred"))
        #expect(summaryRow(second.stdout, "Personal (GBP)")?.last == "already transferred")
        #expect(!second.stdout.contains("  less ") && !second.stdout.contains("xdg-open"), "\(second.stdout)")
        #expect(second.stdout.contains("  the savings chart, for a browser: "), "\(second.stdout)")
        #expect(second.stdout.contains(" history --state-dir "), "\(second.stdout)")
    }

    /// The demo's Next: lines are commands to paste: a path with a space or a quote in it
    /// is one word.
    @Test func theDemosNextLinesQuoteWhatAShellWouldSplit() {
        #expect(Roundup.Demo.shellWord("/home/me/.local/state/roundup/demo") == "/home/me/.local/state/roundup/demo")
        #expect(Roundup.Demo.shellWord("/home/a b/x.md") == "'/home/a b/x.md'")
        #expect(Roundup.Demo.shellWord("/home/o'neil/x") == "'/home/o'\\''neil/x'")
        #expect(Roundup.Demo.shellWord("/tmp/$HOME;rm") == "'/tmp/$HOME;rm'")
    }
}

/// `roundup history` through the built binary, after real runs against the emulator.
@Suite struct HistoryTests {
    @Test func historyListsRecordedWeeksNewestFirstWithTotals() async throws {
        let home = try TemporaryDirectory()
        let token = "history-token"
        var bank = TestBank(token: token)
        let gbp = bank.account("GBP", name: "Personal")
        let eur = bank.account("EUR", name: "Euro")
        for (week, amount) in [("2026-11-08", Int64(1_001)), ("2026-11-15", 250)] {
            bank.spend(gbp, amount, settled: londonWeek(week).start.adding(milliseconds: 60_000))
        }
        bank.spend(eur, 1_000, settled: londonWeek("2026-11-15").start.adding(milliseconds: 60_000))
        let environment = ["HOME": home.path, "PATH": "/usr/bin:/bin"]
        let state = home.path + "/state"

        let empty = try await roundup(["history", "--state-dir", state], environment: environment)
        #expect(empty.status == 0)
        #expect(empty.stdout.contains("No weeks recorded yet"))
        #expect(!FileManager.default.fileExists(atPath: state), "history creates nothing")

        try await withEmulator(bank.state) { server in
            for week in ["2026-11-08", "2026-11-15"] {
                let run = try await roundup(
                    ["run", "--end-date", week, "--api-base-url", server.baseURL, "--state-dir", state],
                    environment: environment.merging(["STARLING_ACCESS_TOKEN": token]) { $1 })
                #expect(run.status == 0, "\(run.stderr)")
            }
        }
        // No token, no bank: the ledger alone.
        let table = try await roundup(["history", "--state-dir", state], environment: environment)
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("Week"))
        #expect(
            lines[2].contains("2026-11-09 – 2026-11-15") && lines[2].contains("Euro")
                && lines[2].contains("nothing to move"))
        #expect(lines[3].contains("Personal") && lines[3].contains("0.50 GBP") && lines[3].contains("transferred"))
        #expect(lines[4].contains("2026-11-02 – 2026-11-08") && lines[4].contains("Euro"))
        #expect(
            lines[5].contains("2026-11-02 – 2026-11-08") && lines[5].contains("Personal")
                && lines[5].contains("0.99 GBP"))
        #expect(table.stdout.contains("Saved so far: 1.49 GBP"))

        let json = try await roundup(
            ["history", "--state-dir", state, "--json", "--weeks", "1"], environment: environment)
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(document?["schemaVersion"] as? Int == 1)
        let weeks = document?["weeks"] as? [[String: Any]] ?? []
        #expect(weeks.map { $0["weekEnd"] as? String } == ["2026-11-15", "2026-11-15"])
        #expect(weeks.compactMap { $0["minorUnits"] as? Int }.sorted() == [0, 50])

        let bad = try await roundup(["history", "--weeks", "0"], environment: environment)
        #expect(bad.status == 64)
    }
}

/// `roundup run --catch-up` through the built binary.
@Suite struct CatchUpTests {
    @Test func catchUpAfterThreeMissedWeeksMovesExactlyThoseThreeThenNothing() async throws {
        let home = try TemporaryDirectory()
        let token = "catch-up-token"
        var bank = TestBank(token: token)
        let account = bank.account("GBP", name: "Personal")
        bank.goal(account, name: "Round-ups", uid: "90c00000-0000-4000-8000-000000000001")
        // One payment a week, each rounding up by a different amount: 0.96, 0.99, 0.98, 0.97.
        let weeks = ["2026-10-18", "2026-10-25", "2026-11-01", "2026-11-08"]
        for (week, amount) in zip(weeks, [Int64(404), 101, 202, 303]) {
            bank.spend(account, amount, settled: londonWeek(week).start.adding(milliseconds: 60_000))
        }
        let environment = binaryEnvironment(home, token: token)
        try await withEmulator(bank.state) { server in
            let base = ["run", "--api-base-url", server.baseURL, "--state-dir", home.path + "/state"]
            let first = try await roundup(base + ["--end-date", weeks[0]], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")

            // Three weeks missed: the machine was off.
            let catchUp = try await roundup(base + ["--end-date", weeks[3], "--catch-up"], environment: environment)
            #expect(catchUp.status == 0, "\(catchUp.stderr)")
            let moved = await server.bank.transfers.map(\.amount.minorUnits)
            #expect(moved == [96, 99, 98, 97], "oldest first, each week once")
            for week in ["2026-10-19 – 2026-10-25", "2026-10-26 – 2026-11-01", "2026-11-02 – 2026-11-08"] {
                #expect(catchUp.stdout.contains("week \(week)"), "\(catchUp.stdout)")
            }
            for week in weeks.dropFirst() {
                #expect(FileManager.default.fileExists(atPath: home.path + "/state/reports/roundup-\(week).json"))
            }

            let again = try await roundup(base + ["--end-date", weeks[3], "--catch-up"], environment: environment)
            #expect(again.status == 0)
            #expect(again.stderr.contains("nothing to catch up"))
            #expect(await server.bank.transfers.count == 4, "running it again moves nothing")
        }
    }

    @Test func aLongGapIsClosedEightWeeksAtATime() async throws {
        let home = try TemporaryDirectory()
        let token = "long-gap-token"
        var bank = TestBank(token: token)
        let account = bank.account("EUR", name: "Euro")
        bank.goal(account, name: "Round-ups", uid: "90c00000-0000-4000-8000-000000000002")
        var end = LocalDate(iso: "2026-08-16")!
        var ends: [LocalDate] = []
        for _ in 0..<11 {
            ends.append(end)
            bank.spend(account, 150, settled: londonWeek(end.description).start.adding(milliseconds: 60_000))
            end = end.adding(days: 7)
        }
        let environment = binaryEnvironment(home, token: token)
        try await withEmulator(bank.state) { server in
            let base = ["run", "--api-base-url", server.baseURL, "--state-dir", home.path + "/state"]
            _ = try await roundup(base + ["--end-date", ends[0].description], environment: environment)
            let last = ends[10].description
            let first = try await roundup(base + ["--end-date", last, "--catch-up"], environment: environment)
            #expect(first.status == 0)
            #expect(first.stderr.contains("10 weeks to catch up; this run does the oldest 8"))
            #expect(await server.bank.transfers.count == 1 + 8)
            let second = try await roundup(base + ["--end-date", last, "--catch-up"], environment: environment)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(await server.bank.transfers.count == 11, "every week once, none skipped")
        }
    }
}

/// `roundup check` through the built binary: it reads, says what to fix, and writes nothing.
@Suite struct CheckTests {
    @Test func checkReportsEachPartAndWritesNothing() async throws {
        let home = try TemporaryDirectory()
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: "chk")
        let environment = binaryEnvironment(home, token: "chk")
        try await withEmulator(state) { server in
            let result = try await roundup(["check", "--api-base-url", server.baseURL], environment: environment)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("ok    scopes: everything a run needs"))
            #expect(
                result.stdout.contains(
                    "ok    Personal (GBP) has no goal named \"Round-ups\" yet; the first run creates it"))
            #expect(result.stdout.contains("ok    Euro (EUR) saves into \"Round-ups\""))
            #expect(!result.stdout.contains("FIX"))
            #expect(await server.bank.requests.allSatisfy { $0.method == "GET" }, "check writes nothing at the bank")
            #expect(!FileManager.default.fileExists(atPath: home.path + "/.local/state/roundup"), "nor on disk")
        }
    }

    @Test func checkSaysWhatToFix() async throws {
        let home = try TemporaryDirectory()
        var state = Seed.realisticWeek(
            endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: "chk2")
        state.scopes = ["account:read", "account-list:read", "transaction:read", "savings-goal:read"]
        let config = home.path + "/config.yaml"
        try "goals:\n  \(Seed.Uid.eurAccount): 00000000-0000-4000-8000-00000000dead\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let environment = binaryEnvironment(home, token: "chk2")
        try await withEmulator(state) { server in
            let result = try await roundup(
                ["check", "--api-base-url", server.baseURL, "--config", config], environment: environment)
            #expect(result.status == 77, "the first problem is the missing scope")
            #expect(result.stdout.contains("FIX   scopes: the token lacks savings-goal-transfer:create"))
            #expect(
                result.stdout.contains(
                    "FIX   Personal (GBP): has no active GBP goal named \"Round-ups\", and the token lacks savings-goal:create"
                ))
            #expect(
                result.stdout.contains("FIX   Euro (EUR): the goal 00000000-0000-4000-8000-00000000dead configured"))
            #expect(!result.stdout.contains("chk2"))
        }
    }
}
