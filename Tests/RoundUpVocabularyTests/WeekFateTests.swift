import RoundUp
import Testing

@testable import RoundUpVocabulary

/// The words a week's fate and a run's exit are given, without any output: one word per
/// fate for a person, the published words for the JSON documents, and the exit status a
/// run of several outcomes ends with.
@Suite struct WeekFateTests {
    @Test func everyFateHasAWordOfItsOwnAndSaysWhatItMeans() {
        let words = WeekFate.allCases.map(\.word)
        #expect(Set(words).count == words.count, "two fates share a word: \(words)")
        for fate in WeekFate.allCases {
            #expect(!fate.meaning.isEmpty, "\(fate) has no meaning")
            #expect(fate.meaning != fate.word)
        }
        #expect(WeekFate.table.map(\.word) == words)
    }

    @Test func theJSONDocumentsKeepTheWordsTheirFirstSchemaPublished() {
        #expect(WeekFate.heldBack.reportJSONWord == "nothing to do")
        #expect(WeekFate.nothingToMove.reportJSONWord == "nothing to do")
        #expect(WeekFate.unconfirmed.reportJSONWord == "failed")
        #expect(WeekFate.heldBack.historyJSONWord == "held back")
        // What only a run reports never reaches the history.
        for fate in [WeekFate.alreadyTransferred, .dryRun, .failed, .skipped] {
            #expect(fate.historyJSONWord == nil)
            #expect(!WeekFate.recorded.contains(fate))
        }
        for fate in WeekFate.recorded { #expect(fate.historyJSONWord != nil) }
    }

    @Test func aRecordedWeekStandsWhereItsStateAndNoteSay() {
        func fate(_ status: WeekState, note: String? = nil) -> WeekFate {
            WeekFate(
                AccountWeek(
                    accountUid: "acc", weekEnd: LocalDate(iso: "2026-11-15")!, status: status, currency: "GBP",
                    minorUnits: 0, note: note))
        }
        #expect(fate(.done) == .transferred)
        #expect(fate(.nothing) == .nothingToMove)
        #expect(fate(.nothing, note: "kept by the minimum balance") == .heldBack)
        #expect(fate(.pending) == .unconfirmed)
        #expect(fate(.held) == .held)
        #expect(fate(.abandoned) == .abandoned)
        #expect(Set(WeekState.allCases.map { fate($0) }).isSubset(of: Set(WeekFate.recorded)))
    }

    @Test func everyFateIsOneOfTheThreeEndsASaverSees() {
        #expect(WeekFate.allCases.filter { $0.kind == .moved } == [.transferred, .alreadyTransferred])
        #expect(
            WeekFate.allCases.filter { $0.kind == .failedOrWaiting } == [
                .unconfirmed, .partlyTransferred, .failed, .held,
            ])
    }

    @Test func aRunOfSeveralOutcomesEndsWithOneThatMayPassFirst() {
        #expect(ExitStatus.overall([]) == .ok)
        #expect(ExitStatus.overall([.ok, .ok]) == .ok)
        #expect(ExitStatus.overall([.ok, .configuration, .dataError]) == .configuration)
        // A scheduler runs the job again for a failure that may pass, even beside a held week.
        #expect(ExitStatus.overall([.configuration, .temporaryFailure]) == .temporaryFailure)
        #expect(ExitStatus.overall([.dataError, .unavailable, .temporaryFailure]) == .unavailable)
        #expect(ExitStatus.allCases.filter(\.mayPass) == [.unavailable, .temporaryFailure])
    }

    @Test func aDiagnosticIsALineOfRoundupsOwn() {
        let said = Diagnostic(.failure, "the ledger is damaged")
        #expect(said.line == "roundup: the ledger is damaged")
        #expect(said.audience == .reader)
        #expect(CommandFailure(.usage, "bad flag").status == .usage)
    }
}
