import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// The bank's text that would drive a terminal: account, goal and counterparty names with
/// ESC sequences, an OSC title, BEL, CR and LF, C1 controls and a bidirectional override.
/// Through the built binary, a real run (with its log lines), a dry run, `history`,
/// `status`, `resolve` and the Markdown report show every one of them escaped, and the
/// JSON report keeps the exact text.
@Suite struct HostileTextTests {
    static let week = "2026-11-15"
    static let fake = "FAKE LINE: moved 999.00 GBP"
    /// Clears the screen, retitles the window, rings the bell, then starts a line of its own.
    static let accountName = "Personal\u{1B}[2J\u{1B}]0;pwned\u{07}\r\n\(fake)"
    static let goalName = "Round\u{1B}[31m-ups\u{9B}2J\u{202E}sgnivas"
    static let shopName = "Shop\u{1B}]8;;https://example.com\u{07}link\u{1B}]8;;\u{07}\u{85}\n\(fake)"
    static let heldName = "Joint\u{1B}[1A\u{1B}[K\n\(fake)\u{2066}"
    static let heldGoal = "Holiday\u{07}\u{1B}[?25l"
    static let goal = "90c00000-0000-4000-8000-0000000000a1"
    static let pendingGoal = "90c00000-0000-4000-8000-0000000000a2"

    let home: TemporaryDirectory
    let token = "hostile-text-" + UUID().uuidString

    init() throws { home = try TemporaryDirectory() }

    func bank() -> (TestBank, String, String) {
        var bank = TestBank(token: token)
        let personal = bank.account("GBP", name: Self.accountName)
        bank.goal(personal, name: Self.goalName, uid: Self.goal)
        bank.spend(personal, 1_50, settled: Instant(iso8601: "2026-11-12T12:00:00Z")!) { item in
            item.counterPartyName = Self.shopName
        }
        // A second account whose goal never becomes active: its week is held, so that its
        // name reaches `status` and `resolve`.
        let joint = bank.account("GBP", name: Self.heldName)
        bank.goal(joint, name: Self.heldGoal, uid: Self.pendingGoal, state: "PENDING")
        bank.spend(joint, 2_25, settled: Instant(iso8601: "2026-11-13T12:00:00Z")!) { item in
            item.counterPartyName = Self.shopName
        }
        return (bank, personal, joint)
    }

    /// What in `text` could drive a terminal, or pass for the job's own line; empty when
    /// nothing does.
    static func problems(in text: String, _ what: String) -> [String] {
        var found: [String] = []
        for scalar in text.unicodeScalars where scalar != "\n" && isControl(scalar) {
            found.append("\(what): U+\(String(scalar.value, radix: 16, uppercase: true))")
        }
        for line in text.split(separator: "\n") where line.hasPrefix("FAKE LINE") || line.hasPrefix("\(fake)") {
            found.append("\(what): a line of its own: \(line)")
        }
        return found
    }

