import Testing

@testable import RoundUp

private let secret = "eyJhbGciOiJQUzI1NiJ9.payload-Part_42"

/// A token pasted with the usual slips around it is refused before it reaches the bank,
/// saying what to remove and where, never what the token is.
@Suite struct AccessTokenTests {
    @Test(arguments: [
        ("\"\(secret)\"", "has quotes (\" \") around it: remove the one at its start and the one at its end"),
        ("'\(secret)'", "has quotes (' ') around it: remove the one at its start"),
        ("  \"\(secret)\"\n", "has quotes (\" \")"),
        ("\u{201C}\(secret)\u{201D}", "has quotes (\u{201C} \u{201D}) around it"),
        ("`\(secret)`", "has quotes (` `) around it"),
        ("\"\"", "holds only a pair of quotes (\"\"): the token is missing"),
        ("\"\(secret)", "holds \" at character 1 of 37"),
        ("\(secret)'", "holds ' at character 37 of 37"),
        ("STARLING_ACCESS_TOKEN=\(secret)", "begins with STARLING_ACCESS_TOKEN=: it holds the token alone"),
        ("\(secret);", "holds ; at character 37"),
        ("Bearer \(secret)", "begins with the word Bearer: remove it, and what separates it from the token"),
        ("Bearer", "is only the word Bearer: the token itself is missing"),
        ("====", "holds only = signs: the token itself is missing"),
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

    @Test func aBearerTokensOwnCharactersAreTaken() throws {
        #expect(AccessToken.problem(with: secret) == nil)
        #expect(AccessToken.problem(with: "  \(secret)\n") == nil)
        #expect(AccessToken.problem(with: "abc+/~-._XYZ09==") == nil, "RFC 6750's b64token, padded")
        #expect(AccessToken.problem(with: "bearerABC123") == nil, "a token may begin with those letters")
        #expect(AccessToken.problem(with: "bearer-ABC123") == nil)
        #expect(AccessToken.problem(with: "ab=cd")?.contains("holds = at character 3") == true)
        #expect(try #require(AccessToken(" \(secret) ")).length == secret.utf8.count)
    }
}
