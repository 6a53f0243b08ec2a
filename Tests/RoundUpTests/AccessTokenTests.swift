import Testing

@testable import RoundUp

private let secret = "eyJhbGciOiJQUzI1NiJ9.payload-Part_42"

/// A token pasted with the usual slips around it is refused before it reaches the bank,
/// saying what to remove and where, never what the token is.
@Suite struct AccessTokenTests {
    @Test(arguments: [
        ("\"\(secret)\"", "has double quotes (\") around it: remove the one at its start"),
        ("'\(secret)'", "has single quotes (') around it: remove the one at its start"),
        ("  \"\(secret)\"\n", "has double quotes"),
        ("Bearer \(secret)", "begins with the word Bearer: remove it, and the space after it"),
        ("bearer:\(secret)", "begins with the word Bearer"),
        ("eyJhbGci OiJQUzI1NiJ9", "holds a space at character 9 of 21, which no access token has"),
        ("eyJhbGci\u{00A0}OiJQUzI1NiJ9", "holds a character outside ASCII (U+00A0) at character 9 of 21"),
        ("eyJ\thb\u{7}x", "holds a tab at character 4 of 8, and 1 more such character(s) after it"),
        ("line\r\nInjected: header", "holds a line break at character 5"),
        ("   \n", "is empty"),
    ])
    func aSlipIsNamedWithoutTheToken(pasted: String, said: String) throws {
        #expect(AccessToken(pasted) == nil)
        let problem = try #require(AccessToken.problem(with: pasted))
        #expect(problem.contains(said), "\(problem)")
        #expect(!problem.contains("payload"), "the token's own characters are never said: \(problem)")
        #expect(!problem.contains("OiJQ"), "\(problem)")
    }

    @Test func aTokenWithQuotesOnlyInsideOrAtOneEndIsTaken() throws {
        #expect(AccessToken.problem(with: secret) == nil)
        #expect(AccessToken.problem(with: "  \(secret)\n") == nil)
        #expect(
            AccessToken.problem(with: "\"\(secret)") == nil, "one quote is no pair: the bank says whether it is right")
        #expect(AccessToken.problem(with: "ab\"cd\"ef") == nil)
        #expect(AccessToken.problem(with: "\"") == nil, "a lone quote is a one-character token")
        #expect(try #require(AccessToken(" \(secret) ")).length == secret.utf8.count)
    }
}
