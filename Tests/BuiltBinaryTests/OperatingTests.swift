import ChildProcess
import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// What a person who does not watch the job relies on, run as the built binary: exit codes
/// a scheduler can act on, a dry run that writes nothing, output failures that do not crash.
@Suite struct OperatingTests {
    let home: TemporaryDirectory
    let token = "operating-token-" + UUID().uuidString

    init() throws { home = try TemporaryDirectory() }

    var environment: [String: String] { binaryEnvironment(home, token: token) }

    static func lines(of file: String) throws -> [String] {
        try SchedulingTests.text(file).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }

    // MARK: - Exit codes

    @Test func aBaseURLThatIsNotTheBanksAPINeedsAPerson() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        // A path the bank does not have, on purpose: the contract check leaves it out.
        try await withEmulator(state, contract: .none) { server in
            let result = try await roundup(
                ["run", "--end-date", "2026-11-15", "--api-base-url", server.baseURL + "/wrong"],
                environment: environment)
            #expect(result.status == 78, "a 404 for every path will not pass by itself: \(result.stderr)")
            #expect(result.stderr.contains("is \(server.baseURL)/wrong the bank's API?"))
            let moved = await server.bank.transfers.count
            robustnessLine(
                "a base URL that is not the bank's API", "exit \(result.status)", moneyExactlyOnce: moved == 0)
        }
    }

    @Test func theServiceRetriesOnlyWhatMayPassAndNotForever() throws {
        let unit = try Self.lines(of: "roundup.service")
        #expect(unit.contains("RestartPreventExitStatus=64 65 77 78"))
        #expect(unit.contains("Restart=on-failure"))
        #expect(unit.contains("StartLimitBurst=8") && unit.contains("StartLimitIntervalSec=12h"))
        #expect(unit.contains { $0.hasPrefix("After=") && $0.contains("time-sync.target") })
        #expect(unit.contains { $0.hasPrefix("Wants=") && $0.contains("time-sync.target") })
    }

    // MARK: - A dry run writes nothing

    /// Every file below `path`, with its size and modification time.
    static func snapshot(_ path: String) -> [String: String] {
        var files: [String: String] = [:]
        for name in FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [] {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + name)
            let size = attributes?[.size] as? Int ?? -1
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            files[name] = "\(size) \(modified)"
        }
        return files
    }

    @Test func aDryRunCreatesNothingWhereThereIsNoStateDirectory() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        let stateDirectory = home.path + "/nowhere/state"
        try await withEmulator(state) { server in
            let result = try await roundup(
                [
                    "run", "--dry-run", "--end-date", "2026-11-15", "--api-base-url", server.baseURL,
                    "--state-dir", stateDirectory,
                ],
                environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("a real run would move 1.26 EUR"), "the proposal goes to stdout")
            #expect(!result.stdout.contains("Report:"))
            #expect(!FileManager.default.fileExists(atPath: home.path + "/nowhere"))
            let moved = await server.bank.transfers.count
            robustnessLine(
                "a dry run with no state directory", "exit \(result.status), nothing created",
                moneyExactlyOnce: moved == 0)
        }
    }

    @Test func aDryRunReadsTheLedgerAndChangesNothingInTheStateDirectory() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        let stateDirectory = home.path + "/state"
        try await withEmulator(state) { server in
            let base = ["run", "--api-base-url", server.baseURL, "--state-dir", stateDirectory]
            #expect(try await roundup(base + ["--end-date", "2026-11-08"], environment: environment).status == 0)
            let before = Self.snapshot(stateDirectory)
            #expect(before.keys.contains("ledger.sqlite") && before.keys.contains("roundup.lock"))
            try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: stateDirectory)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: stateDirectory) }
            // The week already in the ledger is read from it; the next one is proposed.
            let known = try await roundup(base + ["--dry-run", "--end-date", "2026-11-08"], environment: environment)
            #expect(known.status == 0, "\(known.stderr)")
            #expect(known.stdout.contains("already transferred"))
            let next = try await roundup(base + ["--dry-run", "--end-date", "2026-11-15"], environment: environment)
            #expect(next.status == 0, "\(next.stderr)")
            #expect(next.stdout.contains("dry run"))
            #expect(Self.snapshot(stateDirectory) == before, "no file created, changed or removed")
            let uids = await server.bank.transfers.map(\.transferUid)
            robustnessLine(
                "a dry run on a read-only state directory",
                "exit \(next.status), \(Self.snapshot(stateDirectory) == before ? "no file changed" : "FILES CHANGED")",
                moneyExactlyOnce: !uids.isEmpty && Set(uids).count == uids.count)
        }
    }

    // MARK: - Output that cannot be written

    /// Runs `script` in bash with `$ROUNDUP` set to the built binary.
    func shell(_ script: String) async throws -> Execution {
        let binary = try #require(roundupBinary)
        return try await run("/bin/bash", ["-c", script], environment: environment.merging(["ROUNDUP": binary]) { $1 })
    }

    @Test func aFullDiskOnStandardOutputIsSaidAndTheMoneyIsStillRecorded() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        try await withEmulator(state) { server in
            let result = try await shell(
                "\"$ROUNDUP\" run --end-date 2026-11-15 --api-base-url \(server.baseURL) > /dev/full")
            #expect(result.status == 74, "\(result.stderr)")
            #expect(result.stderr.contains("cannot write to standard output: No space left on device"))
            #expect(await server.bank.transfers.count == 2)
            let history = try await roundup(["history"], environment: environment)
            #expect(history.stdout.contains("transferred"), "the ledger was committed before the output")
            let moved = await server.bank.transfers.count
            robustnessLine("run > /dev/full", "exit \(result.status), ledger committed", moneyExactlyOnce: moved == 2)
        }
    }

    @Test func aClosedPipeEndsTheCommandQuietly() async throws {
        // As under systemd, SIGPIPE is ignored: the write fails with EPIPE instead. The
        // reader is gone before the command writes.
        let result = try await shell(
            #"trap '' PIPE; { sleep 0.5; "$ROUNDUP" history; echo "status $?" >&2; } | true"#)
        #expect(result.stderr == "status 0\n", "no crash and nothing said: \(result.stderr)")
        robustnessLine(
            "history into a closed pipe, SIGPIPE ignored", result.stderr.trimmingCharacters(in: .newlines),
            moneyExactlyOnce: true)
    }

    @Test func aStateDirectoryThatCannotBeCreatedIsNamedWithTheSystemsReason() async throws {
        try "not a directory".write(toFile: home.path + "/file", atomically: true, encoding: .utf8)
        let result = try await roundup(
            [
                "run", "--end-date", "2026-11-15", "--state-dir", home.path + "/file/state", "--api-base-url",
                "http://127.0.0.1:9",
            ],
            environment: environment)
        #expect(result.status == 78)
        #expect(result.stderr.contains("Not a directory"), "\(result.stderr)")
        #expect(!result.stderr.contains("error 1") && !result.stderr.contains("Error Domain"))
    }

    // MARK: - Files only the holder can read

    @Test func filesOthersCouldReadAreTightenedAndAStateDirectoryOthersCanWriteIsRefused() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        let stateDirectory = home.path + "/state"
        try await withEmulator(state) { server in
            let base = ["run", "--api-base-url", server.baseURL, "--state-dir", stateDirectory]
            // Started with a umask that lets others read.
            let first = try await shell(
                "umask 022; \"$ROUNDUP\" " + (base + ["--end-date", "2026-11-08"]).joined(separator: " "))
            #expect(first.status == 0, "\(first.stderr)")
            for file in ["", "/ledger.sqlite", "/roundup.lock", "/reports/roundup-2026-11-08.md"] {
                let path = URL(fileURLWithPath: stateDirectory + file).resolvingSymlinksInPath().path
                let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]
                #expect(mode as? Int == (file.isEmpty ? 0o700 : 0o600), "\(file)")
            }
            // A ledger someone made readable is made private again, with a notice.
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o644], ofItemAtPath: stateDirectory + "/ledger.sqlite")
            let second = try await roundup(base + ["--end-date", "2026-11-15"], environment: environment)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stderr.contains("ledger.sqlite could be read by others (mode 644); it is now 600"))
            let mode = try FileManager.default.attributesOfItem(atPath: stateDirectory + "/ledger.sqlite")
            #expect(mode[.posixPermissions] as? Int == 0o600)
            // A state directory others can write to is refused before anything happens.
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: stateDirectory)
            let refused = try await roundup(base + ["--end-date", "2026-11-22"], environment: environment)
            #expect(refused.status == 78)
            #expect(refused.stderr.contains("can be written by others (mode 777)"))
            #expect(refused.stderr.contains("chmod 700 \(stateDirectory)"))
            // check says so too, in the run's words, before any run is refused.
            let check = try await roundup(
                ["check", "--state-dir", stateDirectory, "--api-base-url", server.baseURL], environment: environment)
            #expect(check.status != 0)
            #expect(
                check.stdout.contains(
                    "FIX   the state directory \(stateDirectory) can be written by others (mode 777)"),
                "\(check.stdout)")
            #expect(check.stdout.contains("chmod 700 \(stateDirectory)"))
            let uids = await server.bank.transfers.map(\.transferUid)
            robustnessLine(
                "umask 022, a readable ledger, a state directory others can write to",
                "files 0600, tightened with a notice, then exit \(refused.status)",
                moneyExactlyOnce: !uids.isEmpty && Set(uids).count == uids.count)
        }
    }

    // MARK: - Reports: one per run, the real one never overwritten

    @Test func everyRunKeepsItsOwnReportAndTheWeeksLinkNeverPointsAtAFailedRun() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        let reports = home.path + "/state/reports"
        // An old failed run's report goes after 30 days; an old report of moved money stays.
        try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
        for name in ["roundup-2026-09-06.20260907T060000Z.failed.md", "roundup-2026-09-06.20260908T060000Z.moved.md"] {
            try "old".write(toFile: reports + "/" + name, atomically: true, encoding: .utf8)
        }
        try await withEmulator(state) { server in
            let base = ["run", "--end-date", "2026-11-15", "--state-dir", home.path + "/state"]
            let moved = try await roundup(base + ["--api-base-url", server.baseURL], environment: environment)
            #expect(moved.status == 0, "\(moved.stderr)")
            let link = reports + "/roundup-2026-11-15.md"
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: link)
            #expect(target.hasPrefix("roundup-2026-11-15.") && target.hasSuffix("Z.moved.md"), "\(target)")
            #expect(moved.stdout.contains("Report: \(reports)/\(target)"))
            let movedReport = try String(contentsOfFile: link, encoding: .utf8)
            #expect(movedReport.contains("transferred"))

            // A dry run writes no report; a failed rerun writes its own, and the link stays.
            #expect(
                try await roundup(base + ["--api-base-url", server.baseURL, "--dry-run"], environment: environment)
                    .status == 0)
            let failed = try await roundup(base + ["--api-base-url", "http://127.0.0.1:9"], environment: environment)
            #expect(failed.status == 69)
            let names = try FileManager.default.contentsOfDirectory(atPath: reports).sorted()
            #expect(names.filter { $0.hasPrefix("roundup-2026-11-15.") && $0.contains(".failed") }.count == 2)
            #expect(names.filter { $0.hasPrefix("roundup-2026-11-15.") && $0.contains(".moved") }.count == 2)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
            #expect(try String(contentsOfFile: link, encoding: .utf8) == movedReport)
            #expect(!names.contains("roundup-2026-09-06.20260907T060000Z.failed.md"), "old failed reports go")
            #expect(names.contains("roundup-2026-09-06.20260908T060000Z.moved.md"), "reports of moved money stay")
        }
    }

    // MARK: - Interrupted

    @Test func sigtermSaysWhichAccountsWereFinishedAndTheNextRunFinishesTheRest() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        let euro = try #require(state.accounts.first { $0.currency == "EUR" }).uid
        let behaviour = EmulatorBehaviour(deduplicatesTransfers: false)
        try await withEmulator(state, behaviour: behaviour) { server in
            // The euro account's transfer waits at the bank; the run is stopped meanwhile.
            await server.bank.injectFaults([
                FaultRule(endpoints: [.addMoney], pathContains: euro, when: .first(1), faults: [.stall(.seconds(6))])
            ])
            let arguments = ["run", "--end-date", "2026-11-15", "--api-base-url", server.baseURL]
            let err = home.path + "/interrupted.err"
            let descriptor = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            let child = try Child.spawn(
                try #require(roundupBinary), arguments, environment: unpaced(environment), stdout: descriptor,
                stderr: descriptor
            )
            close(descriptor)
            // The euro transfer waits at the bank, and the pound account's week is moved and
            // recorded; the run counts the pound account finished a moment after the ledger has it.
            #expect(
                await eventually {
                    await server.bank.stalled == 1 && weeksDone(in: home.path + "/.local/state/roundup") == 1
                })
            try await Task.sleep(for: .milliseconds(250))
            kill(child.pid, SIGTERM)
            let ending = await ending(of: child)
            let said = try String(contentsOfFile: err, encoding: .utf8)
            #expect(ending.status == 128 + SIGTERM, "\(ending): \(said)")
            #expect(
                said.contains(
                    "stopped by SIGTERM; finished: Personal (GBP), week ending 2026-11-15; "
                        + "not finished: Euro (EUR), week ending 2026-11-15"), "\(said)")
            // The ledger's run table says so, and status warns once it is old.
            let status = try await roundup(["status"], environment: environment)
            #expect(
                status.stdout.contains("exit 143: stopped by SIGTERM before it finished"), "\(status.stdout)")
            // The bank carries out what it had received; the next run finds it and moves nothing twice.
            for _ in 0..<400 where await server.bank.transfers.count < 2 {
                try await Task.sleep(for: .milliseconds(25))
            }
            let rerun = try await roundup(arguments, environment: environment)
            #expect(rerun.status == 0, "\(rerun.stderr)")
            let moved = await server.bank.transfers.map(\.amount.minorUnits).sorted()
            #expect(moved == [126, 298])
            robustnessLine(
                "SIGTERM during a transfer", "exit \(ending.status), said which accounts were finished",
                moneyExactlyOnce: moved == [126, 298])
        }
    }
}
