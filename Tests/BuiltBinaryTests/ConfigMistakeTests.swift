import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// Configuration and command-line mistakes are errors that name the problem, run as the
/// built binary: never silence, never a guess.
@Suite struct ConfigMistakeTests {
    let home: TemporaryDirectory
    let token = "mistake-token-" + UUID().uuidString

    init() throws { home = try TemporaryDirectory() }

    var environment: [String: String] { binaryEnvironment(home, token: token) }

    func config(_ text: String) throws -> String { try writeConfig(text, in: home) }

    @Test(arguments: [
        (
            "excludeSources: [DIRECT_DEBT]\n",
            "excludeSources: 'DIRECT_DEBT' is not a value the bank uses (did you mean 'DIRECT_DEBIT'?)"
        ),
        ("excludeSpendingCategories: [GAMBLNG]\n", "did you mean 'GAMBLING'?"),
        ("timeZone: GMT+5\n", "time zone 'GMT+5' is a fixed offset"),
        ("timeZone: Etc/GMT+5\n", "use a region name such as America/"),
        (
            "goals:\n  ACC00000-0000-4000-8000-000000000001: 90c00000-0000-4000-8000-0000000000a1\n"
                + "  acc00000-0000-4000-8000-000000000001: 90c00000-0000-4000-8000-0000000000b2\n",
            "goals: names the account acc00000-0000-4000-8000-000000000001 twice (uids are the same in either case)"
        ),
        (
            "goals:\n  Personal: 90c00000-0000-4000-8000-0000000000a1\n",
            #"goals: "Personal" is not an account uid"#
        ),
        (
            "goals:\n  acc00000-0000-4000-8000-000000000001: Round-ups\n",
            #"goals: the goal for acc00000-0000-4000-8000-000000000001, "Round-ups", is not a goal uid"#
        ),
        (
            "goals:\n  \"acc00000-0000-4000-8000-00000000000\\uFF11\": 90c00000-0000-4000-8000-0000000000a1\n",
            #"goals: "acc00000-0000-4000-8000-00000000000\uff11" is not an account uid"#
        ),
    ])
    func aValueTheBankOrTheCalendarDoesNotKnowIsRefused(text: String, message: String) async throws {
        let path = try config(text)
        let run = try await roundup(["run", "--end-date", "2026-11-15", "--config", path], environment: environment)
        #expect(run.status == 78)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        let check = try await roundup(["check", "--config", path], environment: environment)
        #expect(check.status == 78)
        #expect(check.stdout.contains(message), "check says so too: \(check.stdout)")
    }

    @Test func aGoalForAnAccountTheTokenCannotSeeStopsTheRunBeforeAnyTransfer() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        try await withEmulator(state) { server in
            let path = try config(
                "timeZone: UTC\ngoals:\n  00000000-0000-4000-8000-00000000dead: 90c00000-0000-4000-8000-0000000000a1\n")
            let run = try await roundup(
                ["run", "--end-date", "2026-11-15", "--config", path, "--api-base-url", server.baseURL],
                environment: environment)
            #expect(run.status == 78)
            #expect(
                run.stderr.contains("00000000-0000-4000-8000-00000000dead, which is not one of this token's accounts"))
            #expect(await server.bank.transfers.isEmpty)
        }
    }

    @Test(arguments: [
        (["run", "--end-date", "2026-02-30"], "that day does not exist: 2026-02 has 28 days"),
        (["run", "--end-date", "1999-12-26"], "the year must be from 2000 to 2100"),
        (["run", "--end-date", "2101-01-02"], "the year must be from 2000 to 2100"),
        (["history", "--weeks", "-1"], "--weeks takes a whole number of weeks, 1 or more, not -1"),
        (["--end-date", "2026-11-15"], "Unknown option '--end-date'"),
    ])
    func aBadDateOrCountSaysWhatIsAllowed(arguments: [String], message: String) async throws {
        let result = try await roundup(arguments, environment: environment)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func aBareRoundupShowsTheHelpAndMovesNoMoney() async throws {
        let result = try await roundup([], environment: environment)
        #expect(result.status == 64)
        #expect(result.stderr.contains("SUBCOMMANDS") && result.stderr.contains("run"))
    }

    @Test func anEmptyLedgerFileIsRefusedLikeADamagedOne() async throws {
        let state = home.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: state + "/ledger.sqlite", contents: Data())
        for arguments in [
            ["run", "--end-date", "2026-11-15", "--state-dir", state, "--api-base-url", "http://127.0.0.1:9"],
            ["history", "--state-dir", state],
        ] {
            let result = try await roundup(arguments, environment: environment)
            #expect(result.status == 78, "\(arguments)")
            #expect(result.stderr.contains("is empty (0 bytes)"), "\(result.stderr)")
        }
    }

    @Test func withNoHomeAndNoStateDirectoryNothingIsGuessed() async throws {
        let result = try await roundup(
            ["run", "--end-date", "2026-11-15", "--api-base-url", "http://127.0.0.1:9"],
            environment: ["PATH": "/usr/bin:/bin", "STARLING_ACCESS_TOKEN": token])
        #expect(result.status == 78)
        #expect(result.stderr.contains("HOME is not set, so there is no default state directory"))
    }

    @Test func oneAttemptIsOneAttempt() async throws {
        let path = try config("retryAttempts: 1\n")
        let result = try await roundup(
            [
                "run", "--end-date", "2026-11-15", "--config", path, "--api-base-url", "http://127.0.0.1:9",
                "--state-dir", home.path + "/state",
            ],
            environment: environment)
        #expect(result.status == 69)
        #expect(result.stderr.contains("(1 attempt)") && !result.stderr.contains("1 attempts"), "\(result.stderr)")
    }

    @Test func theEmulatorOnAPortInUseSaysSoAtOnce() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        try await withEmulator(state) { server in
            let port = try #require(server.baseURL.split(separator: ":").last)
            // Said before any server starts (the time it takes is left out: this machine may be busy).
            let result = try await roundup(["emulator", "--port", String(port)], environment: environment)
            #expect(result.status == 69)
            #expect(result.stderr == "roundup: cannot listen on 127.0.0.1:\(port): Address already in use\n")
        }
    }

    @Test func checkWarnsWhenBothTheCrontabAndTheTimerRunRoundup() async throws {
        let bin = home.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\necho '0 6 * * 1 umask 077 && roundup run --catch-up'\n"
            .write(toFile: bin + "/crontab", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/crontab")
        var environment = self.environment
        environment["PATH"] = bin + ":/usr/bin:/bin"
        let quiet = try await roundup(["check"], environment: environment)
        #expect(!quiet.stdout.contains("scheduling: both"), "only the crontab: \(quiet.stdout)")
        let wants = home.path + "/.config/systemd/user/timers.target.wants"
        try FileManager.default.createDirectory(atPath: wants, withIntermediateDirectories: true)
        try "".write(toFile: wants + "/roundup.timer", atomically: true, encoding: .utf8)
        let both = try await roundup(["check"], environment: environment)
        #expect(both.stdout.contains("WARN  scheduling: both your crontab and the systemd timer"), "\(both.stdout)")
    }
}
