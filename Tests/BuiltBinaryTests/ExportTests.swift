import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// `roundup export` read by the tools savers keep their books in: ledger-cli (pedantic),
/// hledger (strict checks), Beancount's loader and ofxtools. A ledger of several accounts,
/// currencies and weeks, with names from the bank that would break each format, is
/// exported in each format, and each tool's total moved into goals is `history`'s.
@Suite struct ExportTests {
    static let weeks = ["2026-11-08", "2026-11-15"]
    static let token = "export-token"
    static let venv = repositoryRoot.appendingPathComponent(".build/contract-venv/bin/python").path
    static let totals = repositoryRoot.appendingPathComponent("Tests/Contract/export_totals.py").path

    /// Accounts and goals whose names quote, comment, break lines, start with a digit or
    /// leave ASCII; each in its own currency's decimals.
    static func bank() -> (BankState, goals: String) {
        var bank = TestBank(token: token)
        var goals = "goals:\n"
        let named: [(String, String, String, Int64)] = [
            ("Personal", "GBP", "Round-ups", 4_35),
            ("Bob's \"Joint\"; Account", "GBP", "\"; 2026-01-01 * \"", 12_01),
            ("Ünïcode Café", "EUR", "Vacances d'été", 3_20),
            ("2026 Savings", "JPY", "1st goal", 1203),
            ("Line\nBreak: [x] (y)", "KWD", "Goal: one [a] (b)", 1_250),
            // Three accounts of one name (their uids share a beginning), two currencies: three
            // accounts in the books, never one.
            ("Current", "GBP", "Round-ups", 2_10), ("Current", "EUR", "Round-ups", 2_20),
            ("Current", "GBP", "Round-ups", 2_30),
            // A name too long for a line of ledger-cli's, and a goal's XML cannot hold as it is.
            (
                String(repeating: "L", count: 3_000), "GBP", "a\u{FFFF}b\u{FFFE} " + String(repeating: "🇬🇧", count: 40),
                1_10
            ),
        ]
        for (index, (name, currency, goal, spend)) in named.enumerated() {
            let account = bank.account(currency, name: name)
            let goalUid = String(format: "90f00000-0000-4000-8000-%012d", index + 1)
            bank.goal(account, name: goal, uid: goalUid)
            goals += "  \(account): \(goalUid)\n"
            for week in weeks {
                bank.spend(account, spend, settled: londonWeek(week).start.adding(milliseconds: 3_600_000))
            }
        }
        // An account with nothing to move: no transfer, so nothing in the books.
        bank.account("GBP", name: "Quiet")
        return (bank.state, goals)
    }

    @Test func eachToolReadsTheExportWithHistorysTotals() async throws {
        let home = try TemporaryDirectory()
        let (state, goals) = Self.bank()
        let environment = binaryEnvironment(home, token: Self.token)
        // A whole amount saves a unit, so that the yen account has something to move.
        let config = try writeConfig(goals + "wholeAmountsSaveAUnit: true\n", in: home)
        try await withEmulator(state) { server in
            for week in Self.weeks {
                let run = try await roundup(
                    ["run", "--end-date", week, "--api-base-url", server.baseURL, "--config", config],
                    environment: environment)
                #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            }
        }
        let history = try await roundup(["history", "--json", "--config", config], environment: environment)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any])
        let moved = try #require(document["totals"] as? [String: String])
        #expect(moved.keys.sorted() == ["EUR", "GBP", "JPY", "KWD"], "\(moved)")
        let transfers = 2 * 9

