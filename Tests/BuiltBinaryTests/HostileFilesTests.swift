import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// Files written where others may plant links: the report directory, textfile-collector
/// directories of mode 1733 and 2770, the state directory. Each runs the built binary
/// against the emulator, with a file of the saver's that a link points at, and checks that
/// the file is unchanged, in content and mode, and that money moved once or not at all.
@Suite struct HostileFilesTests {
    static let week = "2026-11-15"
    /// Another user, for links planted by someone else: only root can make them.
    static let attacker: uid_t = 65534

    let home: TemporaryDirectory
    let token = "hostile-files-" + UUID().uuidString
    var victim: String { home.path + "/victim.txt" }

    init() throws {
        home = try TemporaryDirectory()
        try "the saver's own file\n".write(toFile: home.path + "/victim.txt", atomically: true, encoding: .utf8)
        chmod(home.path + "/victim.txt", 0o600)
    }

    func bank() -> TestBank {
        var bank = TestBank(token: token)
        let gbp = bank.account("GBP", name: "Personal")
        bank.goal(gbp, name: "Round-ups", uid: "90c00000-0000-4000-8000-0000000000f1")
        bank.spend(gbp, 1_50, settled: Instant(iso8601: "2026-11-12T12:00:00Z")!)
        return bank
    }

    func run(_ server: EmulatorServer, _ arguments: [String]) async throws -> Execution {
        try await roundup(
            ["run", "--end-date", Self.week, "--api-base-url", server.baseURL] + arguments,
            environment: binaryEnvironment(home, token: token))
    }

    /// The victim as it was: its text and its mode.
    func victimIsUnchanged() throws -> Bool {
        let text = try String(contentsOfFile: victim, encoding: .utf8)
        let mode = try FileManager.default.attributesOfItem(atPath: victim)[.posixPermissions] as? Int
        return text == "the saver's own file\n" && mode == 0o600
    }

