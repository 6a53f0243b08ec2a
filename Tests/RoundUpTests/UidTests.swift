import RoundUp
import Testing

@Suite struct UidTests {
    static let uuid = "aaaaaaaa-0000-4000-8000-00000000000a"

    @Test func aUidHasOneSpellingLowerCase() {
        #expect(Uid.canonical("AAAAAAAA-0000-4000-8000-00000000000A") == Self.uuid)
        #expect(Uid.canonical(Self.uuid) == Self.uuid)
        #expect(Uid.canonical("MiXeD-Ab") == "mixed-ab")
        #expect(Uid.canonical(nil as String?) == nil)
        #expect(Uid.canonical("" as String?) == "")
    }

    /// Only ASCII letters change: anything else in a uid is not a UUID's, and is left as it is.
    @Test func onlyASCIILettersChange() {
        #expect(Uid.canonical("ÄB-Ω") == "Äb-Ω")
        #expect(Uid.canonical("[Z]@`{") == "[z]@`{")
    }

    /// A UUID in either case, with white space around it (ASCII or Unicode), is the one
    /// UUID in lower case.
    @Test(arguments: [
        "aaaaaaaa-0000-4000-8000-00000000000a", "AAAAAAAA-0000-4000-8000-00000000000A",
        "AaAaAaAa-0000-4000-8000-00000000000A", " aaaaaaaa-0000-4000-8000-00000000000a\t",
        "\n\r\u{0B}\u{0C}aaaaaaaa-0000-4000-8000-00000000000a", "\u{A0}aaaaaaaa-0000-4000-8000-00000000000a\u{2003}",
        "\u{3000}AAAAAAAA-0000-4000-8000-00000000000A\u{2028}\u{85}",
    ])
    func aUUIDIsReadInLowerCase(text: String) {
        #expect(Uid.uuid(text) == Self.uuid)
        #expect(Uid.identity(text) == Self.uuid)
        #expect(Uid.unreadable(text, identity: Uid.identity(text)) == nil)
    }

    /// Anything else is not a uid: never a lookalike, an invisible character, a digit of
    /// another script, another of UUID's spellings or something close to one.
    @Test(arguments: [
        "", " ", "a", "caf\u{E9}-1", "cafe\u{301}-1", "aaaaaaaa-0000-4000-8000-00000000000a\u{200B}",
        "\u{FEFF}aaaaaaaa-0000-4000-8000-00000000000a", "\u{FF41}aaaaaaa-0000-4000-8000-00000000000a",
        "aaaaaaaa-0000-4000-8000-00000000000\u{FF11}", "aaaaaaaa-0000-4000-8000-0000000000٠a",
        "{aaaaaaaa-0000-4000-8000-00000000000a}", "aaaaaaaa00004000800000000000000a",
        "urn:uuid:aaaaaaaa-0000-4000-8000-00000000000a", "aaaaaaaa-0000-4000-8000-00000000000",
        "aaaaaaaa-0000-4000-8000-00000000000aa", "aaaaaaaa-0000-4000-8000_00000000000a",
        "gaaaaaaa-0000-4000-8000-00000000000a", "aaaaaaaa-0000-4000-8000-00000000000a x",
        "aaaaaaaa-0000-4000-8000\u{2010}00000000000a", "aaaaaaaa-0000-4000-8000-00000000000\u{0}",
        "aaaaaaaa-0000-4000-8000-00000000000a \u{200D}", "aaaaaaaa-0000-4000-8000-00000000000a \u{301}",
        "\u{301} aaaaaaaa-0000-4000-8000-00000000000a",
    ])
    func anythingElseIsNoUid(text: String) {
        #expect(Uid.uuid(text) == nil, "\(Uid.shown(text))")
        #expect(Uid.identity(text) == "")
        #expect(Uid.unreadable(text, identity: Uid.identity(text)) == Uid.shown(text))
    }

    /// Two texts Unicode calls equivalent are neither one uid nor two: each is none.
    @Test func canonicallyEquivalentTextsAreNotOneUid() {
        let composed = "caf\u{E9}-1"
        let decomposed = "cafe\u{301}-1"
        #expect(composed == decomposed, "Swift's own comparison calls them equal")
        #expect(Uid.identity(composed) == "" && Uid.identity(decomposed) == "")
        #expect(
            Uid.unreadable(composed, identity: "") != Uid.unreadable(decomposed, identity: ""),
            "named apart in the warning")
    }

    /// What was sent is named so that a person can read it and tell it from any other.
    @Test func aTextThatIsNotAUidIsShownEscaped() {
        #expect(Uid.shown("caf\u{E9}-1") == #""caf\u00e9-1""#)
        #expect(Uid.shown("cafe\u{301}-1") == #""cafe\u0301-1""#)
        #expect(Uid.shown("\u{1B}[2J\"\\") == #""\u001b[2J\u0022\u005c""#)
        #expect(Uid.shown("😀") == #""\u1f600""#)
        #expect(Uid.shown(String(repeating: "x", count: 100)) == "\"" + String(repeating: "x", count: 40) + "…\"")
        #expect(Uid.unreadable(nil, identity: "") == nil)
    }

    /// Either spelling of a week's account and goal gives the one transfer uid.
    @Test func theTransferUidDoesNotDependOnCase() {
        let week = LocalDate(iso: "2026-11-15")!
        #expect(
            TransferUID.transferUid(accountUid: "AAAA-1", goalUid: "BBBB-2", weekEnd: week)
                == TransferUID.transferUid(accountUid: Uid.canonical("AAAA-1"), goalUid: "bbbb-2", weekEnd: week))
    }
}
