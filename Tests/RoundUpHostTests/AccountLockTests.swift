import Testing

@testable import RoundUpHost

/// The account lock's name: one per bank and account, however the bank's address is written.
@Suite struct AccountLockTests {
    @Test func oneBankHasOneSpelling() {
        let live = [
            "https://api.starlingbank.com", "https://API.starlingbank.com/", "https://api.starlingbank.com.",
            "https://api.starlingbank.com:443", " https://api.starlingbank.com",
        ]
        #expect(Set(live.map(AccountLock.bank(of:))) == ["api.starlingbank.com:443"])
        let local = ["http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080", "http://LOCALHOST.:8080"]
        #expect(Set(local.map(AccountLock.bank(of:))) == ["loopback:8080"])
        #expect(AccountLock.bank(of: "http://127.0.0.1:8081") != AccountLock.bank(of: "http://127.0.0.1:8080"))
        #expect(AccountLock.bank(of: "https://api-sandbox.starlingbank.com") == "api-sandbox.starlingbank.com:443")
    }

    @Test func theNameDependsOnTheBankAndTheAccountOnly() {
        let a = AccountLock.name(baseURL: "http://localhost:8080", accountUid: "AAAA-1")
        #expect(a == AccountLock.name(baseURL: "http://127.0.0.1:8080/", accountUid: "aaaa-1"))
        #expect(a != AccountLock.name(baseURL: "http://127.0.0.1:8080", accountUid: "aaaa-2"))
        #expect(a != AccountLock.name(baseURL: "http://127.0.0.1:9090", accountUid: "aaaa-1"))
        #expect(a.hasPrefix("roundup/account/") && a.utf8.count < 107)
    }

    /// Held by one, the name cannot be taken by another until it is let go.
    @Test func aHeldLockIsNotTakenTwice() async throws {
        let name = "roundup/test/\(UInt64.random(in: 0...UInt64.max))"
        let first = try await AccountLock.acquire(name, wait: .zero).get()
        let second = try await AccountLock.acquire(name, wait: .milliseconds(150))
        guard case .failure(let holder) = second else {
            Issue.record("the lock was taken twice")
            return
        }
        #expect(holder.pid != nil && holder.uid != nil)
        withExtendedLifetime(first) {}
        _ = consume first
        // Let go, it is free again: taken within a second's tries (on a loaded machine the
        // first try may come before the holder's socket is gone).
        #expect((try? await AccountLock.acquire(name, wait: .seconds(1)).get()) != nil)
    }
}
