import Foundation
import RoundUp
import RoundUpVocabulary
import StarlingEmulator
import TestSupport
import Testing

/// One word for each state of a week, wherever a person reads it. The built binary runs a
/// week in which each account comes to a different state, then again, and every human
/// output is read: the run's summary, the Markdown reports, `history` and its CSV, `status`,
/// `resolve`, the help and the man page. Each account's state is known from the story, and
/// every word found for a state must be that state's one word.
@Suite struct StateWordsTests {
    static let week = "2026-11-15"
    static let settled = londonWeek(week).start.adding(milliseconds: 3_600_000)
    static let token = "state-words-token"
    static let spare = "90e00000-0000-4000-8000-0000000000ff"

    /// The accounts, by name, each built to end the first real run in another state.
    static func bank() -> (BankState, uids: [String: String]) {
        var bank = TestBank(token: token)
        var uids: [String: String] = [:]
        func account(
            _ name: String, _ currency: String = "GBP", balance: Int64 = 1_000_000_00, type: String = "PRIMARY",
            goalState: String? = "ACTIVE", spend: Int64? = 1_50, target: Int64? = nil, saved: Int64 = 0
        ) {
            let uid = bank.account(currency, name: name, balance: balance, type: type)
            uids[name] = uid
            if let goalState {
                bank.goal(
                    uid, name: "Round-ups", uid: String(format: "90e00000-0000-4000-8000-%012d", uids.count),
                    state: goalState, target: target, saved: saved)
            }
            if let spend { bank.spend(uid, spend, settled: settled) }
        }
        account("Moves")  // transferred, then already transferred
        account("Quiet", spend: 3_00)  // a whole amount: nothing to move
        account("Kept", "EUR", balance: 10_00)  // under the minimum balance: held back
        account("Lost")  // the bank does not answer the transfer: unconfirmed
        account("Refused", goalState: "CREATING")  // the goal never takes money: held, then abandoned
        account("Loan", type: "LOAN", goalState: nil)  // skipped
        account("Broken")  // its feed cannot be read: failed
        // Saves into two goals: 0.20 fills Round-ups, and the bank does not answer the 0.30
        // into Spare: partly transferred.
        account("Parts", target: 10_00, saved: 9_80)
        bank.goal(uids["Parts"]!, name: "Spare", uid: spare)
        return (bank.state, uids)
    }

    /// What each output says of each account: (account name, the word it gives).
    typealias Said = [(account: String, word: String)]

    /// The summary's rows: each account's Status cell.
    static func summary(_ stdout: String, _ names: [String]) -> Said {
        names.compactMap { name in
            summaryRow(stdout, "\(name) (\(name == "Kept" ? "EUR" : "GBP"))")?.last.map { (name, $0) }
        }
    }

    /// A Markdown report's table rows and section headings.
    static func markdown(_ text: String) -> Said {
        var said: Said = []
        for line in text.split(separator: "\n").map(String.init) {
            if let row = line.firstMatch(of: /^\| (\w+) \([A-Z]{3}\) \| \d+ \|.*\| ([^|]+) \|$/) {
                said.append((String(row.output.1), String(row.output.2)))
            } else if let heading = line.firstMatch(of: /^## (\w+) \([A-Z]{3}\) — (.+)$/) {
                said.append((String(heading.output.1), String(heading.output.2)))
            }
        }
        return said
    }