    @Test func bankTextNeverReachesAnOutputRaw() async throws {
        let (bank, personal, joint) = bank()
        let config = try writeConfig(
            "goals:\n  \(personal): \(Self.goal)\n  \(joint): \(Self.pendingGoal)\ngoalWaitSeconds: 0\n", in: home)
        let environment = binaryEnvironment(home, token: token)
        try await withEmulator(bank.state) { server in
            let common = ["--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config]
            var outputs: [(String, Execution)] = []
            let dry = try await roundup(["run", "--dry-run", "--verbose"] + common, environment: environment)
            #expect(dry.status == 0 || dry.status == 78, "\(dry.stderr)")
            outputs.append(("dry run", dry))
            let real = try await roundup(["run", "--verbose"] + common, environment: environment)
            #expect(real.status == 78, "one week is held: \(real.stderr)")
            #expect(real.stdout.contains("Personal\\u001b[2J\\u001b]0;pwned\\u0007\\u000d\\u000aFAKE LINE"))
            outputs.append(("real run", real))
            #expect(await server.bank.transfers.count == 1)
            let json = try await roundup(["run", "--json", "--dry-run"] + common, environment: environment)
            outputs.append(("--json", json))
            for command in [
                ["history"], ["history", "--json"], ["history", "--csv"], ["status"], ["status", "--json"], ["resolve"],
                ["check"],
            ] {
                let result = try await roundup(
                    command + ["--config", config] + (command == ["check"] ? ["--api-base-url", server.baseURL] : []),
                    environment: environment)
                outputs.append((command.joined(separator: " "), result))
            }
            #expect(outputs.first { $0.0 == "status" }?.1.stdout.contains("Joint\\u001b[1A") == true)
            // The JSON outputs keep the exact names.
            let history = try #require(outputs.first { $0.0 == "history --json" }?.1.stdout)
            let document = try JSONSerialization.jsonObject(with: Data(history.utf8)) as? [String: Any]
            let weeks = try #require(document?["weeks"] as? [[String: Any]])
            #expect(Set(weeks.compactMap { $0["goalName"] as? String }).isSubset(of: [Self.goalName, Self.heldGoal]))
            #expect(weeks.contains { $0["accountName"] as? String == Self.accountName })
            #expect(outputs.first { $0.0 == "resolve" }?.1.stdout.contains("Joint\\u001b[1A") == true)
            var problems: [String] = []
            for (what, result) in outputs {
                // CSV ends its records with CRLF, as RFC 4180 writes it: those are its own.
                let stdout =
                    what.hasSuffix("--csv") ? result.stdout.replacingOccurrences(of: "\r\n", with: "\n") : result.stdout
                problems += Self.problems(in: stdout, "\(what) stdout")
                problems += Self.problems(in: result.stderr, "\(what) stderr")
            }
            let reports = home.path + "/.local/state/roundup/reports"
            let markdown = try String(contentsOfFile: reports + "/roundup-\(Self.week).md", encoding: .utf8)
            problems += Self.problems(in: markdown, "Markdown report")
            #expect(markdown.contains("Shop"))
            for chart in ["savings.svg", "savings.html"] {
                let text = try String(contentsOfFile: reports + "/" + chart, encoding: .utf8)
                problems += Self.problems(in: text, chart)
                #expect(text.contains("\\u001b"), "\(chart) shows the goal's name with its controls escaped")
            }
            #expect(problems == [])

            // The JSON report keeps the exact text, with nothing raw in the file.
            let names = try FileManager.default.contentsOfDirectory(atPath: reports).filter { $0.hasSuffix(".json") }
            let file = try #require(names.first { !$0.hasPrefix("roundup-\(Self.week).json") && $0.contains(".moved") })
            let bytes = try Data(contentsOf: URL(fileURLWithPath: reports + "/" + file))
            #expect(Self.problems(in: String(decoding: bytes, as: UTF8.self), "JSON report") == [])
            let report = try JSONSerialization.jsonObject(with: bytes) as? [String: Any]
            let accounts = try #require(report?["accounts"] as? [[String: Any]])
            #expect(Set(accounts.compactMap { $0["name"] as? String }) == [Self.accountName, Self.heldName])
            let transactions = accounts.flatMap { ($0["transactions"] as? [[String: Any]]) ?? [] }
            #expect(transactions.contains { $0["counterParty"] as? String == Self.shopName })
            robustnessLine(
                "bank names with ESC, OSC, BEL, CR, LF, C1 and bidi controls",
                "\(outputs.count) outputs, the Markdown and the JSON report, the savings chart: "
                    + "\(problems.count) raw control characters; "
                    + "the JSON report keeps the exact text",
                moneyExactlyOnce: await server.bank.transfers.count == 1)
        }
    }

    /// Values the bank's description does not allow (an account type and a currency code
    /// with controls in them) reach no output raw: the account is skipped or fails, and its
    /// type and currency are shown printable on stdout and in the Markdown report.
    @Test func anAccountTypeAndCurrencyWithControlsAreShownPrintable() async throws {
        var bank = TestBank(token: token)
        bank.account("GBP", name: "Odd", type: "SAVINGS\u{1B}]0;pwned\u{07}\u{202E}")
        bank.account("E\u{1B}[31m\u{202E}", name: "Strange")
        let environment = binaryEnvironment(home, token: token)
        try await withEmulator(bank.state, contract: .requestsOnly) { server in
            let run = try await roundup(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL], environment: environment)
            #expect(run.status != 0, "the account in a currency that is none: \(run.stderr)")
            var problems = Self.problems(in: run.stdout, "stdout") + Self.problems(in: run.stderr, "stderr")
            #expect(run.stdout.contains("Strange (E\\u001b[31m\\u202e)"), "\(run.stdout)")
            let reports = home.path + "/.local/state/roundup/reports"
            let name = try #require(
                try FileManager.default.contentsOfDirectory(atPath: reports).first { $0.hasSuffix(".md") })
            let markdown = try String(contentsOfFile: reports + "/" + name, encoding: .utf8)
            problems += Self.problems(in: markdown, "Markdown report")
            #expect(markdown.contains("SAVINGS\\\\u001b\\]0;pwned\\\\u0007\\\\u202e"), "the account type, printable")
            #expect(problems == [])
        }
    }
}
