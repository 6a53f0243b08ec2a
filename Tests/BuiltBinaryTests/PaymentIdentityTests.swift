import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// Each payment saved once by its identity, whatever the window, the ledger or the person
/// that comes later: a feed item uid in two spellings, a bank that starts writing uids in
/// capitals, a payment settled again two weeks later, a second ledger's transfer in either
/// order, `resolve` while the week's transfer is still upcoming, and a change of
/// `weekEndsOn`. Each runs the built binary against the emulator, which does not
/// deduplicate transfers, and prints a line for `scripts/robustness`.
@Suite struct PaymentIdentityTests {
    static let roundUps = "90c00000-0000-4000-8000-0000000000f1"

    /// A bank with one GBP account and its goal "Round-ups".
    static func bank(token: String) -> (TestBank, String) {
        var bank = TestBank(token: token)
        let gbp = bank.account("GBP", name: "Personal")
        bank.goal(gbp, name: "Round-ups", uid: roundUps)
        return (bank, gbp)
    }

    /// 10:00 UTC on `date`.
    static func on(_ date: String, hour: Int = 10) -> Instant {
        Instant(iso8601: "\(date)T\(hour < 10 ? "0" : "")\(hour):00:00Z")!
    }

    static func run(_ server: EmulatorServer, _ home: TemporaryDirectory, _ arguments: [String]) async throws
        -> Execution
    {
        try await roundup(
            ["run", "--api-base-url", server.baseURL] + arguments,
            environment: binaryEnvironment(home, token: await server.bank.state.token))
    }

    static func resolve(_ server: EmulatorServer, _ home: TemporaryDirectory, _ arguments: [String]) async throws
        -> Execution
    {
        try await roundup(
            ["resolve", "--api-base-url", server.baseURL] + arguments,
            environment: binaryEnvironment(home, token: await server.bank.state.token))
    }

    static func account(in execution: Execution) throws -> [String: Any] {
        let report = try JSONSerialization.jsonObject(with: Data(execution.stdout.utf8)) as? [String: Any]
        return try #require((report?["accounts"] as? [[String: Any]])?.first, "\(execution.stdout)")
    }

    static func moved(_ server: EmulatorServer) async -> [Int64] {
        await server.bank.transfers.map(\.amount.minorUnits)
    }

    /// Moves the transfers' feed items to `instant`, as the bank would show a transfer made then.
    static func stampTransfers(_ server: EmulatorServer, at instant: Instant) async {
        await server.bank.update { state in
            for (account, items) in state.feeds {
                for index in items.indices where items[index].source == "INTERNAL_TRANSFER" {
                    state.feeds[account]![index].transactionTime = instant.iso8601
                    state.feeds[account]![index].settlementTime = instant.iso8601
                }
            }
        }
    }

    // MARK: - A payment is its uid, in one spelling

