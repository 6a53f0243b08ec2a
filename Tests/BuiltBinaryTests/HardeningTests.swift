import Foundation
import GRDB
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

@testable import RoundUpHost

/// Promises the README makes that a careless or hostile surrounding tries: numbers written
/// in another notation, and more. Each runs the built binary and says what it did, for
/// `scripts/robustness`.
@Suite struct HardeningTests {
    let home: TemporaryDirectory
    let token = "hardening-" + UUID().uuidString

    init() throws { home = try TemporaryDirectory() }

    var environment: [String: String] { binaryEnvironment(home, token: token) }

    /// YAML 1.1 reads `010` as octal 8; the config's schema and YAML 1.2 editors read it as
    /// ten or refuse it. A whole-number setting takes decimal digits only, and the refusal
    /// says how to write the number meant, before anything is asked of the bank.
    @Test func aWholeNumberInAnotherNotationIsRefusedWithTheNumberMeant() async throws {
        let cases = [
            ("multiplier: 010", "write 10"), ("multiplier: 0x5", "write 5"), ("multiplier: 0b11", "write 3"),
            ("multiplier: 1_0", "write 10"), ("roundTo: +5", "write 5"), ("concurrency: 0o7", "write 7"),
            ("lockWaitSeconds: 1e3", "is not a whole number in decimal digits"),
            ("retryAttempts: 2.0", "is not a whole number in decimal digits"),
            ("multiplier: [2]", "'multiplier' must be a whole number"),
            ("multiplier: 99999999999999999999999", "'99999999999999999999999' is too large"),
            ("feedRecheckSeconds: -0", "is not a whole number in decimal digits: write 0"),
        ]
        var refused = 0
        for (line, said) in cases {
            let config = try writeConfig(line + "\n", in: home)
            // A closed port: a run that reached the bank would end 69, not 78.
            let run = try await roundup(
                ["run", "--end-date", "2026-11-15", "--config", config, "--api-base-url", "http://127.0.0.1:9"],
                environment: environment)
            #expect(run.status == 78, "\(line): \(run.stderr)")
            #expect(run.stderr.contains(said), "\(line): \(run.stderr)")
            let check = try await roundup(["check", "--config", config], environment: environment)
            #expect(check.stdout.contains(said), "check says so too: \(check.stdout)")
            if run.status == 78, run.stderr.contains(said) { refused += 1 }
        }
        // The environment's whole numbers are held to the same rule.
        let environmentRun = try await roundup(
            ["run", "--end-date", "2026-11-15", "--api-base-url", "http://127.0.0.1:9"],
            environment: environment.merging(["ROUNDUP_RUN_TIMEOUT_SECONDS": "010"]) { $1 })
        #expect(environmentRun.status == 78, "\(environmentRun.stderr)")
        #expect(environmentRun.stderr.contains("ROUNDUP_RUN_TIMEOUT_SECONDS must be a whole number"))
        let hint = try writeConfig("multiplier: 0x-5\n", in: home)
        let noHint = try await roundup(["check", "--config", hint], environment: environment)
        #expect(noHint.stdout.contains("decimal digits") && !noHint.stdout.contains("write -5"), "\(noHint.stdout)")
        // Decimal digits, negative ones included, are read as written, and bounds still apply.
        let plain = try writeConfig("multiplier: 10\nlockWaitSeconds: 0\n", in: home)
        let check = try await roundup(["check", "--config", plain], environment: environment)
        #expect(!check.stdout.contains("decimal digits"), "\(check.stdout)")
        let negative = try writeConfig("lockWaitSeconds: -1\n", in: home)
        let bounded = try await roundup(["check", "--config", negative], environment: environment)
        #expect(bounded.stdout.contains("lockWaitSeconds must be from 0 to 3600, not -1"), "\(bounded.stdout)")
        robustnessLine(
            "whole-number settings written 010, 0x5, 0b11, 1_0, +5, 0o7, 1e3, 2.0",
            "\(refused) of \(cases.count) refused (exit 78) with the number meant, before any request",
            moneyExactlyOnce: true)
    }