    /// A directory `name` in the home, of `mode`.
    func directory(_ name: String, mode: mode_t) throws -> String {
        let path = home.path + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, mode)
        return path
    }

    /// A link at `path` to the victim, owned by `owner` when given (root only).
    @discardableResult
    func plant(_ path: String, owner: uid_t? = nil) -> Bool {
        unlink(path)
        guard symlink(victim, path) == 0 else { return false }
        guard let owner else { return true }
        return lchown(path, owner, owner) == 0
    }

    /// Every name a run of `week` could write in the report directory around now: the
    /// week's links, its reports of each outcome for the next minute, the savings chart,
    /// and the temporary names older versions used.
    static func reportNames(now: Instant = .now) -> [String] {
        var names = ["savings.svg", "savings.html", "savings.svg.partial", "savings.html.partial"]
        for suffix in ["md", "json"] {
            names += [
                "roundup-\(week).\(suffix)", "roundup-\(week).\(suffix).link", "roundup-\(week).\(suffix).partial",
            ]
            for second in -2..<60 {
                let time = now.adding(milliseconds: Int64(second) * 1000)
                let stamp =
                    String(time.iso8601.prefix(19)).replacingOccurrences(of: "-", with: "")
                    .replacingOccurrences(of: ":", with: "") + "Z"
                for outcome in ["moved", "nothing", "failed"] {
                    names += ["roundup-\(week).\(stamp).\(outcome).\(suffix)"]
                    names += ["roundup-\(week).\(stamp).\(outcome).\(suffix).partial"]
                }
            }
        }
        return names
    }

    @Test func linksPlantedInTheReportDirectoryAreNeverWrittenThrough() async throws {
        let reports = try directory("reports", mode: 0o700)
        let names = Self.reportNames()
        for name in names { #expect(plant(reports + "/" + name)) }
        try await withEmulator(bank().state) { server in
            let result = try await run(server, ["--report-dir", reports])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(await server.bank.transfers.count == 1)
            #expect(try victimIsUnchanged())
            // The week's links now point at the run's own report.
            let week = try FileManager.default.destinationOfSymbolicLink(atPath: reports + "/roundup-\(Self.week).md")
            // Another name than the planted ones: `.moved-2.md` when a link held `.moved.md`.
            #expect(week.hasPrefix("roundup-\(Self.week).") && week.contains(".moved"), "\(week)")
            #expect(!names.contains(week), "\(week)")
            let report = try String(contentsOfFile: reports + "/roundup-\(Self.week).md", encoding: .utf8)
            #expect(report.contains("1.50") || report.contains("0.50"))
            let chart = try String(contentsOfFile: reports + "/savings.svg", encoding: .utf8)
            #expect(chart.contains("<rect class=\"week\""), "the chart is drawn, not written through a link")
            robustnessLine(
                "\(names.count) links planted at every name a run writes in the report directory",
                "exit \(result.status), victim unchanged: \(try victimIsUnchanged() ? "yes" : "NO")",
                moneyExactlyOnce: await server.bank.transfers.count == 1)
        }
    }

    /// A report directory of the saver's that holds other things (`reportDir: ~/public_html`):
    /// only the job's own files are made private; the rest, and the directory, keep their modes.
    @Test func onlyTheJobsOwnFilesInTheReportDirectoryAreTightened() async throws {
        let reports = try directory("public", mode: 0o755)
        try "<html>".write(toFile: reports + "/index.html", atomically: true, encoding: .utf8)
        chmod(reports + "/index.html", 0o644)
        _ = try directory("public/sub", mode: 0o755)
        try "old".write(toFile: reports + "/roundup-2026-11-08.md", atomically: true, encoding: .utf8)
        chmod(reports + "/roundup-2026-11-08.md", 0o644)
        // A hard link of the saver's own notes at the chart's name: another name for their file.
        try "notes".write(toFile: home.path + "/notes.txt", atomically: true, encoding: .utf8)
        chmod(home.path + "/notes.txt", 0o644)
        #expect(link(home.path + "/notes.txt", reports + "/savings.html") == 0)
        try await withEmulator(bank().state) { server in
            let result = try await run(server, ["--report-dir", reports])
            #expect(result.status == 0, "\(result.stderr)")
            func mode(_ name: String) throws -> Int? {
                try FileManager.default.attributesOfItem(atPath: reports + name)[.posixPermissions] as? Int
            }
            #expect(try mode("") == 0o755 && mode("/index.html") == 0o644 && mode("/sub") == 0o755)
            #expect(try mode("/roundup-2026-11-08.md") == 0o600, "an older report of the job's is made private")
            let notes = try FileManager.default.attributesOfItem(atPath: home.path + "/notes.txt")
            #expect(notes[.posixPermissions] as? Int == 0o644, "a hard link's other name keeps its mode")
            #expect(try String(contentsOfFile: home.path + "/notes.txt", encoding: .utf8) == "notes")
            #expect(try mode("/savings.svg") == 0o600)
            robustnessLine(
                "a report directory of the saver's with other files (0755, index.html 0644, sub/)",
                "exit \(result.status); only the job's files made 0600",
                moneyExactlyOnce: await server.bank.transfers.count == 1)
        }
    }

    @Test func aReportDirectoryOthersCanWriteToIsRefusedBeforeTheBankIsAsked() async throws {
        let reports = try directory("shared-reports", mode: 0o777)
        try await withEmulator(bank().state) { server in
            let result = try await run(server, ["--report-dir", reports])
            #expect(result.status == 78, "\(result.stderr)")
            #expect(result.stderr.contains("chmod 700 \(reports)"), "\(result.stderr)")
            #expect(await server.bank.transfers.isEmpty)
            #expect(await server.bank.arrivals == 0, "refused before the first request")
            let mode = try FileManager.default.attributesOfItem(atPath: reports)[.posixPermissions] as? Int
            #expect(mode == 0o777, "left as it was, for its owner to decide")
            // `check` says so too.
            let check = try await roundup(
                ["check", "--api-base-url", server.baseURL],
                environment: binaryEnvironment(home, token: token).merging(["ROUNDUP_REPORT_DIR": reports]) { $1 })
            #expect(check.status == 78)
            #expect(
                check.stdout.contains("FIX   report directory: \(reports) can be written by others"), "\(check.stdout)")
            robustnessLine(
                "a report directory of mode 0777", "exit \(result.status) before the first request",
                moneyExactlyOnce: await server.bank.transfers.isEmpty)
        }
    }

    /// A collector's directory shared with others, of `mode`: links planted at the metrics
    /// file's temporary names are never followed, and one of another user's at its own name
    /// is refused before the bank is asked anything.
    @Test(arguments: [0o1733, 0o2770] as [mode_t])
    func linksPlantedInASharedMetricsDirectoryAreNeverWrittenThrough(mode: mode_t) async throws {
        let metrics = try directory("metrics-\(String(mode, radix: 8))", mode: mode)
        let file = metrics + "/roundup.prom"
        let asRoot = geteuid() == 0
        let owner: uid_t? = asRoot ? Self.attacker : nil
        for name in ["roundup.prom.partial", ".roundup.prom.partial", "roundup.prom.tmp"] {
            #expect(plant(metrics + "/" + name, owner: owner))
        }
        try await withEmulator(bank().state) { server in
            let first = try await run(server, ["--metrics-file", file])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(try victimIsUnchanged())
            #expect(try String(contentsOfFile: file, encoding: .utf8).contains("roundup_run_exit_code 0"))
            let written = try FileManager.default.attributesOfItem(atPath: file)
            #expect(written[.posixPermissions] as? Int == 0o644)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: metrics).filter { $0.hasPrefix(".") } == [
                    ".roundup.prom.partial"
                ], "no temporary file of the run's is left")
            guard asRoot else {
                print("HostileFilesTests: not root, so no link of another user's can be planted; that part is skipped")
                return
            }
            #expect(plant(file, owner: Self.attacker))
            let second = try await run(server, ["--metrics-file", file, "--end-date", "2026-11-08"])
            #expect(second.status == 78, "\(second.stderr)")
            #expect(second.stderr.contains("belongs to another user"), "\(second.stderr)")
            #expect(await server.bank.transfers.count == 1)
            #expect(try victimIsUnchanged())
            robustnessLine(
                "links planted in a metrics directory of mode \(String(mode, radix: 8))",
                "temporary names never followed; another user's link at the file's name: exit \(second.status); "
                    + "victim unchanged: \(try victimIsUnchanged() ? "yes" : "NO")",
                moneyExactlyOnce: await server.bank.transfers.count == 1)
        }
    }

    @Test func aMetricsFileAmongTheJobsOwnFilesIsRefused() async throws {
        let state = home.path + "/.local/state/roundup"
        let config = try writeConfig("timeZone: Europe/London\n", in: home)
        try await withEmulator(bank().state) { server in
            let first = try await run(server, [])
            #expect(first.status == 0, "\(first.stderr)")
            var refused: [Int32] = []
            for target in [state + "/ledger.sqlite", state + "/metrics.prom", state + "/reports/x.prom", config] {
                let result = try await run(
                    server, ["--metrics-file", target, "--config", config, "--end-date", "2026-11-08"])
                #expect(result.status == 78, "\(target): \(result.stderr)")
                #expect(result.stderr.contains("the metrics file \(target)"), "\(result.stderr)")
                refused.append(result.status)
            }
            // The ledger is still the ledger (it holds the refused runs' rows): the week is
            // still counted, and running it again moves nothing.
            let header = try Data(contentsOf: URL(fileURLWithPath: state + "/ledger.sqlite")).prefix(16)
            #expect(header == Data("SQLite format 3\0".utf8))
            let again = try await run(server, [])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try String(contentsOfFile: config, encoding: .utf8) == "timeZone: Europe/London\n")
            #expect(!FileManager.default.fileExists(atPath: state + "/metrics.prom"))
            #expect(await server.bank.transfers.count == 1)
            robustnessLine(
                "--metrics-file at the ledger, in the state and report directories, at the config",
                "exits \(refused.map(String.init).joined(separator: ", ")), the ledger intact",
                moneyExactlyOnce: await server.bank.transfers.count == 1)
        }
    }

    /// A collector's directory that is a link to where the state directory will be, on a
    /// first run that makes it: refused once the state directory exists, before the first
    /// request, and the ledger is never replaced; a hard link to the ledger is refused too.
    @Test func aMetricsPathThatLeadsIntoTheStateDirectoryLaterIsRefused() async throws {
        let state = home.path + "/new-state"
        try FileManager.default.createSymbolicLink(atPath: home.path + "/collector", withDestinationPath: state)
        try await withEmulator(bank().state) { server in
            let first = try await run(
                server, ["--state-dir", state, "--metrics-file", home.path + "/collector/ledger.sqlite"])
            #expect(first.status == 78, "\(first.stderr)")
            #expect(first.stderr.contains("the metrics file"), "\(first.stderr)")
            #expect(await server.bank.arrivals == 0, "refused before the first request")
            let header = try Data(contentsOf: URL(fileURLWithPath: state + "/ledger.sqlite")).prefix(16)
            #expect(header == Data("SQLite format 3\0".utf8), "the ledger is still the ledger")
            // A hard link to the ledger, outside the state directory.
            let hard = home.path + "/hard.prom"
            #expect(link(state + "/ledger.sqlite", hard) == 0)
            let second = try await run(server, ["--state-dir", state, "--metrics-file", hard])
            #expect(second.status == 78, "\(second.stderr)")
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: state + "/ledger.sqlite")).prefix(16)
                    == Data("SQLite format 3\0".utf8))
            let third = try await run(server, ["--state-dir", state])
            #expect(third.status == 0, "\(third.stderr)")
            #expect(await server.bank.transfers.count == 1)
            robustnessLine(
                "--metrics-file through a link into a state directory a first run makes, and a hard link to the ledger",
                "exits \(first.status), \(second.status) before the first request; the ledger intact",
                moneyExactlyOnce: await server.bank.transfers.count == 1)
        }
    }

    /// Report and state directories reached through another user's directory or link, or
    /// under a directory anyone may write to, are refused before the first request; a
    /// sticky directory (as /tmp) on the way is fine.
    @Test func directoriesOnAWayOthersControlAreRefused() async throws {
        let theirs = try directory("theirs", mode: 0o755)
        let mine = try directory("mine", mode: 0o755)
        try "config\n".write(toFile: mine + "/app.conf", atomically: true, encoding: .utf8)
        chmod(mine + "/app.conf", 0o644)
        let open = try directory("open", mode: 0o777)
        _ = try directory("open/reports", mode: 0o700)
        let sticky = try directory("sticky", mode: 0o1777)
        _ = try directory("sticky/reports", mode: 0o700)
        try FileManager.default.createSymbolicLink(atPath: theirs + "/reports", withDestinationPath: mine)
        let asRoot = geteuid() == 0
        if asRoot {
            chown(theirs, Self.attacker, Self.attacker)
            lchown(theirs + "/reports", Self.attacker, Self.attacker)
        }
        try await withEmulator(bank().state) { server in
            var exits: [Int32] = []
            var refusals = [
                ["--report-dir", open + "/reports"], ["--state-dir", open + "/reports/state"],
            ]
            if asRoot { refusals += [["--report-dir", theirs + "/reports"], ["--state-dir", theirs + "/reports"]] }
            for arguments in refusals {
                let refused = try await run(server, arguments)
                #expect(refused.status == 78, "\(arguments): \(refused.stderr)")
                #expect(
                    refused.stderr.contains("belongs to another user") || refused.stderr.contains("can be written by"),
                    "\(refused.stderr)")
                exits.append(refused.status)
            }
            #expect(await server.bank.arrivals == 0, "refused before the first request")
            let mode = try FileManager.default.attributesOfItem(atPath: mine + "/app.conf")[.posixPermissions]
            #expect(mode as? Int == 0o644, "the saver's file keeps its mode")
            #expect(try FileManager.default.contentsOfDirectory(atPath: mine) == ["app.conf"])
            let fine = try await run(server, ["--report-dir", sticky + "/reports"])
            #expect(fine.status == 0, "a sticky directory on the way: \(fine.stderr)")
            if !asRoot { print("HostileFilesTests: not root, so another user's directory is not tried") }
            robustnessLine(
                "report and state directories through another user's link or directory, or under one anyone may write to",
                "exits \(exits.map(String.init).joined(separator: ", ")) before the first request; a sticky one on the way: exit \(fine.status)",
                moneyExactlyOnce: await server.bank.transfers.count == 1)
        }
    }

    @Test func aLedgerThatIsALinkIsNeverOpened() async throws {
        let state = try directory(".local/state/roundup", mode: 0o700)
        #expect(plant(state + "/ledger.sqlite"))
        try await withEmulator(bank().state) { server in
            let result = try await run(server, [])
            #expect(result.status == 78, "\(result.stderr)")
            #expect(result.stderr.contains("ledger.sqlite is not a plain file"), "\(result.stderr)")
            #expect(await server.bank.transfers.isEmpty)
            #expect(try victimIsUnchanged())
            robustnessLine(
                "a link planted at the ledger's name", "exit \(result.status), victim unchanged",
                moneyExactlyOnce: await server.bank.transfers.isEmpty)
        }
    }
}
