import Foundation
import RoundUp
import StarlingAPI
import TestSupport
import Testing

@testable import RoundUpHost
@testable import RoundUpReports
@testable import RoundUpVocabulary
@testable import RoundUpWeek
@testable import RoundUpWeeklyRun

/// `schema/report-v1.schema.json` is written by hand; these hold it to the report's
/// writer and to the lists the code keeps: each object's properties are the keys it is
/// written with when every field is set, `required` the keys it is written with when none
/// is, and every list of words or codes is the code's own.
@Suite struct ReportSchemaTests {
    let schema: JSONSchema
    let root: [String: Any]

    init() throws {
        let path = repositoryRoot.appendingPathComponent("schema/report-v1.schema.json").path
        schema = try JSONSchema(file: path)
        root = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    /// The schema of one of the report's objects: `run`, `week`, `account`, `transaction` or `goal`.
    func object(_ name: String) -> [String: Any] {
        let definitions = root["$defs"] as? [String: Any] ?? [:]
        let account = definitions["account"] as? [String: Any] ?? [:]
        let accountProperties = account["properties"] as? [String: Any] ?? [:]
        switch name {
        case "run": return root
        case "goal": return accountProperties["goal"] as? [String: Any] ?? [:]
        default: return definitions[name] as? [String: Any] ?? [:]
        }
    }

    /// The schema of `property` of the report's object `name`.
    func property(_ property: String, of name: String) -> [String: Any] {
        (object(name)["properties"] as? [String: Any])?[property] as? [String: Any] ?? [:]
    }

    /// The report's JSON, as its writer writes it, read back.
    static func written(_ report: WeekReport) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(report.json())) as? [String: Any])
    }

    /// Each of the report's objects as the writer writes it, from `report`: the run, its week,
    /// its first account, that account's first transaction and its goal.
    static func objects(of report: WeekReport) throws -> [String: [String: Any]] {
        let run = try written(report)
        let first = try #require((run["accounts"] as? [[String: Any]])?.first)
        return [
            "run": run, "week": try #require(run["week"] as? [String: Any]), "account": first,
            "transaction": try #require((first["transactions"] as? [[String: Any]])?.first),
            "goal": try #require(first["goal"] as? [String: Any]),
        ]
    }

    /// Each object with every field set (`full`), and with only the fields it cannot be
    /// without (`sparse`: its first account has a bare transaction and goal, its second is a
    /// bare account; `bare`, a run with no account).
    static func fullAndBare() throws -> [(name: String, full: [String: Any], bare: [String: Any])] {
        let full = try objects(of: ReportFixtures.full)
        var bare = try objects(of: ReportFixtures.sparse)
        bare["run"] = try written(ReportFixtures.bare)
        bare["account"] = try #require((try written(ReportFixtures.sparse)["accounts"] as? [[String: Any]])?.last)
        return ["run", "week", "account", "transaction", "goal"].map { ($0, full[$0] ?? [:], bare[$0] ?? [:]) }
    }

    @Test func eachObjectsPropertiesAreTheKeysItIsWrittenWith() throws {
        #expect(
            ReportFixtures.unset(in: ReportFixtures.full) == ["report.accounts[0].legs", "report.accounts[1].legs"])
        for (name, full, _) in try Self.fullAndBare() {
            let properties = try #require(object(name)["properties"] as? [String: Any], "\(name)")
            #expect(Set(properties.keys) == Set(full.keys), "\(name)")
            #expect(object(name)["additionalProperties"] as? Bool == false, "\(name) is closed")
        }
    }

    @Test func requiredListsTheKeysAlwaysPresent() throws {
        let sparse = ReportFixtures.sparse
        let bareValues: [Any] = [
            ReportFixtures.bare, sparse.accounts[1], sparse.accounts[0].transactions[0], sparse.accounts[0].goal!,
        ]
        for value in bareValues { #expect(ReportFixtures.set(in: value) == [], "\(type(of: value)) is bare") }
        for (name, _, bare) in try Self.fullAndBare() {
            let required = try #require(object(name)["required"] as? [String], "\(name)")
            #expect(Set(required) == Set(bare.keys), "\(name)")
            #expect(required.count == Set(required).count, "\(name) lists a key twice")
        }
    }

    @Test func theReportsMadeByHandFollowTheSchema() {
        for report in [ReportFixtures.full, ReportFixtures.bare, ReportFixtures.sparse] {
            #expect(schema.problems(inJSON: String(decoding: report.json(), as: UTF8.self)) == [])
        }
    }

    @Test func theStatusWordsAreAccountStatusesEachExplained() throws {
        let status = property("status", of: "account")
        let words = try #require(status["enum"] as? [String])
        // Every fate has one of those words, and each word is some fate's.
        #expect(words.sorted() == Set(WeekFate.allCases.map(\.reportJSONWord)).sorted())
        // The description explains each word in turn: "transferred: …; already transferred: …".
        let explained = (status["description"] as? String ?? "").split(separator: "; ").map {
            String($0.prefix { $0 != ":" })
        }
        #expect(explained.sorted() == words.sorted())
    }

    /// `schema/history-v1.schema.json` lists the words the history gives a recorded week:
    /// one for each fate the ledger can record, and the ledger's states each have one.
    @Test func theHistorysStatusWordsAreTheRecordedFates() throws {
        let url = repositoryRoot.appendingPathComponent("schema/history-v1.schema.json")
        let schema = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let status = try #require(Self.find("status", in: schema))
        let words = try #require(status["enum"] as? [String])
        #expect(words == WeekFate.recorded.compactMap(\.historyJSONWord))
        // The history's JSON says what its table and CSV say: the saver's word.
        for fate in WeekFate.recorded { #expect(fate.historyJSONWord == fate.word) }
        for state in WeekState.allCases {
            for note in [nil, "held back 1.00 GBP"] {
                var entry = AccountWeek(
                    accountUid: "a", weekEnd: LocalDate(iso: "2026-11-15")!, status: state, currency: "GBP",
                    minorUnits: 100)
                entry.note = note
                #expect(WeekFate.recorded.contains(WeekFate(entry)), "\(state)")
            }
        }
    }

    /// The first object under the key `name`, anywhere in `json`.
    static func find(_ name: String, in json: Any) -> [String: Any]? {
        if let object = json as? [String: Any] {
            if let found = object[name] as? [String: Any] { return found }
            return object.values.lazy.compactMap { find(name, in: $0) }.first
        }
        return (json as? [Any])?.lazy.compactMap { find(name, in: $0) }.first
    }

    /// A payment's `source` is one of the saver's words for it, the schema's and the code's alike.
    @Test func thePaymentSourcesAreTheCodesWords() throws {
        let source = property("source", of: "transaction")
        #expect((source["enum"] as? [String]) == PaymentSource.allCases.map(\.rawValue))
        #expect(PaymentSource(source: "DIRECT_DEBIT", subType: nil) == .directDebit)
        #expect(PaymentSource(source: "MASTER_CARD", subType: "ATM") == .cashWithdrawal)
        #expect(PaymentSource(source: "MASTER_CARD", subType: "CONTACTLESS") == .card)
        #expect(PaymentSource(source: "SOMETHING_NEW", subType: nil) == .other)
    }

    @Test func theLeftOutReasonsAreTheExclusionCodes() throws {
        let leftOut = property("leftOut", of: "account")
        let names = try #require((leftOut["propertyNames"] as? [String: Any])?["enum"] as? [String])
        #expect(names.sorted() == Exclusion.allCases.map(\.rawValue).sorted())
    }

    /// Every exit status: the one list of them, 74 included, although a report is written
    /// before the output whose failure ends a process with it.
    @Test func theExitCodesAreTheExitStatusesAReportCanEndWith() throws {
        let exitCode = try #require((root["$defs"] as? [String: Any])?["exitCode"] as? [String: Any])
        let codes = try #require(exitCode["enum"] as? [Int])
        // Every code ExitStatus takes, found by asking it: it does not list its cases.
        let statuses = ExitStatus.allCases
        #expect(codes.sorted() == statuses.map { Int($0.rawValue) })
        // "sysexits: 0 ok, 64 usage, …": each code said in words.
        let description = exitCode["description"] as? String ?? ""
        #expect(description.matches(of: /\d+/).compactMap { Int($0.output) } == codes)
    }

    @Test func stepsMultipliersVersionAndAccountTypesAreTheCodes() throws {
        let roundTo = property("roundTo", of: "account")
        // A step of 1 is left out of the report.
        #expect(roundTo["enum"] as? [Int] == RoundUpPolicy.steps.filter { $0 != 1 })
        let multiplier = property("multiplier", of: "account")
        #expect(multiplier["minimum"] as? Int == RoundUpPolicy.multipliers.lowerBound)
        #expect(multiplier["maximum"] as? Int == RoundUpPolicy.multipliers.upperBound)
        #expect(property("schemaVersion", of: "run")["const"] as? Int == ReportFixtures.bare.schemaVersion)
        let accountType = property("accountType", of: "account")["description"] as? String ?? ""
        for type in BankValues.accountTypes { #expect(accountType.contains(type), "\(type)") }
    }

    /// The words for the bank's own round-up are written where the report is built; the
    /// schema lists them and the Markdown looks for the first.
    @Test func theNativeRoundUpWordsAreTheOnesTheReportIsBuiltWith() throws {
        let account = try JSONDecoder().decode(
            BankAccount.self,
            from: Data(
                #"{"accountUid":"a0000000-0000-4000-8000-0000000000a1","defaultCategory":"ca7e0000-0000-4000-8000-00000000000c","currency":"GBP","name":"Personal"}"#
                    .utf8))
        func built(_ state: NativeRoundUpState) -> AccountReport {
            AccountReport(
                account: account, outcome: .nothingToMove("nothing"), findings: AccountFindings(nativeRoundUp: state))
        }
        let states: [NativeRoundUpState] = [.active, .inactive, .unknown]
        let words = try #require(property("nativeRoundUp", of: "account")["enum"] as? [String])
        #expect(words.sorted() == states.map(built).compactMap(\.nativeRoundUp).sorted())
        for state in states {
            var report = ReportFixtures.bare
            report.accounts = [built(state)]
            #expect(report.markdown.contains("Starling's own round-up is on too") == (state == .active))
            #expect(
                report.markdown.contains("Starling did not say whether its own round-up is on") == (state == .unknown))
        }
    }
}
