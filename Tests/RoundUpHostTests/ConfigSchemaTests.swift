import Foundation
import RoundUp
import TestSupport
import Testing
import Yams

@testable import RoundUpHost

/// `schema/config-v1.schema.json`, the example config and the settings the code reads say
/// the same: the same keys, and the same words for the settings that take a few.
@Suite struct ConfigSchemaTests {
    let schema: JSONSchema
    let properties: [String: [String: Any]]

    init() throws {
        let path = repositoryRoot.appendingPathComponent("schema/config-v1.schema.json").path
        schema = try JSONSchema(file: path)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        properties = try #require((object as? [String: Any])?["properties"] as? [String: [String: Any]])
    }

    @Test func theSchemaNamesEverySettingTheCodeReads() {
        #expect(Set(properties.keys) == Set(ConfigFile.keys))
    }

    @Test func theWordsASettingTakesAgree() {
        func words(_ key: String, items: Bool = false) -> [String] {
            let schema = items ? properties[key]?["items"] as? [String: Any] : properties[key]
            return (schema?["enum"] as? [String] ?? []).sorted()
        }
        #expect(words("spending") == Spending.allCases.map(\.rawValue).sorted())
        #expect(words("nativeRoundUp") == NativeRoundUp.allCases.map(\.rawValue).sorted())
        #expect(words("belowMinimumBalance") == BelowMinimum.allCases.map(\.rawValue).sorted())
        #expect(words("accountTypes", items: true) == BankValues.accountTypes.sorted())
        #expect(words("excludeSources", items: true) == BankValues.sources.sorted())
        #expect(words("excludeSpendingCategories", items: true) == BankValues.spendingCategories.sorted())
        #expect(properties["roundTo"]?["enum"] as? [Int] == RoundUpPolicy.steps)
    }

    /// Every setting of the example, its comment marks taken away, follows the schema; a
    /// wrong word or an unknown key does not.
    @Test func theExampleWithEverySettingOnFollowsTheSchema() throws {
        let example = try String(
            contentsOf: repositoryRoot.appendingPathComponent("config/roundup.example.yaml"), encoding: .utf8)
        let keys = Set(properties.keys)
        var lines: [String] = []
        var inMapping = false
        for line in example.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.hasPrefix("# ") ? String(line.dropFirst(2)) : ""
            let key = String(text.prefix { $0 != ":" })
            if keys.contains(key) {
                lines.append(text)
                inMapping = text.hasSuffix(":")
            } else if inMapping, text.hasPrefix("  ") {
                lines.append(text)
            } else {
                inMapping = false
            }
        }
        let yaml = lines.joined(separator: "\n")
        let value = try #require(try Yams.load(yaml: yaml) as? [String: Any])
        #expect(Set(value.keys) == keys, "the example shows every setting")
        #expect(schema.problems(in: value) == [], "\(yaml)")
        var wrong = value
        wrong["spending"] = "card"
        wrong["misspelt"] = 1
        #expect(schema.problems(in: wrong).count == 2)
    }
}

/// Which bank a base URL is, however it is spelt: `check` and the sandbox hint rely on it.
@Suite struct BankOfBaseURLTests {
    @Test(arguments: [
        ("https://api.starlingbank.com", BankAddress.Bank.live), ("HTTPS://API.STARLINGBANK.COM/", .live),
        ("https://api.starlingbank.com:443", .live), ("https://API-sandbox.starlingbank.com", .sandbox),
        ("http://127.0.0.1:8080", .other), ("https://api.starlingbank.com.example.org", .other),
    ])
    func theBankIsKnownByItsHost(url: String, bank: BankAddress.Bank) {
        #expect(BankAddress.bank(of: url) == bank)
    }

    /// FOOD is as near FUEL as HOME and NONE: the hint is the first in alphabetical order, the same
    /// on every run, never whichever a set happens to give first.
    @Test func aTieBetweenHintsIsBrokenAlphabetically() {
        #expect(ConfigFile.closest(to: "FOOD", in: BankValues.spendingCategories) == "FUEL")
        #expect(ConfigFile.closest(to: "multiplyer", in: Set(ConfigFile.keys)) == "multiplier")
    }
}
