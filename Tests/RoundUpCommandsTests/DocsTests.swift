import Foundation
import TestSupport
import Testing

@testable import RoundUpCommands
@testable import RoundUpHost
@testable import RoundUpReports
@testable import RoundUpVocabulary

/// The README is for savers; `docs/` holds the rest, one file per audience. These keep
/// the lists the docs repeat whole, the README short, and every heading that left it findable.
@Suite struct DocsTests {
    let readme: String
    let reports: String
    let operating: String

    static func read(_ path: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    }

    init() throws {
        readme = try Self.read("README.md")
        reports = try Self.read("docs/reports.md")
        operating = try Self.read("docs/operating.md")
    }

    /// docs/reports.md's table of a week's states is `WeekFate.table`, row for row, as the
    /// man page's is: each state's one word, what it means, and its words in the JSON.
    @Test func theTableOfStatesIsTheCodes() throws {
        let start = try #require(reports.range(of: "| state | what it means |")).upperBound
        // The rest of the header's line, then the line under it.
        let rows = reports[start...].split(separator: "\n").dropFirst(2).prefix { $0.hasPrefix("|") }
        #expect(
            rows.map(String.init)
                == WeekFate.table.map {
                    "| `\($0.word)` | \($0.meaning) | `\($0.reportJSON)` | \($0.historyJSON == "—" ? "—" : "`\($0.historyJSON)`") |"
                })
    }

    /// The README's short table of states gives each state's word, in the code's order.
    @Test func theReadmesStatesAreTheCodesWords() throws {
        let start = try #require(readme.range(of: "| word | means |")).upperBound
        let rows = readme[start...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("|") }
        let named = rows.compactMap { $0.firstMatch(of: /^\| `([^`]+)`/).map { String($0.output.1) } }
        #expect(named == WeekFate.allCases.map(\.word))
    }

    /// docs/reports.md's table of `history --csv` columns names each column, in order.
    @Test func theCSVColumnsAreEachListedInOrder() throws {
        let start = try #require(reports.range(of: "| column | holds |")).upperBound
        let rows = reports[start...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("|") }
        let named = rows.compactMap { $0.firstMatch(of: /^\| `([^`]+)`/).map { String($0.output.1) } }
        #expect(named == SavingsHistory.csvColumns)
    }

    /// The status table in docs/operating.md is `JobHealth.table`, row for row, as the man
    /// page's is.
    @Test func theStatusTableIsTheOneStatusJudgesBy() throws {
        let start = try #require(operating.range(of: "| what it finds | level |")).upperBound
        let rows = operating[start...].split(separator: "\n").dropFirst()
            .map { $0.trimmingCharacters(in: .whitespaces) }.prefix { $0.hasPrefix("|") }
        #expect(Array(rows) == JobHealth.table.map { "| \($0.finding) | \($0.level) |" })
    }

    /// "its outcome (`moved`, `nothing` or `failed`)": the words a report's file is named by.
    @Test func theOutcomesAReportIsFiledUnderAreEachNamed() throws {
        let start = try #require(reports.range(of: "its outcome (")).upperBound
        let named = reports[start...].prefix { $0 != ")" }.matches(of: /`([^`]+)`/).map { String($0.output.1) }
        #expect(named == ReportWriter.Outcome.allCases.map(\.rawValue))
    }

    /// The table of exit codes has a row for each code the process can end with.
    @Test func theTableOfExitCodesHasEachCode() {
        let table = reports.split(separator: "\n").drop { $0 != "| code | meaning |" }.dropFirst(2)
            .prefix { $0.hasPrefix("|") }
        let rows = table.compactMap { row in row.firstMatch(of: /^\| (\d+) \|/).flatMap { Int32($0.output.1) } }
        // Every code ExitStatus takes, found by asking it: it does not list its cases.
        #expect(rows == ExitStatus.allCases.map(\.rawValue))
    }

    /// A saver reads the README in one sitting: at most 3,000 words, as `wc -w` counts them.
    @Test func theReadmeIsShort() {
        let words = readme.split(whereSeparator: \.isWhitespace).count
        #expect(words <= 3000, "the README has \(words) words; move the detail to docs/")
    }

    /// Every heading that left the README when docs/ began is a heading in docs/, so a
    /// reader who knew it finds it.
    @Test func theHeadingsThatLeftTheReadmeAreInDocs() throws {
        let left = [
            "Which week, which transactions", "The goal", "Policies",
            "Safe to save: what the bank has scheduled before payday", "Configuration",
            "Output, reports and exit codes", "Each week's state, in one word", "Your savings at a glance",
            "Exactly once, whatever fails", "The figures, and the command that reproduces them", "Catching up",
            "Staying inside the bank's rate limit", "Scheduling", "Being told",
            "Operating: what you see, and what you do", "Packages", "Speed", "The emulator", "Design",
            "Where to change what",
        ]
        let docs = try FileManager.default.contentsOfDirectory(
            atPath: repositoryRoot.appendingPathComponent("docs").path
        ).filter { $0.hasSuffix(".md") }
        let headings = try docs.flatMap { name in
            try Self.read("docs/" + name).split(separator: "\n").compactMap { line in
                line.firstMatch(of: /^#{1,4} (.+)$/).map { String($0.output.1) }
            }
        }
        for heading in left { #expect(headings.contains(heading), "\(heading)") }
    }

    /// Every link from the README or a doc to a file of the project finds it, and its
    /// `#anchor` a heading there (as GitHub makes anchors of headings).
    @Test func everyLinkBetweenTheDocsLeadsSomewhere() throws {
        let docs = try FileManager.default.contentsOfDirectory(
            atPath: repositoryRoot.appendingPathComponent("docs").path
        ).filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        for page in ["README.md"] + docs {
            let text = try Self.read(page)
            let directory = (page as NSString).deletingLastPathComponent
            for link in text.matches(of: /\]\(([^)#\s]*)(#[^)\s]*)?\)/) {
                let target = String(link.output.1)
                guard !target.hasPrefix("http") else { continue }
                let path = target.isEmpty ? page : (directory.isEmpty ? target : directory + "/" + target)
                let exists = FileManager.default.fileExists(
                    atPath: repositoryRoot.appendingPathComponent(path).path)
                #expect(exists, "\(page): \(target)")
                guard exists, let anchor = link.output.2.map({ String($0.dropFirst()) }), path.hasSuffix(".md") else {
                    continue
                }
                let anchors = try Self.read(path).split(separator: "\n").compactMap { line in
                    line.firstMatch(of: /^#{1,6} (.+)$/).map { Self.anchor(String($0.output.1)) }
                }
                #expect(anchors.contains(anchor), "\(page): \(target)#\(anchor)")
            }
        }
    }

    /// A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to dashes.
    static func anchor(_ heading: String) -> String {
        String(
            heading.lowercased().compactMap { character -> Character? in
                if character == " " { return "-" }
                if character.isLetter || character.isNumber || character == "-" || character == "_" { return character }
                return nil
            })
    }
}
