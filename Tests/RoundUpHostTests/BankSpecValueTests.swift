import Foundation
import TestSupport
import Testing

@testable import RoundUpHost

/// The words a config may name for account types, sources and spending categories are the
/// bank's own, as its OpenAPI description lists them: every one it defines is accepted,
/// and nothing it does not define is.
@Suite struct BankSpecValueTests {
    /// The bank's OpenAPI description, kept beside the project rather than in it.
    static let specPath = repositoryRoot.deletingLastPathComponent().appendingPathComponent(
        "shared/starling/openapi.json"
    )
    .path

    static var specIsThere: Bool { FileManager.default.fileExists(atPath: specPath) }

    /// The enum of `property` in the spec's schema `schema`.
    static func specEnum(_ schema: String, _ property: String) throws -> Set<String> {
        let data = try Data(contentsOf: URL(fileURLWithPath: specPath))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let schemas = try #require((root["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let properties = try #require((schemas[schema] as? [String: Any])?["properties"] as? [String: Any])
        let values = try #require((properties[property] as? [String: Any])?["enum"] as? [String])
        return Set(values)
    }

    @Test(
        .enabled(
            if: specIsThere, "the bank's OpenAPI description (../shared/starling/openapi.json) is not beside this clone"
        ))
    func theConfigsValueListsAreTheBanks() throws {
        #expect(BankValues.accountTypes == (try Self.specEnum("AccountV2", "accountType")))
        #expect(BankValues.sources == (try Self.specEnum("FeedItem", "source")))
        #expect(BankValues.spendingCategories == (try Self.specEnum("FeedItem", "spendingCategory")))
    }

    /// A value the spec added after the first lists were written is accepted in a config.
    @Test func valuesTheBankAddedAreAccepted() throws {
        let settings = try Settings.resolve(
            flags: SettingFlags(), environment: ["HOME": "/home/saver"],
            locations: Locations(environment: ["HOME": "/home/saver"]),
            configText: """
                accountTypes: [PRIMARY, SAVINGS]
                excludeSources: [MISSED_PAYMENT_FEE, INTEREST_V2_PAYMENT]
                excludeSpendingCategories: [CLOTHES, PERSONAL_CARE]
                """, configPath: "config.yaml")
        #expect(settings.rules.accountTypes == ["PRIMARY", "SAVINGS"])
        #expect(settings.rules.selection.excludedSpendingCategories == ["CLOTHES", "PERSONAL_CARE"])
    }
}
