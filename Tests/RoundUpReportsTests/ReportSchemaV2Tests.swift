import Foundation
import RoundUp
import TestSupport
import Testing

@testable import RoundUpReports
@testable import RoundUpVocabulary

/// `schema/report-v2.schema.json`, the report of a week into several goals: schema 1 with
/// each such account's `legs` and the status `partly transferred`, and nothing else; a report
/// without legs is still written as schema 1, so that its readers keep working.
@Suite struct ReportSchemaV2Tests {
    let one: [String: Any]
    let two: [String: Any]
    let schema: JSONSchema
    let schemaOne: JSONSchema

    init() throws {
        func read(_ name: String) throws -> [String: Any] {
            let url = repositoryRoot.appendingPathComponent("schema/\(name)")
            return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        }
        one = try read("report-v1.schema.json")
        two = try read("report-v2.schema.json")
        schema = try JSONSchema(file: repositoryRoot.appendingPathComponent("schema/report-v2.schema.json").path)
        schemaOne = try JSONSchema(file: repositoryRoot.appendingPathComponent("schema/report-v1.schema.json").path)
    }

    static func account(_ schema: [String: Any]) -> [String: Any] {
        ((schema["$defs"] as? [String: Any])?["account"] as? [String: Any])?["properties"] as? [String: Any] ?? [:]
    }

    static func written(_ report: WeekReport) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(report.json())) as? [String: Any])
    }

    @Test func aReportWithoutLegsIsSchemaOneAndOneWithLegsSchemaTwo() throws {
        #expect(try Self.written(ReportFixtures.full)["schemaVersion"] as? Int == 1)
        let withLegs = String(decoding: ReportFixtures.fullWithLegs.json(), as: UTF8.self)
        #expect(try Self.written(ReportFixtures.fullWithLegs)["schemaVersion"] as? Int == 2)
        #expect(schema.problems(inJSON: withLegs) == [])
        #expect(!schemaOne.problems(inJSON: withLegs).isEmpty, "schema 1 does not take legs")
        var oneLeg = ReportFixtures.sparse
        oneLeg.accounts[0].legs = [ReportFixtures.bareLeg]
        #expect(schema.problems(inJSON: String(decoding: oneLeg.json(), as: UTF8.self)) == [])
    }

    /// Schema 2 is schema 1 but for what it says it adds: its version, its words, and legs.
    @Test func schemaTwoIsSchemaOneWithLegs() throws {
        var accountOne = Self.account(one)
        var accountTwo = Self.account(two)
        #expect(Set(accountTwo.keys) == Set(accountOne.keys).union(["legs"]))
        let legs = try #require(accountTwo.removeValue(forKey: "legs") as? [String: Any])
        let statusOne = try #require(accountOne.removeValue(forKey: "status") as? [String: Any])
        let statusTwo = try #require(accountTwo.removeValue(forKey: "status") as? [String: Any])
        #expect(NSDictionary(dictionary: accountOne) == NSDictionary(dictionary: accountTwo))
        let wordsOne = try #require(statusOne["enum"] as? [String])
        let wordsTwo = try #require(statusTwo["enum"] as? [String])
        #expect(Set(wordsTwo) == Set(wordsOne).union(["partly transferred"]))
        #expect(Set(wordsTwo) == Set(WeekFate.allCases.map(\.reportJSONWordV2)))
        let explained = (statusTwo["description"] as? String ?? "").split(separator: "; ").map {
            String($0.prefix { $0 != ":" })
        }
        #expect(explained.sorted() == wordsTwo.sorted())
        // A leg's goal is described as a week's goal is.
        let item = try #require(legs["items"] as? [String: Any])
        let properties = try #require(item["properties"] as? [String: Any])
        #expect(
            NSDictionary(dictionary: properties["goal"] as? [String: Any] ?? [:])
                == NSDictionary(dictionary: accountOne["goal"] as? [String: Any] ?? [:]))
        // Its properties are the keys a full leg is written with, and required those of a bare one.
        let full = try #require(
            ((try Self.written(ReportFixtures.fullWithLegs)["accounts"] as? [[String: Any]])?.first?["legs"]
                as? [[String: Any]])?.first)
        #expect(Set(properties.keys) == Set(full.keys))
        var bare = ReportFixtures.sparse
        bare.accounts[0].legs = [ReportFixtures.bareLeg]
        let written = try #require(
            ((try Self.written(bare)["accounts"] as? [[String: Any]])?.first?["legs"] as? [[String: Any]])?.first)
        #expect(Set(item["required"] as? [String] ?? []) == Set(written.keys))
        // A leg's status is one of the words a transfer's state has.
        let legStatus = (properties["status"] as? [String: Any])?["enum"] as? [String]
        #expect(Set(legStatus ?? []) == Set(WeekState.allCases.map(\.transferWord)))
        // Everything outside the account is schema 1's but the version.
        var runOne = one
        var runTwo = two
        for key in ["$defs", "$id", "title", "description", "properties"] {
            runOne.removeValue(forKey: key)
            runTwo.removeValue(forKey: key)
        }
        #expect(NSDictionary(dictionary: runOne) == NSDictionary(dictionary: runTwo))
        #expect(((two["properties"] as? [String: Any])?["schemaVersion"] as? [String: Any])?["const"] as? Int == 2)
    }
}