    /// An account the bank lists twice is worked on, reported and moved once, and the run
    /// says what the bank did.
    @Test func anAccountTheBankListsTwiceIsWorkedOnOnce() async throws {
        var state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        state.accounts.append(state.accounts[0])
        let listed = state.accounts.count
        try await withEmulator(state, behaviour: EmulatorBehaviour(deduplicatesTransfers: false)) { server in
            let run = try await roundup(
                ["run", "--end-date", "2026-11-15", "--api-base-url", server.baseURL, "--json"],
                environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.contains("the bank listed an account more than once"), "\(run.stderr)")
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            let accounts = try #require(report["accounts"] as? [[String: Any]])
            #expect(accounts.count == listed - 1, "each account once in the report")
            #expect(accounts.allSatisfy { $0["status"] as? String == "transferred" }, "\(accounts)")
            let moved = await server.bank.transfers.map(\.amount.minorUnits).sorted()
            #expect(moved == [126, 298])
            let check = try await roundup(["check", "--api-base-url", server.baseURL], environment: environment)
            #expect(check.stdout.contains("accounts: \(listed - 1)"), "\(check.stdout)")
            #expect(
                check.stdout.contains("the bank listed an account more than once"), "check says so: \(check.stdout)")
            robustnessLine(
                "the bank lists an account twice", "exit \(run.status), \(accounts.count) accounts reported, a warning",
                moneyExactlyOnce: moved == [126, 298])
        }
    }

    /// Starts a process that takes `name`'s lock with Python, as any local user could, and
    /// waits until it has it. `listening` chooses whether it answers a connection (and so
    /// the kernel names it) or only binds the name (and /proc must find it). `user`, when
    /// given, is the uid it runs as (through setpriv).
    func squat(_ name: String, listening: Bool, user: UInt32? = nil) async throws -> (Process, Int32) {
        let script = home.path + "/squat-\(listening ? "listening" : "bound").py"
        try
            ("import socket, sys, time\n"
            + "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
            + "s.bind(b'\\0' + sys.argv[1].encode())\n" + (listening ? "s.listen(1)\n" : "")
            + "print('bound', flush=True)\ntime.sleep(60)\n").write(toFile: script, atomically: true, encoding: .utf8)
        // Readable by the other user the squatter may run as.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: home.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: script)
        let process = Process()
        let python = ["/usr/bin/python3", script, name]
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(user)", "--regid=\(user)", "--clear-groups"] + python
        } else {
            process.executableURL = URL(fileURLWithPath: python[0])
            process.arguments = Array(python.dropFirst())
        }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // The squatter says when it holds the name.
        _ = output.fileHandleForReading.availableData
        return (process, process.processIdentifier)
    }

    /// Any local user can take an account's lock name first (a documented limit): the run
    /// that then skips the account names the holder by its pid, uid and command, whether
    /// it answers on the lock or only binds the name, and whatever program it is; `status`
    /// says plainly when the holder is another user's.
    @Test func aSquatterOnAnAccountsLockIsNamedByItsCommand() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            Issue.record("no /usr/bin/python3 to take a lock with")
            return
        }
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        let impatient = try writeConfig("lockWaitSeconds: 0\n", in: home)
        try await withEmulator(state) { server in
            let name = AccountLock.name(baseURL: server.baseURL, accountUid: state.accounts[0].uid)
            // A week before, with nothing to move, puts both accounts in the ledger.
            let before = try await roundup(
                ["run", "--end-date", "2026-11-08", "--api-base-url", server.baseURL], environment: environment)
            #expect(before.status == 0, "\(before.stderr)")
            let squatted = { await server.bank.transfers.count { $0.accountUid == state.accounts[0].uid } }
            let movedBefore = await squatted()
            var named = 0
            for listening in [true, false] {
                let (squatter, pid) = try await squat(name, listening: listening)
                // SIGKILL: a signal the test process ignores, its children ignore too.
                defer { kill(pid, SIGKILL) }
                let run = try await roundup(
                    ["run", "--end-date", "2026-11-15", "--api-base-url", server.baseURL, "--config", impatient],
                    environment: environment)
                #expect(run.status == 75, "\(run.stderr)")
                let said = "this account's lock is held by process \(pid) of user \(getuid()) (/usr/bin/python3 "
                #expect(run.stderr.contains(said), "listening \(listening): \(run.stderr)")
                if run.stderr.contains(said) { named += 1 }
                kill(pid, SIGKILL)
                squatter.waitUntilExit()
            }
            // The squatted account's week waits for the next run.
            let movedWhileSquatted = await squatted() - movedBefore
            #expect(movedWhileSquatted == 0)
            var status = "status not tried: not root, or no setpriv to run as another user"
            if getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") {
                let (squatter, pid) = try await squat(name, listening: false, user: 65534)
                defer {
                    kill(pid, SIGKILL)
                    squatter.waitUntilExit()
                }
                let said = try await roundup(
                    ["status"], environment: environment.merging(["ROUNDUP_API_BASE_URL": server.baseURL]) { $1 })
                #expect(said.stdout.contains("is blocked by another user's process"), "\(said.stdout)")
                #expect(said.stdout.contains("process \(pid) of user 65534"), "\(said.stdout)")
                status = said.stdout.contains("blocked by another user's process") ? "status names it" : "status: NO"
            }
            robustnessLine(
                "another process squats an account's lock (listening, and bound only)",
                "exit 75 naming its pid, uid and command \(named) of 2 times; \(status)",
                moneyExactlyOnce: movedWhileSquatted == 0)
        }
    }

    /// Output that cannot be written ends the run with 74, and 74 is what the run's row,
    /// `status`, the metrics and the monitor's ping say: one exit code everywhere.
    @Test func aFullStandardOutputIsTheExitCodeEverywhere() async throws {
        let monitor = try await PingReceiver.start()
        let metrics = home.path + "/metrics/roundup.prom"
        try FileManager.default.createDirectory(atPath: home.path + "/metrics", withIntermediateDirectories: true)
        let config = try writeConfig(
            "notify:\n  pingURL: \(monitor.url)\nmetricsFile: \(metrics)\nretryAttempts: 1\n", in: home)
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        try await withEmulator(state) { server in
            let binary = try #require(roundupBinary)
            // --quiet prints a line only when something is wrong: a week that failed in a way
            // that may pass (a 503), or that needs a person (a 400). One that needs a person
            // keeps its 78, so that no schedule retries what would fail again.
            for (quiet, fault, expected) in [(false, 0, Int32(74)), (true, 503, 74), (true, 400, 78)] {
                let week = quiet ? "2026-11-08" : "2026-11-15"
                if quiet {
                    await server.bank.injectFaults([
                        FaultRule(endpoints: [.settledFeed], when: .always, faults: [.serverError(fault)])
                    ])
                }
                let result = try await run(
                    "/bin/bash",
                    [
                        "-c",
                        "\"$ROUNDUP\" run --end-date \(week) --api-base-url \(server.baseURL) --config \(config)"
                            + (quiet ? " --quiet" : "") + " > /dev/full",
                    ], environment: environment.merging(["ROUNDUP": binary]) { $1 })
                #expect(result.status == expected, "\(fault): \(result.stderr)")
                #expect(result.stderr.contains("cannot write to standard output: No space left on device"))
                let status = try await roundup(["status", "--json"], environment: environment)
                let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
                #expect((json?["lastRun"] as? [String: Any])?["exitCode"] as? Int == Int(expected), "\(status.stdout)")
                let exported = try String(contentsOfFile: metrics, encoding: .utf8)
                #expect(exported.contains("roundup_run_exit_code \(expected)"), "\(exported)")
                let ping = await monitor.pings.last
                #expect(
                    ping?.path.hasSuffix("/fail") == true && ping?.body.hasPrefix("exit \(expected)") == true,
                    "\(String(describing: ping))")
            }
            await server.bank.injectFaults([])
            let moved = await server.bank.transfers.map(\.amount.minorUnits).sorted()
            #expect(moved == [126, 298], "the money moved before the output failed")
            robustnessLine(
                "run > /dev/full, with and without --quiet",
                "exit 74 (78 kept where a person is needed), and the same in the run's row, status, the metrics and "
                    + "the /fail ping",
                moneyExactlyOnce: moved == [126, 298])
        }
        await monitor.stop()
    }

    /// A token file that is a link to a file another user owns, or one others can read, is
    /// refused naming the target, with no advice to `chmod` the link (which would change
    /// the target) and with what works in a container instead; a link to a file of one's
    /// own with mode 600 is read.
    @Test func aTokenLinkToAnotherUsersFileIsRefusedNamingIt() async throws {
        let target: String
        if getuid() == 0 {
            // As root, a file of another user's, as a container runtime's secret would be.
            target = home.path + "/others-token"
            try (token + "\n").write(toFile: target, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target)
            #expect(chown(target, 65534, 65534) == 0)
        } else {
            target = "/etc/passwd"
        }
        let readable = home.path + "/readable-token"
        try (token + "\n").write(toFile: readable, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: readable)
        let own = home.path + "/own-token"
        try (token + "\n").write(toFile: own, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: own)
        var environment = environment
        environment["STARLING_ACCESS_TOKEN"] = nil
        var refused = 0
        for (linked, said) in [(target, "which user "), (readable, "which group or others can read")] {
            let link = home.path + "/token-link"
            try? FileManager.default.removeItem(atPath: link)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: linked)
            let config = try writeConfig("tokenFile: \(link)\n", in: home)
            let run = try await roundup(
                ["run", "--end-date", "2026-11-15", "--config", config, "--api-base-url", "http://127.0.0.1:9"],
                environment: environment)
            #expect(run.status == 78, "\(run.stderr)")
            #expect(run.stderr.contains("leads to \(linked), \(said)"), "\(run.stderr)")
            #expect(!run.stderr.contains("chmod"), "no advice to chmod a link: \(run.stderr)")
            #expect(run.stderr.contains("STARLING_ACCESS_TOKEN") && run.stderr.contains("Podman secret"))
            if run.status == 78, run.stderr.contains(linked), !run.stderr.contains("chmod") { refused += 1 }
        }
        // A second name for a file others can read: no chmod, which would change it for both.
        let second = home.path + "/second-name"
        try FileManager.default.linkItem(atPath: readable, toPath: second)
        let named = try writeConfig("tokenFile: \(second)\n", in: home)
        let hard = try await roundup(
            ["run", "--end-date", "2026-11-15", "--config", named, "--api-base-url", "http://127.0.0.1:9"],
            environment: environment)
        #expect(hard.status == 78 && hard.stderr.contains("it has 2 names") && !hard.stderr.contains("chmod 600"))
        let link = home.path + "/token-link"
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: own)
        let config = try writeConfig("tokenFile: \(link)\n", in: home)
        let check = try await roundup(["check", "--config", config], environment: environment)
        #expect(!check.stdout.contains("leads to"), "a link to one's own file is read: \(check.stdout)")
        robustnessLine(
            "tokenFile a link to another user's file (\(target)), and to a file others can read",
            "\(refused) of 2 refused (exit 78) naming the target, no chmod advice, the container's ways said",
            moneyExactlyOnce: true)
    }

    /// A state directory the run would create under a directory anyone may write to (and
    /// that is not sticky) is refused before anything is asked of the bank, and nothing is
    /// created: another user could rename it away, and the next run would start an empty
    /// ledger. `check` says so too.
    @Test func aNewStateDirectoryUnderAnOpenParentIsRefusedBeforeAnyRequest() async throws {
        let open = home.path + "/open"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
        #expect(chmod(open, 0o777) == 0)
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        try await withEmulator(state) { server in
            let run = try await roundup(
                ["run", "--end-date", "2026-11-15", "--state-dir", open + "/state", "--api-base-url", server.baseURL],
                environment: environment)
            #expect(run.status == 78, "\(run.stderr)")
            #expect(run.stderr.contains("\(open) can be written by anyone (mode 777)"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: open + "/state"), "nothing was created")
            let requests = await server.bank.arrivals
            #expect(requests == 0, "nothing was asked of the bank")
            let check = try await roundup(["check", "--state-dir", open + "/state"], environment: environment)
            #expect(check.stdout.contains("\(open) can be written by anyone"), "\(check.stdout)")
            // Made sticky, as /tmp is, no one may rename what is not theirs: the run goes ahead.
            #expect(chmod(open, 0o1777) == 0)
            let sticky = try await roundup(
                ["run", "--end-date", "2026-11-15", "--state-dir", open + "/state", "--api-base-url", server.baseURL],
                environment: environment)
            #expect(sticky.status == 0, "\(sticky.stderr)")
            let moved = await server.bank.transfers.map(\.amount.minorUnits).sorted()
            robustnessLine(
                "a new state directory under a directory anyone may write to (mode 777, not sticky)",
                "exit \(run.status) before \(requests) requests, nothing created; check says so; under mode 1777 it runs",
                moneyExactlyOnce: moved == [126, 298])
        }
    }

    /// Runs `command` with `arguments`, for the mounts a test makes; its status.
    @discardableResult
    func system(_ command: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A directory planted at the week's link name: the run writes its report pair and says
    /// the link could not be made (exit 78); the report is not owed, so no later run writes
    /// it again.
    @Test func aReportWhoseLinkCannotBeMadeIsWrittenOnceAndSaidSo() async throws {
        let reports = home.path + "/reports"
        try FileManager.default.createDirectory(
            atPath: reports + "/roundup-2026-11-15.md", withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: reports)
        let config = try writeConfig("reportDir: \(reports)\n", in: home)
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        let pairs = {
            ((try? FileManager.default.contentsOfDirectory(atPath: reports)) ?? []).filter {
                $0.hasPrefix("roundup-2026-11-15.2") && $0.hasSuffix(".json")
            }
        }
        try await withEmulator(state) { server in
            let arguments = ["run", "--end-date", "2026-11-15", "--api-base-url", server.baseURL, "--config", config]
            let first = try await roundup(arguments, environment: environment)
            #expect(first.status == 78, "\(first.stderr)")
            #expect(first.stderr.contains("the report is written ("), "\(first.stderr)")
            #expect(first.stderr.contains("roundup-2026-11-15.md could not be pointed at it"), "\(first.stderr)")
            #expect(pairs().count == 1, "\(pairs())")
            for end in ["2026-11-15", "2026-11-22"] {
                let later = try await roundup(
                    ["run", "--end-date", end, "--api-base-url", server.baseURL, "--config", config],
                    environment: environment)
                #expect(!later.stderr.contains("which its run did not write"), "\(later.stderr)")
            }
            #expect(pairs().count == 1, "written once: \(pairs())")

            // Owed again (as a run killed before its report leaves it), with the link still
            // blocked: the next run writes the report, says the link failed, and exits 78.
            let ledger = try DatabaseQueue(path: home.path + "/.local/state/roundup/ledger.sqlite")
            try await ledger.write {
                try $0.execute(sql: "UPDATE week SET reportMissing = 1 WHERE weekEnd = '2026-11-15'")
            }
            try ledger.close()
            let owed = try await roundup(
                ["run", "--end-date", "2026-11-22", "--api-base-url", server.baseURL, "--config", config],
                environment: environment)
            #expect(owed.status == 78, "\(owed.stderr)")
            #expect(
                owed.stderr.contains(
                    "which its run did not write, is written now, rebuilt from the ledger; the report "),
                "\(owed.stderr)")
            #expect(pairs().count == 2, "\(pairs())")
            let after = try await roundup(
                ["run", "--end-date", "2026-11-22", "--api-base-url", server.baseURL, "--config", config],
                environment: environment)
            #expect(!after.stderr.contains("which its run did not write"), "not owed again: \(after.stderr)")
            #expect(pairs().count == 2, "\(pairs())")
        }
    }

    /// The report directory on a full disk: the run that moves the money cannot write its
    /// report, and the ledger marks the week. Once there is room, the next run writes it,
    /// once, rebuilt from the ledger's counted payments, and says so; a rerun after that
    /// writes none. Needs a small tmpfs, which only root may mount: skipped, saying so,
    /// elsewhere.
    @Test func aReportAFullDiskKeptIsWrittenOnceFromTheLedger() async throws {
        let reports = home.path + "/reports"
        try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: false)
        guard getuid() == 0,
            try system("/bin/mount", ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", reports]) == 0
        else {
            print("skipped: a full report directory needs a tmpfs, which this user cannot mount")
            return
        }
        defer { _ = try? system("/bin/umount", [reports]) }
        let filler = reports + "/filler"
        try system("/bin/dd", ["if=/dev/zero", "of=\(filler)", "bs=4k"])
        let config = try writeConfig("reportDir: \(reports)\n", in: home)
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        try await withEmulator(state) { server in
            let arguments = ["run", "--end-date", "2026-11-15", "--api-base-url", server.baseURL, "--config", config]
            let full = try await roundup(arguments, environment: environment)
            #expect(full.stderr.contains("could not write the report to \(reports)"), "\(full.stderr)")
            #expect(full.stderr.contains("the next run writes it from the ledger"), "\(full.stderr)")
            let moved = await server.bank.transfers.map(\.amount.minorUnits).sorted()
            #expect(moved == [126, 298], "the money moved whatever became of the report")
            let written = { (try? FileManager.default.contentsOfDirectory(atPath: reports)) ?? [] }
            #expect(!written().contains { $0.hasPrefix("roundup-2026-11-15") && $0.hasSuffix(".json") })

            try FileManager.default.removeItem(atPath: filler)
            let later = try await roundup(arguments, environment: environment)
            #expect(later.status == 0, "\(later.stderr)")
            #expect(
                later.stderr.contains(
                    "the report of the week ending 2026-11-15, which its run did not write, is written now"),
                "\(later.stderr)")
            // Each run's report by its own name; roundup-2026-11-15.json links to the newest.
            let reportsOfTheWeek = {
                written().filter { $0.hasPrefix("roundup-2026-11-15.") && $0.hasSuffix(".json") }
                    .filter { $0 != "roundup-2026-11-15.json" }
            }
            #expect(reportsOfTheWeek().count == 1, "\(written())")
            let json = try String(contentsOfFile: reports + "/roundup-2026-11-15.json", encoding: .utf8)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let accounts = try #require(report["accounts"] as? [[String: Any]])
            #expect(accounts.allSatisfy { $0["status"] as? String == "transferred" }, "\(accounts)")
            let totals = accounts.compactMap { $0["totalMinorUnits"] as? Int }.sorted()
            #expect(totals == [126, 298])
            let counted = accounts.map { ($0["transactions"] as? [Any])?.count ?? 0 }.reduce(0, +)
            #expect(counted > 0, "the counted payments are listed")
            #expect(json.contains("written later, from the ledger"))

            let again = try await roundup(arguments, environment: environment)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(!again.stderr.contains("is written now"), "written once: \(again.stderr)")
            #expect(reportsOfTheWeek().count == 1, "a rerun writes none: \(written())")
            robustnessLine(
                "the report directory on a full disk while the money moves",
                "report not written, week marked; the next run wrote it from the ledger (\(counted) payments), once",
                moneyExactlyOnce: moved == [126, 298])
        }
    }
}