        guard FileManager.default.isExecutableFile(atPath: Self.venv),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/hledger"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/ledger")
        else {
            // CI runs scripts/test, which runs scripts/test-tools: there, their absence is a failure.
            let message = "reading the exports needs hledger, ledger and .build/contract-venv (scripts/test-tools)"
            if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record(Comment(rawValue: message)) }
            print("skipped: \(message)")
            return
        }
        for (format, tools) in [("ledger", ["ledger", "hledger"]), ("beancount", ["beancount"]), ("ofx", ["ofx"])] {
            let file = home.path + "/export." + format
            let export = try await roundup(
                ["export", "--format", format, "--output", file, "--config", config], environment: environment)
            #expect(export.status == 0 && export.stdout.isEmpty, "\(export.stderr)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            // No name from the bank writes an entry of its own: every entry is a transfer's.
            let entries = text.split(separator: "\n").filter { $0.firstMatch(of: /^\d{4}-\d\d-\d\d \*/) != nil }
            #expect(format == "ofx" || entries.count == transfers, "\(text)")
            for tool in tools {
                let read = try await run(Self.venv, [Self.totals, tool, file], environment: ["PATH": "/usr/bin:/bin"])
                #expect(read.status == 0, "\(tool): \(read.stderr)\n\(text)")
                let totals = try JSONSerialization.jsonObject(with: Data(read.stdout.utf8)) as? [String: String]
                // Compared as numbers: a tool may write 1.6 where history writes 1.60.
                let exact = { (amounts: [String: String]?) in (amounts ?? [:]).mapValues { Decimal(string: $0) } }
                #expect(exact(totals) == exact(moved), "\(tool) reads \(totals ?? [:]), history says \(moved)")
            }
        }
        // The original names stay, where the format has room: Beancount's metadata.
        let beancount = try String(contentsOfFile: home.path + "/export.beancount", encoding: .utf8)
        #expect(beancount.contains("name: \"Bob's \\\"Joint\\\"; Account\""), "\(beancount)")
        #expect(beancount.contains("Assets:Starling:2026-Savings:1st-goal"), "\(beancount)")
        // Twice exported, once imported: every transfer's FITID is its transfer uid.
        let ofx = try String(contentsOfFile: home.path + "/export.ofx", encoding: .utf8)
        #expect(ofx.matches(of: /<FITID>[0-9a-f-]{36}<\/FITID>/).count == transfers)
        // OFX's 32 characters of a name are counted in code points, never splitting a flag.
        for name in ofx.matches(of: /<NAME>([^<]*)<\/NAME>/) {
            #expect(name.output.1.unicodeScalars.count <= 32, "\(name.output.1)")
        }
        // Each account is its own in the books, the three named Current included.
        let journal = try String(contentsOfFile: home.path + "/export.ledger", encoding: .utf8)
        let accounts = journal.split(separator: "\n").filter {
            $0.firstMatch(of: /^account Assets:Starling:[^:]+$/) != nil
        }
        #expect(accounts.count == 9, "\(accounts)")
        // To stdout alike, and only weeks the query selects.
        let newest = try await roundup(
            ["export", "--format", "ledger", "--since", "2026-11-15", "--config", config], environment: environment)
        #expect(newest.status == 0)
        #expect(newest.stdout.components(separatedBy: "\n    ; transfer: ").count - 1 == 9, "\(newest.stdout)")
        // hledger's name gives the same journal.
        let hledger = try await roundup(
            ["export", "--format", "hledger", "--since", "2026-11-15", "--config", config], environment: environment)
        #expect(hledger.status == 0 && hledger.stdout == newest.stdout, "\(hledger.stderr)")
        // `-` is standard output too; a device is never replaced.
        let dash = try await roundup(
            ["export", "--format", "ofx", "--output", "-", "--config", config], environment: environment)
        #expect(dash.status == 0 && dash.stdout.hasPrefix("<?xml"), "\(dash.stderr)")
        let device = try await roundup(
            ["export", "--format", "ofx", "--output", "/dev/null", "--config", config], environment: environment)
        #expect(device.status == 74 && device.stderr.contains("not a plain file"), "\(device.stderr)")
    }

    /// An export never replaces the ledger: not into the state directory, and a file it
    /// cannot write is exit 74, naming it. No ledger is said, and a good export is never
    /// replaced by an empty one.
    @Test func anExportIsNeverWrittenOverTheLedger() async throws {
        let home = try TemporaryDirectory()
        let state = home.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let environment = ["HOME": home.path, "PATH": "/usr/bin:/bin"]
        let books = home.path + "/books.journal"
        try "a good export\n".write(toFile: books, atomically: true, encoding: .utf8)
        let none = try await roundup(
            ["export", "--format", "ledger", "--state-dir", home.path + "/mistyped", "--output", books],
            environment: environment)
        #expect(none.status == 64 && none.stderr.contains("no ledger in"), "\(none.stderr)")
        #expect(try String(contentsOfFile: books, encoding: .utf8) == "a good export\n")
        // A ledger with weeks in it: the demo's.
        let demo = try await roundup(["demo"], environment: environment)
        #expect(demo.status == 0, "\(demo.stderr)")
        try FileManager.default.removeItem(atPath: state)
        try FileManager.default.moveItem(atPath: home.path + "/.local/state/roundup/demo", toPath: state)
        let refused = try await roundup(
            ["export", "--format", "ofx", "--state-dir", state, "--output", state + "/ledger.sqlite"],
            environment: environment)
        #expect(refused.status == 74, "\(refused.stderr)")
        #expect(refused.stderr.contains("where it could replace the ledger"), "\(refused.stderr)")
        let missing = try await roundup(
            ["export", "--format", "ledger", "--state-dir", state, "--output", home.path + "/no/such/dir/x.journal"],
            environment: environment)
        #expect(missing.status == 74, "\(missing.stderr)")
        #expect(missing.stderr.contains("no/such/dir"), "\(missing.stderr)")
    }
}