    /// One settled answer gives a payment in lower case, in capitals and padded with spaces,
    /// and an item with no uid at all: the payment counts once, the item without an identity
    /// not at all, with its reason and a warning.
    @Test func onePaymentInThreeSpellingsCountsOnce() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "spellings")
        let at = Self.on("2026-11-12")
        bank.spend(gbp, 1_50, settled: at)
        bank.spend(gbp, 2_21, settled: at)
        let uid = bank.state.feeds[gbp]![0].feedItemUid
        bank.spend(gbp, 1_50, settled: at) { $0.feedItemUid = uid.uppercased() }
        bank.spend(gbp, 1_50, settled: at) { $0.feedItemUid = " \(uid) " }
        bank.spend(gbp, 7_10, settled: at) { $0.feedItemUid = "   " }
        // A uid of spaces is off the bank's description on purpose.
        try await withEmulator(bank.state, contract: .requestsOnly) { server in
            let result = try await Self.run(server, home, ["--end-date", "2026-11-15", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            let account = try Self.account(in: result)
            let leftOut = try #require(account["leftOut"] as? [String: Any], "\(account)")
            #expect(leftOut["repeated"] as? Int == 2, "\(leftOut)")
            #expect(leftOut["no-identity"] as? Int == 1, "\(leftOut)")
            #expect(
                result.stderr.contains("1 payment(s) in the bank's answer have no feed item uid"), "\(result.stderr)")
            let moved = await Self.moved(server)
            #expect(moved == [1_29])
            robustnessLine(
                "a payment in lower case, in capitals and padded with spaces in one answer, and one without a uid",
                "counted once (repeated: 2), the one without a uid left out as no-identity: 1.29 moved",
                moneyExactlyOnce: moved == [1_29])
        }
    }

    /// Uids are UUIDs, compared as such: two payments whose uids Unicode calls equivalent
    /// (`café` with one scalar and with two) are not one repeated payment, and neither is
    /// a payment with no identity at all: both are left out as `no-identity`, with a
    /// warning naming each as it was sent. A UUID with a zero-width space, a byte-order
    /// mark or a fullwidth digit in it is no UUID either, while the same UUID with white
    /// space around it is the one payment.
    @Test func uidsThatAreNotUUIDsAreNoIdentity() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "not-uuids")
        bank.spend(gbp, 1_90, settled: Self.on("2026-11-12")) { $0.feedItemUid = "caf\u{e9}-1" }
        bank.spend(gbp, 1_90, settled: Self.on("2026-11-12")) { $0.feedItemUid = "cafe\u{301}-1" }
        let real = namedUid("the one real payment")
        bank.spend(gbp, 2_21, settled: Self.on("2026-11-19")) { $0.feedItemUid = real }
        bank.spend(gbp, 2_21, settled: Self.on("2026-11-19")) { $0.feedItemUid = "\u{2003}\(real.uppercased())\n" }
        bank.spend(gbp, 2_21, settled: Self.on("2026-11-19")) { $0.feedItemUid = real + "\u{200b}" }
        bank.spend(gbp, 2_21, settled: Self.on("2026-11-19")) { $0.feedItemUid = "\u{feff}" + real }
        let fullwidth = "\u{ff11}" + real.dropFirst()
        bank.spend(gbp, 2_21, settled: Self.on("2026-11-19")) { $0.feedItemUid = fullwidth }
        // Uids that are not UUIDs are off the bank's description on purpose.
        try await withEmulator(bank.state, contract: .requestsOnly) { server in
            let first = try await Self.run(server, home, ["--end-date", "2026-11-15", "--json"])
            #expect(first.status == 0, "\(first.stderr)")
            let account = try Self.account(in: first)
            let leftOut = try #require(account["leftOut"] as? [String: Any], "\(account)")
            #expect(leftOut["no-identity"] as? Int == 2, "\(leftOut)")
            #expect(leftOut["repeated"] == nil, "\(leftOut)")
            #expect(
                first.stderr.contains(
                    #"2 payment(s) in the bank's answer have no feed item uid (2 sent one that is not a UUID: "caf\u00e9-1", "cafe\u0301-1")"#
                ), "\(first.stderr)")
            #expect(await Self.moved(server) == [], "nothing moved for payments with no identity")
            let second = try await Self.run(server, home, ["--end-date", "2026-11-22", "--json"])
            #expect(second.status == 0, "\(second.stderr)")
            let next = try #require(try Self.account(in: second)["leftOut"] as? [String: Any])
            #expect(next["no-identity"] as? Int == 3, "\(next)")
            #expect(next["repeated"] as? Int == 1, "\(next)")
            #expect(second.stderr.contains(#""\uff11"#), "the fullwidth digit is named as sent: \(second.stderr)")
            #expect(second.stderr.contains(#"\u200b""#) && second.stderr.contains(#""\ufeff"#), "\(second.stderr)")
            let moved = await Self.moved(server)
            #expect(moved == [79])
            robustnessLine(
                "payment uids that are not UUIDs: café in two Unicode spellings, a zero-width space, a byte-order mark, a fullwidth digit",
                "each left out as no-identity and named in the warning, the real UUID padded and in capitals counted once: 0.00, then 0.79 moved",
                moneyExactlyOnce: moved == [79])
        }
    }

    /// After a week is counted, the bank starts writing uids in capitals; a window by hand
    /// that overlaps the week leaves out what the week counted.
    @Test func aBankThatLaterWritesCapitalsCountsNothingAgain() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "capitals-later")
        bank.spend(gbp, 1_50, settled: Self.on("2026-11-10"))
        bank.spend(gbp, 2_43, settled: Self.on("2026-11-13"))
        bank.spend(gbp, 3_90, settled: Self.on("2026-11-16"))
        try await withEmulator(bank.state) { server in
            let sunday = try await Self.run(server, home, ["--end-date", "2026-11-15"])
            #expect(sunday.status == 0, "\(sunday.stderr)")
            await server.bank.setBehaviour(EmulatorBehaviour(upperCaseUids: true))
            let manual = try await Self.run(server, home, ["--end-date", "2026-11-18", "--json"])
            #expect(manual.status == 0, "\(manual.stderr)")
            #expect((try Self.account(in: manual)["countedEarlier"] as? [Any])?.count == 1)
            let moved = await Self.moved(server)
            #expect(moved == [1_07, 10])
            robustnessLine(
                "a bank that writes uids in capitals after a week was counted, then an overlapping window",
                "what the week counted is left out by its identity: 1.07, then 0.10",
                moneyExactlyOnce: moved == [1_07, 10])
        }
    }

    /// A payment settled on 28 October is counted in the week ending 1 November; the bank
    /// later reports it settled on 12 November. The week ending 15 November leaves it out.
    @Test func aPaymentSettledAgainWeeksLaterIsNotCountedAgain() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "resettled")
        bank.spend(gbp, 1_50, settled: Self.on("2026-10-28"))
        bank.spend(gbp, 2_43, settled: Self.on("2026-11-12"))
        let uid = bank.state.feeds[gbp]![0].feedItemUid
        try await withEmulator(bank.state) { server in
            let first = try await Self.run(server, home, ["--end-date", "2026-11-01"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(await server.bank.resettle(feedItemUid: uid, at: Self.on("2026-11-12", hour: 11)))
            let later = try await Self.run(server, home, ["--end-date", "2026-11-15", "--json"])
            #expect(later.status == 0, "\(later.stderr)")
            let earlier = try #require(try Self.account(in: later)["countedEarlier"] as? [[String: Any]])
            #expect(earlier.compactMap { $0["feedItemUid"] as? String } == [uid], "\(earlier)")
            let moved = await Self.moved(server)
            #expect(moved == [50, 57])
            robustnessLine(
                "a payment counted on 28 October, reported settled again on 12 November",
                "the week ending 15 November leaves it out: 0.50, then 0.57", moneyExactlyOnce: moved == [50, 57])
        }
    }

    // MARK: - Another ledger's transfer holds the week

    /// The service's Sunday week is moved on Monday 16 November from one state directory;
    /// the saver's window by hand, ending Wednesday 18 November, from another, sees that
    /// transfer's reference name a week that shares its days: held, with its sentence, and
    /// `--abandon` records its payments and names the days neither may have saved.
    @Test func aScheduledTransferOfAnotherLedgerHoldsAWindowByHand() async throws {
        let (service, saver) = (try TemporaryDirectory(), try TemporaryDirectory())
        var (bank, gbp) = Self.bank(token: "other-ledger-first")
        bank.spend(gbp, 1_50, settled: Self.on("2026-11-12"))
        bank.spend(gbp, 2_43, settled: Self.on("2026-11-14"))
        bank.spend(gbp, 3_90, settled: Self.on("2026-11-17"))
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(feedReference: true)) { server in
            let sunday = try await Self.run(server, service, ["--end-date", "2026-11-15"])
            #expect(sunday.status == 0, "\(sunday.stderr)")
            await Self.stampTransfers(server, at: Self.on("2026-11-16", hour: 6))
            let manual = try await Self.run(server, saver, ["--end-date", "2026-11-18"])
            #expect(manual.status == 78, "\(manual.stdout)\(manual.stderr)")
            #expect(manual.stdout.contains("a transfer of 1.07 GBP into \"Round-ups\""), "\(manual.stdout)")
            #expect(manual.stdout.contains("whose reference names the week ending 2026-11-15"), "\(manual.stdout)")
            #expect(manual.stdout.contains("2026-11-12 to 2026-11-15"), "\(manual.stdout)")
            let abandon = try await Self.resolve(
                server, saver, ["--account", gbp, "--end-date", "2026-11-18", "--abandon", "the service saved it"])
            #expect(abandon.status == 0, "\(abandon.stderr)")
            #expect(abandon.stdout.contains("covers 2026-11-09 to 2026-11-15"), "\(abandon.stdout)")
            #expect(abandon.stdout.contains("2026-11-16 to 2026-11-18 may be saved by neither"), "\(abandon.stdout)")
            // Its payments are counted: a later window counts none of them again.
            let again = try await Self.run(server, saver, ["--end-date", "2026-11-19", "--json"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect((try Self.account(in: again)["countedEarlier"] as? [Any])?.count == 2)
            let moved = await Self.moved(server)
            #expect(moved == [1_07])
            robustnessLine(
                "the service's Sunday week, then a window by hand to Wednesday from another state directory",
                "the window is held naming the service's transfer (exit \(manual.status)); --abandon names the days "
                    + "neither saved", moneyExactlyOnce: moved == [1_07])
        }
    }

    /// The other order: the window by hand, ending Wednesday 11 November, is moved on
    /// Thursday 12, before the Sunday week ends. The Sunday week, from the service's state
    /// directory, sees it from its own start: held; `--retry` sends anyway and says how
    /// much may be saved twice.
    @Test func aTransferByHandOfAnotherLedgerHoldsTheScheduledWeek() async throws {
        let (service, saver) = (try TemporaryDirectory(), try TemporaryDirectory())
        var (bank, gbp) = Self.bank(token: "other-ledger-second")
        bank.spend(gbp, 1_50, settled: Self.on("2026-11-10"))
        bank.spend(gbp, 2_43, settled: Self.on("2026-11-13"))
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(feedReference: true)) { server in
            let manual = try await Self.run(server, saver, ["--end-date", "2026-11-11"])
            #expect(manual.status == 0, "\(manual.stderr)")
            await Self.stampTransfers(server, at: Self.on("2026-11-12", hour: 8))
            let sunday = try await Self.run(server, service, ["--end-date", "2026-11-15"])
            #expect(sunday.status == 78, "\(sunday.stdout)\(sunday.stderr)")
            #expect(sunday.stdout.contains("whose reference names the week ending 2026-11-11"), "\(sunday.stdout)")
            #expect(await Self.moved(server) == [50])
            let retry = try await Self.resolve(
                server, service, ["--account", gbp, "--end-date", "2026-11-15", "--retry"])
            #expect(retry.status == 0, "\(retry.stderr)")
            #expect(
                retry.stdout.contains("Up to 0.50 GBP of it may be saved twice"), "\(retry.stdout)\(retry.stderr)")
            #expect(retry.stdout.contains("2026-11-09 to 2026-11-11"), "\(retry.stdout)")
            let moved = await Self.moved(server)
            #expect(moved == [50, 1_07])
            robustnessLine(
                "a window by hand to Wednesday, moved before the service's Sunday week ends",
                "the Sunday week is held (exit \(sunday.status)); --retry sends it and says up to 0.50 may be "
                    + "saved twice", moneyExactlyOnce: moved == [50, 1_07])
        }
    }

    /// The window by hand recorded its transfer and was stopped before the bank moved it;
    /// the service's Sunday week then moved its own. When the window is run again, the
    /// service's transfer holds it before its transfer is sent.
    @Test func anUnfinishedWeekIsHeldOverAnotherLedgersTransferToo() async throws {
        let (service, saver) = (try TemporaryDirectory(), try TemporaryDirectory())
        var (bank, gbp) = Self.bank(token: "other-ledger-unfinished")
        bank.spend(gbp, 1_50, settled: Self.on("2026-11-13"))
        bank.spend(gbp, 3_90, settled: Self.on("2026-11-17"))
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(feedReference: true)) { server in
            // The bank asks to wait a day before add-money: the run stops with its intent recorded.
            await server.bank.injectFaults([.first(1, [.addMoney], .rateLimited(retryAfter: "86400"))])
            let stopped = try await Self.run(server, saver, ["--end-date", "2026-11-18"])
            #expect(stopped.status == 75, "\(stopped.stdout)\(stopped.stderr)")
            #expect(await Self.moved(server).isEmpty)
            let sunday = try await Self.run(server, service, ["--end-date", "2026-11-15"])
            #expect(sunday.status == 0, "\(sunday.stderr)")
            await Self.stampTransfers(server, at: Self.on("2026-11-16", hour: 6))
            let again = try await Self.run(server, saver, ["--end-date", "2026-11-18"])
            #expect(again.status == 78, "\(again.stdout)\(again.stderr)")
            #expect(again.stdout.contains("whose reference names the week ending 2026-11-15"), "\(again.stdout)")
            let moved = await Self.moved(server)
            #expect(moved == [50])
            robustnessLine(
                "a window by hand stopped after recording its transfer, then the service's Sunday week, then the "
                    + "window again", "the window is held over the service's transfer (exit \(again.status))",
                moneyExactlyOnce: moved == [50])
        }
    }

    /// A ledger in Los Angeles counted the week ending Sunday 15 November, which there runs
    /// until 08:00 on the 16th in London; a ledger in London then counts its week from the
    /// 16th. The Los Angeles transfer names a day before London's week begins, and holds it
    /// all the same: a payment in those eight hours is in both.
    @Test func anotherLedgersWeekInAnotherTimeZoneHoldsTheWeek() async throws {
        let (losAngeles, london) = (try TemporaryDirectory(), try TemporaryDirectory())
        var (bank, gbp) = Self.bank(token: "other-ledger-zone")
        bank.spend(gbp, 1_20, settled: Self.on("2026-11-16", hour: 2))
        bank.spend(gbp, 2_43, settled: Self.on("2026-11-18"))
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(feedReference: true)) { server in
            let west = try await roundup(
                ["run", "--api-base-url", server.baseURL, "--end-date", "2026-11-15"],
                environment: binaryEnvironment(losAngeles, token: await server.bank.state.token).merging(
                    ["ROUNDUP_TIME_ZONE": "America/Los_Angeles"]) { $1 })
            #expect(west.status == 0, "\(west.stderr)")
            let held = try await Self.run(server, london, ["--end-date", "2026-11-22"])
            #expect(held.status == 78, "\(held.stdout)\(held.stderr)")
            #expect(held.stdout.contains("whose reference names the week ending 2026-11-15"), "\(held.stdout)")
            let moved = await Self.moved(server)
            #expect(moved == [80])
            robustnessLine(
                "a ledger in Los Angeles counts its Sunday week, then one in London the week after",
                "London's week is held over the Los Angeles transfer (exit \(held.status))",
                moneyExactlyOnce: moved == [80])
        }
    }

    /// A second ledger saving into a goal its first run creates: the goal is made, and the
    /// first ledger's transfer holds the week all the same.
    @Test func aLedgerThatCreatesItsGoalIsHeldAllTheSame() async throws {
        let (service, saver) = (try TemporaryDirectory(), try TemporaryDirectory())
        var (bank, gbp) = Self.bank(token: "other-ledger-new-goal")
        bank.spend(gbp, 1_50, settled: Self.on("2026-11-13"))
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(feedReference: true)) { server in
            #expect(try await Self.run(server, service, ["--end-date", "2026-11-15"]).status == 0)
            await Self.stampTransfers(server, at: Self.on("2026-11-16", hour: 6))
            let real = try await Self.run(server, saver, ["--end-date", "2026-11-18", "--savings-goal", "Fresh"])
            #expect(real.status == 78, "\(real.stdout)\(real.stderr)")
            #expect(await server.bank.state.goals[gbp]?.contains { $0.name == "Fresh" } == true)
            #expect(await Self.moved(server) == [50])
        }
    }

    /// The same, however the bank shows the first ledger's reference: with words before or
    /// after it, cut within its year, the hyphen as a space in capitals, or as a date. Each
    /// names the week ending 15 November, so the second ledger, saving into another goal,
    /// is held over the days they share rather than saving them again.
    @Test(arguments: ReferenceRewording.allCases.filter { $0 != .bankDated })
    func aReferenceTheBankRewordsStillHoldsTheWeek(rewording: ReferenceRewording) async throws {
        let (service, saver) = (try TemporaryDirectory(), try TemporaryDirectory())
        var (bank, gbp) = Self.bank(token: "other-ledger-reworded-\(rewording)")
        bank.spend(gbp, 1_50, settled: Self.on("2026-11-13"))
        bank.spend(gbp, 5_33, settled: Self.on("2026-11-17"))
        let behaviour = EmulatorBehaviour(feedReference: true, referenceRewording: rewording)
        try await withEmulator(bank.state, behaviour: behaviour) { server in
            #expect(try await Self.run(server, service, ["--end-date", "2026-11-15"]).status == 0)
            await Self.stampTransfers(server, at: Self.on("2026-11-16", hour: 6))
            let shown = await server.bank.state.feeds[gbp]?.compactMap(\.reference) ?? []
            #expect(
                shown.contains(
                    rewording.apply(to: "Round-up w/e 15 Nov 2026", madeOn: try #require(LocalDate(iso: "2026-11-16")))
                ), "\(shown)")
            let real = try await Self.run(server, saver, ["--end-date", "2026-11-18", "--savings-goal", "Fresh"])
            #expect(real.status == 78, "\(rewording): \(real.stdout)\(real.stderr)")
            #expect(real.stdout.contains("whose reference names the week ending 2026-11-15"), "\(real.stdout)")
            let moved = await Self.moved(server)
            #expect(moved == [50])
            robustnessLine(
                "another ledger's week into another goal, its reference shown \(rewording.rawValue)",
                "held over the shared days (exit \(real.status))", moneyExactlyOnce: moved == [50])
        }
    }

    // MARK: - What resolve may send

    /// A week whose transfer failed is retried by a person after another ledger moved a
    /// week sharing its days: `--retry` holds it, saying why, as a run would; the next
    /// `--retry` sends it and says how much may be saved twice.
    @Test func aRetryOfAFailedWeekIsHeldOverAnotherLedgersTransfer() async throws {
        let (service, saver) = (try TemporaryDirectory(), try TemporaryDirectory())
        var (bank, gbp) = Self.bank(token: "retry-other-ledger")
        try settledFeeds(in: saver)
        bank.spend(gbp, 1_50, settled: Self.on("2026-11-13"))
        bank.spend(gbp, 3_90, settled: Self.on("2026-11-17"))
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(feedReference: true)) { server in
            await server.bank.injectFaults([.first(1, [.addMoney], .rateLimited(retryAfter: "86400"))])
            let failed = try await Self.run(server, saver, ["--end-date", "2026-11-15"])
            #expect(failed.status == 75, "\(failed.stdout)\(failed.stderr)")
            let manual = try await Self.run(server, service, ["--end-date", "2026-11-18"])
            #expect(manual.status == 0, "\(manual.stderr)")
            await Self.stampTransfers(server, at: Self.on("2026-11-19", hour: 6))
            let week = ["--account", gbp, "--end-date", "2026-11-15"]
            let first = try await Self.resolve(server, saver, week + ["--retry"])
            #expect(first.status == 78, "\(first.stdout)\(first.stderr)")
            #expect(first.stderr.contains("whose reference names the week ending 2026-11-18"), "\(first.stderr)")
            #expect(await Self.moved(server) == [60])
            let second = try await Self.resolve(server, saver, week + ["--retry"])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stdout.contains("Up to 0.50 GBP of it may be saved twice"), "\(second.stdout)")
            let moved = await Self.moved(server)
            #expect(moved == [60, 50])
            robustnessLine(
                "resolve --retry of an unconfirmed week after another ledger moved a week sharing its days",
                "held first, saying why (exit \(first.status)); the next --retry sends and says what may be saved twice",
                moneyExactlyOnce: moved == [60, 50])
        }
    }

    /// Another state directory's transfer of the week is UPCOMING, and made long before this
    /// ledger held the week for it: `--check` and `--retry` still see it, from the week's end,
    /// and send nothing while it may move.
    @Test func resolveSeesAnUpcomingTransferOlderThanTheHold() async throws {
        let (service, saver) = (try TemporaryDirectory(), try TemporaryDirectory())
        var (bank, gbp) = Self.bank(token: "upcoming-older")
        bank.spend(gbp, 1_50, settled: Self.on("2026-11-12"))
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(transfersUpcoming: true)) { server in
            #expect(try await Self.run(server, service, ["--end-date", "2026-11-15"]).status == 0)
            await Self.stampTransfers(server, at: Self.on("2026-11-16", hour: 6))
            let held = try await Self.run(server, saver, ["--end-date", "2026-11-15"])
            #expect(held.status == 78, "\(held.stdout)\(held.stderr)")
            let week = ["--account", gbp, "--end-date", "2026-11-15"]
            let check = try await Self.resolve(server, saver, week + ["--check"])
            #expect(check.stdout.contains("it may still move the money"), "\(check.stdout)\(check.stderr)")
            #expect(!check.stdout.contains("--retry"), "\(check.stdout)")
            let retry = try await Self.resolve(server, saver, week + ["--retry"])
            #expect(retry.status == 75, "\(retry.stdout)\(retry.stderr)")
            let moved = await Self.moved(server)
            #expect(moved == [50])
            robustnessLine(
                "resolve on a week held over another state directory's UPCOMING transfer made a day before",
                "--check says to wait, --retry sends nothing (exit \(retry.status))", moneyExactlyOnce: moved == [50])
        }
    }

    /// The week's transfer went unanswered and the feed shows it UPCOMING: held. `--retry`
    /// sends nothing while it is, `--redirect` to the week's own goal is refused, and once
    /// it settles `--retry` records it and sends nothing.
    @Test func resolveNeverSendsWhileTheTransferMayStillMove() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "upcoming")
        bank.spend(gbp, 1_50, settled: Self.on("2026-11-12"))
        try await withEmulator(bank.state, behaviour: EmulatorBehaviour(transfersUpcoming: true)) { server in
            await server.bank.injectFaults([.first(1, [.addMoney], .dropAfterApplying)])
            let run = try await Self.run(server, home, ["--end-date", "2026-11-15"])
            #expect(run.status == 78, "\(run.stdout)\(run.stderr)")
            #expect(run.stdout.contains("whose status is UPCOMING"), "\(run.stdout)")
            #expect(!run.stdout.contains("--retry"), "the hold does not invite a retry: \(run.stdout)")
            let week = ["--account", gbp, "--end-date", "2026-11-15"]
            let retry = try await Self.resolve(server, home, week + ["--retry"])
            #expect(retry.status == 75, "\(retry.stdout)\(retry.stderr)")
            #expect(retry.stderr.contains("wait until it settles or is cancelled in the app"), "\(retry.stderr)")
            let same = try await Self.resolve(server, home, week + ["--redirect", "Round-ups"])
            #expect(same.status == 64, "\(same.stdout)\(same.stderr)")
            #expect(same.stderr.contains("use --retry"), "\(same.stderr)")
            #expect(await Self.moved(server) == [50])
            await server.bank.settleUpcomingTransfers()
            let settled = try await Self.resolve(server, home, week + ["--retry"])
            #expect(settled.status == 0, "\(settled.stderr)")
            #expect(settled.stdout.contains("already arrived"), "\(settled.stdout)")
            let moved = await Self.moved(server)
            #expect(moved == [50])
            robustnessLine(
                "resolve --retry while the week's transfer is UPCOMING, then once it settled",
                "nothing sent while it may move (exit \(retry.status)); recorded once settled",
                moneyExactlyOnce: moved == [50])
        }
    }

    // MARK: - A changed weekEndsOn

    /// Sunday weeks, then `weekEndsOn: tuesday`: the first Tuesday week reaches back over the
    /// Monday and Tuesday that no week covers, and a catch-up finds nothing more to do.
    @Test func aChangedWeekEndsOnLeavesNoGap() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "weekday-change")
        bank.spend(gbp, 1_20, settled: Self.on("2026-11-07"))
        bank.spend(gbp, 1_50, settled: Self.on("2026-11-09"))
        bank.spend(gbp, 2_43, settled: Self.on("2026-11-10"))
        bank.spend(gbp, 3_90, settled: Self.on("2026-11-12"))
        let config = try writeConfig("weekEndsOn: tuesday\n", in: home)
        try await withEmulator(bank.state) { server in
            #expect(try await Self.run(server, home, ["--end-date", "2026-11-08"]).status == 0)
            let tuesday = try await Self.run(server, home, ["--config", config, "--end-date", "2026-11-17", "--json"])
            #expect(tuesday.status == 0, "\(tuesday.stderr)")
            let window = try #require(try Self.account(in: tuesday)["window"] as? [String: Any])
            #expect((window["note"] as? String)?.hasPrefix("stretched by 48 hours") == true, "\(window)")
            let catchUp = try await Self.run(
                server, home, ["--config", config, "--catch-up", "--end-date", "2026-11-17"])
            #expect(catchUp.stderr.contains("nothing to catch up"), "\(catchUp.stderr)")
            let moved = await Self.moved(server)
            #expect(moved == [80, 1_17])
            robustnessLine(
                "Sunday weeks, then weekEndsOn: tuesday",
                "the first Tuesday week reaches back over the Monday and Tuesday before it (stretched by 48 hours)",
                moneyExactlyOnce: moved == [80, 1_17])
        }
    }

    /// Sunday weeks, then `weekEndsOn: tuesday` two weeks later: whole weeks lie between. A
    /// plain run says it leaves them behind and names `--catch-up`, which rounds them up.
    @Test func wholeWeeksLeftBehindAreSaidAndCaughtUp() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "weeks-behind")
        bank.spend(gbp, 1_50, settled: Self.on("2026-11-02"))
        bank.spend(gbp, 2_43, settled: Self.on("2026-11-06"))
        bank.spend(gbp, 3_90, settled: Self.on("2026-11-12"))
        let config = try writeConfig("weekEndsOn: tuesday\n", in: home)
        try await withEmulator(bank.state) { server in
            #expect(try await Self.run(server, home, ["--end-date", "2026-11-01"]).status == 0)
            let plain = try await Self.run(server, home, ["--config", config, "--end-date", "2026-11-17"])
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(plain.stderr.contains("2 weeks, from the one ending 2026-11-03"), "\(plain.stderr)")
            #expect(plain.stderr.contains("roundup run --catch-up"), "\(plain.stderr)")
            let catchUp = try await Self.run(
                server, home, ["--config", config, "--catch-up", "--end-date", "2026-11-17"])
            #expect(catchUp.status == 0, "\(catchUp.stderr)")
            let moved = await Self.moved(server)
            #expect(moved.sorted() == [10, 50, 57])
            robustnessLine(
                "Sunday weeks, then weekEndsOn: tuesday two weeks later",
                "the plain run names the two weeks it leaves behind and --catch-up; the catch-up rounds them up",
                moneyExactlyOnce: moved.sorted() == [10, 50, 57])
        }
    }
}
