import Foundation
import Testing

@testable import RoundUpJob
@testable import RoundUpReports
@testable import RoundUpVocabulary

/// The README repeats some of the code's lists for people; these keep them whole.
@Suite struct ReadmeListTests {
    let readme: String

    init() throws {
        readme = try String(
            contentsOf: ConfigSchemaTests.root.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// The README's table of a week's states is `WeekFate.table`, row for row, as the man
    /// page's is: each state's one word, what it means, and its words in the JSON.
    @Test func theTableOfStatesIsTheCodes() throws {
        let start = try #require(readme.range(of: "| state | what it means |")).upperBound
        // The rest of the header's line, then the line under it.
        let rows = readme[start...].split(separator: "\n").dropFirst(2).prefix { $0.hasPrefix("|") }
        #expect(
            rows.map(String.init)
                == WeekFate.table.map {
                    "| `\($0.word)` | \($0.meaning) | `\($0.reportJSON)` | \($0.historyJSON == "—" ? "—" : "`\($0.historyJSON)`") |"
                })
    }

    /// The README's table of `history --csv` columns names each column, in order.
    @Test func theCSVColumnsAreEachListedInOrder() throws {
        let start = try #require(readme.range(of: "| column | holds |")).upperBound
        let rows = readme[start...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("|") }
        let named = rows.compactMap { $0.firstMatch(of: /^\| `([^`]+)`/).map { String($0.output.1) } }
        #expect(named == History.csvColumns)
    }

    /// The status table in the README is `JobHealth.table`, row for row, as the man page's is.
    @Test func theStatusTableIsTheOneStatusJudgesBy() throws {
        let start = try #require(readme.range(of: "| what it finds | level |")).upperBound
        let rows = readme[start...].split(separator: "\n").dropFirst()
            .map { $0.trimmingCharacters(in: .whitespaces) }.prefix { $0.hasPrefix("|") }
        #expect(Array(rows) == JobHealth.table.map { "| \($0.finding) | \($0.level) |" })
    }

    /// "its outcome (`moved`, `nothing` or `failed`)": the words a report's file is named by.
    @Test func theOutcomesAReportIsFiledUnderAreEachNamed() throws {
        let start = try #require(readme.range(of: "its outcome (")).upperBound
        let named = readme[start...].prefix { $0 != ")" }.matches(of: /`([^`]+)`/).map { String($0.output.1) }
        #expect(named == ReportWriter.Outcome.allCases.map(\.rawValue))
    }

    /// The table of exit codes has a row for each code the process can end with.
    @Test func theTableOfExitCodesHasEachCode() {
        let table = readme.split(separator: "\n").drop { $0 != "| code | meaning |" }.dropFirst(2)
            .prefix { $0.hasPrefix("|") }
        let rows = table.compactMap { row in row.firstMatch(of: /^\| (\d+) \|/).flatMap { Int32($0.output.1) } }
        // Every code ExitStatus takes, found by asking it: it does not list its cases.
        #expect(rows == ExitStatus.allCases.map(\.rawValue))
    }
}