    /// `history`'s table: the Status cell, without the hint after it.
    static func history(_ stdout: String, _ names: [String]) -> Said {
        stdout.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "  ", omittingEmptySubsequences: true).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count == 5, names.contains(cells[1]) else { return nil }
            return (cells[1], String(cells[4].prefix { $0 != "(" }).trimmingCharacters(in: .whitespaces))
        }
    }

    /// `history --csv`: the account and status columns, of cells quoted or not.
    static func csv(_ stdout: String) -> Said {
        stdout.split(separator: "\r\n").dropFirst().map { line in
            var cells = [""]
            var quoted = false
            for character in line {
                switch character {
                case "\"": quoted.toggle()
                case "," where !quoted: cells.append("")
                default: cells[cells.count - 1].append(character)
                }
            }
            return (cells[1], cells[5])
        }
    }

    /// `resolve`'s list: "held: Refused (GBP), week ending …".
    static func resolveList(_ stdout: String) -> Said {
        stdout.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^([a-z ]+): (\w+) \([A-Z]{3}\), week ending/).map {
                (String($0.output.2), String($0.output.1))
            }
        }
    }

    /// `status`'s reasons: "- Lost (GBP), week ending … is unconfirmed: …".
    static func statusReasons(_ stdout: String) -> Said {
        let words = WeekFate.allCases.map(\.word).sorted { $0.count > $1.count }
        return stdout.split(separator: "\n").compactMap { line in
            guard let reason = line.firstMatch(of: /^- (\w+) \([A-Z]{3}\), week ending \S+ is (.+)$/) else {
                return nil
            }
            let rest = String(reason.output.2)
            return words.first { rest.hasPrefix($0 + ":") || rest.hasPrefix($0 + ",") || rest.hasPrefix($0 + " ") }
                .map { (String(reason.output.1), $0) }
        }
    }

    /// Where each account stands after each real run.
    static let afterFirst: [String: WeekFate] = [
        "Moves": .transferred, "Quiet": .nothingToMove, "Kept": .heldBack, "Lost": .unconfirmed, "Refused": .held,
        "Loan": .skipped, "Broken": .failed, "Parts": .partlyTransferred,
    ]
    static let afterSecond: [String: WeekFate] = [
        "Moves": .alreadyTransferred, "Quiet": .nothingToMove, "Kept": .heldBack, "Lost": .transferred,
        "Refused": .held, "Loan": .skipped, "Broken": .failed, "Parts": .transferred,
    ]
    static let afterThird = afterSecond.merging([
        "Lost": .alreadyTransferred, "Refused": .abandoned, "Parts": .alreadyTransferred,
    ]) { $1 }

    @Test func everyOutputGivesEachStateItsOneWord() async throws {
        let home = try TemporaryDirectory()
        let (state, uids) = Self.bank()
        let (afterFirst, afterSecond, afterThird) = (Self.afterFirst, Self.afterSecond, Self.afterThird)
        let names = ["Moves", "Quiet", "Kept", "Lost", "Refused", "Loan", "Broken", "Parts"]
        let environment = binaryEnvironment(home, token: Self.token).merging(["ROUNDUP_SCHEDULER": "external"]) {
            $1
        }
        // Each account saves into its own Round-ups, chosen by uid, but Parts, which saves into two goals.
        let chosen = names.enumerated().filter { !["Loan", "Parts"].contains($0.element) }.map { index, name in
            "  \(uids[name]!): " + String(format: "90e00000-0000-4000-8000-%012d", index + 1) + "\n"
        }
        let config = try writeConfig(
            "goalWaitSeconds: 0\nretryAttempts: 1\nfeedSettleMinutes: 0\nminimumBalance:\n  EUR: 1000.00\n"
                + "goals:\n" + chosen.joined() + "saveInto:\n  fill: [Round-ups, Spare]\n", in: home)
        // The Markdown report each real run names on its last line.
        var written: [String] = []
        func report(of stdout: String) {
            if let line = stdout.split(separator: "\n").last(where: { $0.hasPrefix("Report: ") }) {
                written.append(String(line.dropFirst("Report: ".count)))
            }
        }
        // Every word found for each state, and every text a person reads.
        var found: [WeekFate: Set<String>] = [:]
        var texts: [String] = []
        func read(_ said: Said, as fates: [String: WeekFate], in text: String) {
            texts.append(text)
            for (account, word) in said {
                guard let fate = fates[account] else { continue }
                found[fate, default: []].insert(word)
            }
        }
        try await withEmulator(state) { server in
            let run = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--config", config]
            // Broken's feed answers 503 every time, so its week fails in every run.
            let broken = FaultRule(
                endpoints: [.settledFeed], pathContains: uids["Broken"]!, when: .always, faults: [.serverError(503)])
            await server.bank.injectFaults([broken])
            // A dry run first: the one account sure to be moved says so.
            let dry = try await roundup(run + ["--dry-run"], environment: environment)
            read(Self.summary(dry.stdout, names), as: ["Moves": .dryRun], in: dry.stdout + dry.stderr)

            // The first real run: the bank does not answer Lost's transfer.
            await server.bank.injectFaults([
                broken,
                FaultRule(
                    endpoints: [.addMoney], pathContains: uids["Lost"]!, when: .always, faults: [.serverError(503)]),
                FaultRule(endpoints: [.addMoney], pathContains: Self.spare, when: .always, faults: [.serverError(503)]),
            ])
            let first = try await roundup(run, environment: environment)
            report(of: first.stdout)
            #expect([69, 75].contains(first.status), "\(first.stdout)\(first.stderr)")
            let firstSaid = Self.summary(first.stdout, names)
            #expect(firstSaid.count == names.count, "\(first.stdout)")
            read(firstSaid, as: afterFirst, in: first.stdout + first.stderr)
            await server.bank.injectFaults([broken])

            // What the ledger holds now, as each reader gives it.
            let recorded = afterFirst.filter { $0.value != .skipped && $0.value != .failed }
            let history = try await roundup(["history", "--config", config], environment: environment)
            let historySaid = Self.history(history.stdout, names)
            #expect(historySaid.count == recorded.count, "\(history.stdout)")
            read(historySaid, as: recorded, in: history.stdout)
            let csv = try await roundup(["history", "--csv", "--config", config], environment: environment)
            #expect(Self.csv(csv.stdout).count == recorded.count, "\(csv.stdout)")
            read(Self.csv(csv.stdout), as: recorded, in: csv.stdout)
            let status = try await roundup(["status", "--config", config], environment: environment)
            let reasons = Self.statusReasons(status.stdout)
            #expect(reasons.map(\.account).sorted() == ["Lost", "Parts", "Refused"], "\(status.stdout)")
            read(reasons, as: recorded, in: status.stdout)
            let list = try await roundup(["resolve", "--config", config], environment: environment)
            #expect(
                Self.resolveList(list.stdout).map(\.account).sorted() == ["Lost", "Parts", "Refused"], "\(list.stdout)")
            read(Self.resolveList(list.stdout), as: recorded, in: list.stdout)

            // Again: the earlier run's states, and Lost's transfer sent once its feed shows none.
            let second = try await roundup(run, environment: environment)
            report(of: second.stdout)
            read(Self.summary(second.stdout, names), as: afterSecond, in: second.stdout + second.stderr)

            // A person gives Refused's week up; the next run and the history say so.
            let abandon = try await roundup(
                [
                    "resolve", "--account", uids["Refused"]!, "--end-date", Self.week, "--abandon", "not this week",
                    "--config", config,
                ],
                environment: environment)
            #expect(abandon.status == 0, "\(abandon.stdout)\(abandon.stderr)")
            texts.append(abandon.stdout + abandon.stderr)
            let third = try await roundup(run, environment: environment)
            report(of: third.stdout)
            read(Self.summary(third.stdout, names), as: afterThird, in: third.stdout + third.stderr)
            let settled = try await roundup(["history", "--config", config], environment: environment)
            read(
                Self.history(settled.stdout, names),
                as: [
                    "Moves": .transferred, "Quiet": .nothingToMove, "Kept": .heldBack, "Lost": .transferred,
                    "Refused": .abandoned, "Parts": .transferred,
                ],
                in: settled.stdout)
            #expect(await server.bank.transfers.count == 4, "Moves and Lost once each, and Parts' two transfers")
        }
        // Each run's Markdown report, read as that run left each account.
        #expect(written.count == 3, "\(written)")
        for (path, fates) in zip(written, [afterFirst, afterSecond, afterThird]) {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(Self.markdown(text).count == 2 * names.count, "\(text)")
            read(Self.markdown(text), as: fates, in: text)
        }
        // The help and the man page name each word, and no other.
        // Help is wrapped to the terminal: a word may be split over two lines.
        func unwrapped(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let help = try await roundup(["--help"], environment: environment)
        texts.append(help.stdout)
        for fate in WeekFate.allCases { #expect(unwrapped(help.stdout).contains(fate.word), "\(fate.word)") }
        let historyHelp = try await roundup(["history", "--help"], environment: environment)
        texts.append(historyHelp.stdout)
        for fate in WeekFate.recorded { #expect(unwrapped(historyHelp.stdout).contains(fate.word), "\(fate.word)") }
        for command in ["run", "resolve", "status"] {
            texts.append(try await roundup([command, "--help"], environment: environment).stdout)
        }
        let manual = try await roundup(["manual-sections"], environment: environment)
        texts.append(manual.stdout)
        let listed = manual.stdout.split(separator: "\n").drop { $0 != ".Sh WEEK STATES" }
            .drop { $0 != ".Bl -tag -width Ds" }.dropFirst().prefix { $0 != ".El" }
            .compactMap { $0.hasPrefix(".It ") ? String($0.dropFirst(4)) : nil }
        #expect(listed == WeekFate.allCases.map(\.word))

        // One word per state, and every state seen.
        for fate in WeekFate.allCases {
            #expect(found[fate] == [fate.word], "\(fate): \(found[fate] ?? [])")
        }
        // The words given up are nowhere a person reads, but where the JSON's words are named;
        // "pending" is the bank's word for a payment, never a week's.
        for text in texts {
            for line in text.split(separator: "\n") where line.contains("nothing to do") {
                #expect(line.contains("JSON"), "\(line)")
            }
            #expect(text.firstMatch(of: /(?i)\bpending[:)]|\(pending\b|week is pending/) == nil, "\(text)")
        }
    }
}
