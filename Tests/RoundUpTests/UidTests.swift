import RoundUp
import Testing

@Suite struct UidTests {
    @Test func aUidHasOneSpellingLowerCase() {
        #expect(Uid.canonical("AAAAAAAA-0000-4000-8000-00000000000A") == "aaaaaaaa-0000-4000-8000-00000000000a")
        #expect(Uid.canonical("aaaaaaaa-0000-4000-8000-00000000000a") == "aaaaaaaa-0000-4000-8000-00000000000a")
        #expect(Uid.canonical("MiXeD-Ab") == "mixed-ab")
        #expect(Uid.canonical(nil as String?) == nil)
        #expect(Uid.canonical("" as String?) == "")
    }

    /// Only ASCII letters change: anything else in a uid is not a UUID's, and is left as it is.
    @Test func onlyASCIILettersChange() {
        #expect(Uid.canonical("ÄB-Ω") == "Äb-Ω")
        #expect(Uid.canonical("[Z]@`{") == "[z]@`{")
    }

    /// Either spelling of a week's account and goal gives the one transfer uid.
    @Test func theTransferUidDoesNotDependOnCase() {
        let week = LocalDate(iso: "2026-11-15")!
        #expect(
            TransferUID.transferUid(accountUid: "AAAA-1", goalUid: "BBBB-2", weekEnd: week)
                == TransferUID.transferUid(accountUid: Uid.canonical("AAAA-1"), goalUid: "bbbb-2", weekEnd: week))
    }
}
