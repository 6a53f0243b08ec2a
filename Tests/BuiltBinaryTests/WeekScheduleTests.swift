import Foundation
import GRDB
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// Each payment counted once, in weeks that never drift: a change of time zone either way,
/// a first run by hand on a Wednesday and then the schedule, overlapping `--end-date`
/// windows, a catch-up after a window by hand, and a ledger of the schema before weeks
/// kept their bounds. Each runs the built binary against the emulator, which does not
/// deduplicate transfers, and prints a line for `scripts/robustness`.
@Suite struct WeekScheduleTests {
    static let roundUps = "90c00000-0000-4000-8000-0000000000e1"

    /// A bank with one GBP account and its goal; `spend` adds payments.
    static func bank(token: String) -> (TestBank, String) {
        var bank = TestBank(token: token)
        let gbp = bank.account("GBP", name: "Personal")
        bank.goal(gbp, name: "Round-ups", uid: roundUps)
        return (bank, gbp)
    }

    static func at(_ text: String) -> Instant { Instant(iso8601: text)! }

    static func run(
        _ server: EmulatorServer, _ home: TemporaryDirectory, _ arguments: [String], zone: String = "Europe/London"
    ) async throws -> Execution {
        try await roundup(
            ["run", "--api-base-url", server.baseURL] + arguments,
            environment: binaryEnvironment(home, token: await server.bank.state.token).merging(
                ["ROUNDUP_TIME_ZONE": zone]) { $1 })
    }

    static func account(in execution: Execution) throws -> [String: Any] {
        let report = try JSONSerialization.jsonObject(with: Data(execution.stdout.utf8)) as? [String: Any]
        return try #require((report?["accounts"] as? [[String: Any]])?.first, "\(execution.stdout)")
    }

    static func moved(_ server: EmulatorServer) async -> [Int64] {
        await server.bank.transfers.map(\.amount.minorUnits).sorted()
    }

    // MARK: - A change of time zone

    /// London, then Auckland the week after: Auckland's week would start 13 hours before
    /// London's ended; it starts where London's ended, and says so.
    @Test func londonThenAucklandCountsTheSharedHoursOnce() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "london-auckland")
        // Sunday 8 November, 20:00 in London: Monday 9:00 in Auckland.
        bank.spend(gbp, 1_50, settled: Self.at("2026-11-08T20:00:00Z"))
        bank.spend(gbp, 2_43, settled: Self.at("2026-11-12T12:00:00Z"))
        try await withEmulator(bank.state) { server in
            let london = try await Self.run(server, home, ["--end-date", "2026-11-08"])
            #expect(london.status == 0, "\(london.stderr)")
            let auckland = try await Self.run(
                server, home, ["--end-date", "2026-11-15", "--json"], zone: "Pacific/Auckland")
            #expect(auckland.status == 0, "\(auckland.stderr)")
            let account = try Self.account(in: auckland)
            let window = try #require(account["window"] as? [String: Any])
            #expect(window["startUTC"] as? String == "2026-11-09T00:00:00.000Z")
            #expect((window["note"] as? String)?.hasPrefix("shortened by 13 hours") == true, "\(window)")
            #expect((window["note"] as? String)?.contains("counted in Europe/London") == true)
            let moved = await Self.moved(server)
            #expect(moved == [50, 57])
            robustnessLine(
                "London, then Auckland the next week",
                "Auckland's week starts where London's ended (shortened by 13 hours): 0.50 and 0.57 moved, once each",
                moneyExactlyOnce: moved == [50, 57])
        }
    }

    /// Auckland, then London: London's week would start 13 hours after Auckland's ended. A
    /// payment in those hours falls in neither week unless London's reaches back to meet it.
    @Test func aucklandThenLondonLeavesNoGap() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "auckland-london")
        // Sunday 8 November, 20:00 in London: after Auckland's week, before London's.
        bank.spend(gbp, 1_50, settled: Self.at("2026-11-08T20:00:00Z"))
        bank.spend(gbp, 2_43, settled: Self.at("2026-11-12T12:00:00Z"))
        try await withEmulator(bank.state) { server in
            let auckland = try await Self.run(
                server, home, ["--end-date", "2026-11-08"], zone: "Pacific/Auckland")
            #expect(auckland.status == 0, "\(auckland.stderr)")
            let london = try await Self.run(server, home, ["--end-date", "2026-11-15", "--json"])
            #expect(london.status == 0, "\(london.stderr)")
            let account = try Self.account(in: london)
            let window = try #require(account["window"] as? [String: Any])
            #expect(window["startUTC"] as? String == "2026-11-08T11:00:00.000Z")
            #expect((window["note"] as? String)?.hasPrefix("stretched by 13 hours") == true, "\(window)")
            #expect((account["transactions"] as? [Any])?.count == 2)
            let moved = await Self.moved(server)
            #expect(moved == [107])
            robustnessLine(
                "Auckland, then London the next week",
                "London's week reaches back to where Auckland's ended (stretched by 13 hours): 1.07 moved, nothing "
                    + "in a gap", moneyExactlyOnce: moved == [107])
        }
    }

    // MARK: - A schedule that never drifts

    /// The first run is by hand, for the week ending on a Wednesday; then the Monday
    /// schedule (a plain run) rounds up the week that ended on Sunday, leaving out what the
    /// Wednesday window counted, and a catch-up finds nothing more to do.
    @Test func aFirstRunOnAWednesdayLeavesTheScheduleOnSunday() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "wednesday")
        let sunday = Week.newest(endingOn: .sunday, before: .now, in: TestBank.london)
        let wednesday = sunday.endDate.adding(days: -4)
        let day = 86_400_000 as Int64
        // Tuesday (in both windows), Friday (Sunday's week only), and the Saturday before
        // (the Wednesday window only).
        bank.spend(gbp, 1_50, settled: sunday.start.adding(milliseconds: day + 36_000_000))
        bank.spend(gbp, 2_43, settled: sunday.start.adding(milliseconds: 4 * day + 36_000_000))
        bank.spend(gbp, 3_90, settled: sunday.start.adding(milliseconds: -2 * day + 36_000_000))
        try await withEmulator(bank.state) { server in
            let manual = try await Self.run(server, home, ["--end-date", wednesday.description])
            #expect(manual.status == 0, "\(manual.stderr)")
            let scheduled = try await Self.run(server, home, ["--json"])
            #expect(scheduled.status == 0, "\(scheduled.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(scheduled.stdout.utf8)) as? [String: Any]
            #expect((report?["week"] as? [String: Any])?["endDate"] as? String == sunday.endDate.description)
            let account = try Self.account(in: scheduled)
            #expect((account["countedEarlier"] as? [Any])?.count == 1)
            #expect(account["window"] == nil, "a week by hand never moves the schedule's week")
            let catchUp = try await Self.run(server, home, ["--catch-up"])
            #expect(catchUp.status == 0, "\(catchUp.stderr)")
            #expect(catchUp.stderr.contains("nothing to catch up"), "\(catchUp.stderr)")
            let moved = await Self.moved(server)
            // The Wednesday window: 0.50 + 0.10; Sunday's week: 0.57 alone.
            #expect(moved == [57, 60])
            robustnessLine(
                "a first run by hand on a Wednesday, then the Monday schedule",
                "the schedule rounds up the week that ended on Sunday, without what the Wednesday window counted",
                moneyExactlyOnce: moved == [57, 60])
        }
    }

    /// `--end-date` windows that share days with a counted week each round up only the
    /// payments not counted yet, and are not refused.
    @Test func overlappingWindowsCountOnlyWhatIsNew() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "overlap")
        bank.spend(gbp, 1_50, settled: Self.at("2026-11-12T12:00:00Z"))  // Thursday of the week ending 15 November
        bank.spend(gbp, 2_43, settled: Self.at("2026-11-17T12:00:00Z"))  // Tuesday after
        bank.spend(gbp, 3_90, settled: Self.at("2026-11-07T12:00:00Z"))  // Saturday before
        try await withEmulator(bank.state) { server in
            #expect(try await Self.run(server, home, ["--end-date", "2026-11-15"]).status == 0)
            for end in ["2026-11-18", "2026-11-12", "2026-11-16", "2026-11-15"] {
                let again = try await Self.run(server, home, ["--end-date", end])
                #expect(again.status == 0, "\(end): \(again.stderr)")
            }
            let moved = await Self.moved(server)
            #expect(moved == [10, 50, 57])
            robustnessLine(
                "--end-date windows that overlap a counted week",
                "four overlapping windows, each payment rounded up once: 0.50, 0.57 and 0.10 moved",
                moneyExactlyOnce: moved == [10, 50, 57])
        }
    }

    /// The schedule reached the week ending 1 November; a window by hand ending Wednesday 11
    /// November came after. A catch-up on 23 November rounds up the Sunday weeks from 8
    /// November, each without what the window counted.
    @Test func aCatchUpAfterAWindowByHandKeepsToTheSchedule() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "catch-up")
        bank.spend(gbp, 1_50, settled: Self.at("2026-10-31T12:00:00Z"))  // week ending 1 November
        bank.spend(gbp, 2_43, settled: Self.at("2026-11-10T12:00:00Z"))  // the window by hand, and 15 November's
        bank.spend(gbp, 3_90, settled: Self.at("2026-11-13T12:00:00Z"))  // 15 November's only
        bank.spend(gbp, 4_80, settled: Self.at("2026-11-19T12:00:00Z"))  // 22 November's
        try await withEmulator(bank.state) { server in
            #expect(try await Self.run(server, home, ["--end-date", "2026-11-01"]).status == 0)
            #expect(try await Self.run(server, home, ["--end-date", "2026-11-11"]).status == 0)
            let catchUp = try await Self.run(server, home, ["--catch-up", "--end-date", "2026-11-22", "--json"])
            #expect(catchUp.status == 0, "\(catchUp.stderr)")
            let reports = try JSONSerialization.jsonObject(with: Data(catchUp.stdout.utf8)) as? [[String: Any]]
            let weeks = reports?.compactMap { ($0["week"] as? [String: Any])?["endDate"] as? String }
            #expect(weeks == ["2026-11-08", "2026-11-15", "2026-11-22"])
            let moved = await Self.moved(server)
            #expect(moved == [10, 20, 50, 57])
            robustnessLine(
                "a catch-up after a window by hand",
                "the Sunday weeks from the schedule's last one, without what the window counted",
                moneyExactlyOnce: moved == [10, 20, 50, 57])
        }
    }

    // MARK: - Two ledgers

    /// Two state directories are two ledgers: `check` warns when it can see another ledger
    /// with weeks of the same account, the default one or the one the crontab's line names.
    @Test func checkWarnsOfASecondLedgerForTheSameAccount() async throws {
        let home = try TemporaryDirectory()
        var (bank, gbp) = Self.bank(token: "two-ledgers")
        bank.spend(gbp, 1_50, settled: Self.at("2026-11-12T12:00:00Z"))
        let other = home.path + "/elsewhere"
        let cron = home.path + "/cron-state"
        let bin = home.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\necho '0 6 * * 1 umask 077 && roundup run --catch-up --state-dir \(cron)'\n"
            .write(toFile: bin + "/crontab", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/crontab")
        try await withEmulator(bank.state) { server in
            var environment = binaryEnvironment(home, token: bank.state.token)
            let check = { (state: String?) in
                try await roundup(
                    ["check", "--api-base-url", server.baseURL] + (state.map { ["--state-dir", $0] } ?? []),
                    environment: environment)
            }
            // One ledger: nothing to say.
            #expect(try await Self.run(server, home, ["--end-date", "2026-11-15"]).status == 0)
            let alone = try await check(nil)
            #expect(!alone.stdout.contains("another ledger"), "\(alone.stdout)")
            // The default ledger, seen from another state directory.
            let elsewhere = try await check(other)
            #expect(
                elsewhere.stdout.contains(
                    "WARN  ledger: another ledger, \(home.path)/.local/state/roundup/ledger.sqlite, also holds weeks "
                        + "of Personal (GBP)"), "\(elsewhere.stdout)")
            #expect(elsewhere.status == 0, "a warning, not a problem")
            // The crontab's ledger, seen from the default one.
            environment["PATH"] = bin + ":/usr/bin:/bin"
            #expect(
                try await roundup(
                    ["run", "--end-date", "2026-11-22", "--api-base-url", server.baseURL, "--state-dir", cron],
                    environment: environment
                ).status == 0)
            let both = try await check(nil)
            #expect(both.stdout.contains("another ledger, \(cron)/ledger.sqlite"), "\(both.stdout)")
            robustnessLine(
                "two state directories for one account", "check names the other ledger and the account",
                moneyExactlyOnce: await Self.moved(server) == [50])
        }
    }

    // MARK: - A ledger of the schema before

    /// A ledger as roundup wrote it before weeks kept their bounds (schema v9): weeks before
    /// the ledger kept payments, and one after. Opened by this roundup, its weeks get the
    /// bounds of seven days in the configured zone, its totals stay as they were, and a
    /// window by hand never reaches into a week whose payments were not kept.
    @Test func aLedgerOfTheSchemaBeforeIsMigratedWithItsTotals() async throws {
        let home = try TemporaryDirectory()
        var (bank, account) = Self.bank(token: "fixture")
        let gbp = account
        bank.spend(gbp, 3_50, settled: Self.at("2026-11-05T12:00:00Z"))  // counted in 8 November's week, unkept
        // Kept by 15 November's week.
        bank.spend(gbp, 1_43, settled: Self.at("2026-11-09T10:00:00Z")) { $0.feedItemUid = Self.kept }
        bank.spend(gbp, 3_10, settled: Self.at("2026-11-10T09:00:00Z"))  // counted by no week yet
        let state = home.path + "/.local/state/roundup"
        try FileManager.default.createDirectory(
            atPath: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let fixture = try DatabaseQueue(path: state + "/ledger.sqlite")
        let schema = Self.schemaV9.replacingOccurrences(of: "ACCOUNT", with: gbp)
        try await fixture.write { db in try db.execute(sql: schema) }
        try fixture.close()
        let environment = binaryEnvironment(home, token: bank.state.token)

        let before = try await roundup(["history", "--json"], environment: environment)
        #expect(before.status == 0, "\(before.stderr)")
        let totalsBefore = try Self.totals(before)
        #expect(totalsBefore == ["GBP": "2.14", "EUR": "1.26"])

        try await withEmulator(bank.state) { server in
            let manual = try await Self.run(server, home, ["--end-date", "2026-11-10", "--json"])
            #expect(manual.status == 0, "\(manual.stderr)")
            let account = try Self.account(in: manual)
            let window = try #require(account["window"] as? [String: Any])
            #expect(window["startUTC"] as? String == "2026-11-09T00:00:00.000Z")
            #expect((window["note"] as? String)?.contains("before the ledger kept each payment") == true)
            #expect((account["countedEarlier"] as? [[String: Any]])?.first?["feedItemUid"] as? String == Self.kept)
            let moved = await Self.moved(server)
            #expect(moved == [90])

            let after = try await roundup(["history", "--json"], environment: environment)
            #expect(try Self.totals(after) == ["GBP": "3.04", "EUR": "1.26"], "unchanged, and the new week's 0.90")
            let ledger = try DatabaseQueue(path: state + "/ledger.sqlite")
            let rows = try ledger.read { db in
                try Row.fetchAll(db, sql: "SELECT weekEnd, startsAt, endsAt, timeZone FROM week ORDER BY weekEnd")
            }
            try ledger.close()
            #expect(rows.allSatisfy { $0["startsAt"] as String? != nil && $0["endsAt"] as String? != nil })
            // The clocks went back on 25 October: that week is 169 hours, from BST to GMT.
            let october = try #require(rows.first { $0["weekEnd"] == "2026-10-25" })
            #expect(october["startsAt"] == "2026-10-18T23:00:00.000Z")
            #expect(october["endsAt"] == "2026-10-26T00:00:00.000Z")
            #expect(october["timeZone"] == "Europe/London")
            robustnessLine(
                "a ledger of the schema before week bounds",
                "migrated with totals unchanged (2.14 GBP, 1.26 EUR); a window by hand keeps out of its weeks",
                moneyExactlyOnce: moved == [90])
        }
    }

    /// The payment the fixture's week ending 15 November counted.
    static let kept = "f1150000-0000-4000-8000-000000001115"

    static func totals(_ history: Execution) throws -> [String: String] {
        let document = try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any]
        return try #require(document?["totals"] as? [String: String], "\(history.stdout)")
    }

    /// The ledger's schema at v9, as its migrations left it, with weeks of a GBP account
    /// (`ACCOUNT`) and a EUR one: 1.07 + 0.50 + 0.57 GBP and 1.26 EUR moved.
    static let schemaV9 = """
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        INSERT INTO grdb_migrations VALUES ('v1'), ('v2: account names'), ('v3: notes'),
            ('v4: held weeks and feed confirmations'), ('v5: requests per day'), ('v6: runs'),
            ('v7: transfer references'), ('v8: one spelling per uid'), ('v9: counted payments');
        CREATE TABLE "transfer" (
            accountUid TEXT NOT NULL,
            weekEnd TEXT NOT NULL,
            status TEXT NOT NULL
                CHECK (status IN ('pending', 'done', 'nothing', 'held', 'abandoned')),
            currency TEXT NOT NULL,
            minorUnits INTEGER NOT NULL CHECK (minorUnits >= 0),
            goalUid TEXT,
            goalName TEXT,
            transferUid TEXT UNIQUE,
            lastError TEXT,
            createdAt TEXT NOT NULL,
            updatedAt TEXT NOT NULL,
            accountName TEXT,
            note TEXT,
            confirmation TEXT CHECK (confirmation IN ('bank', 'feed')),
            feedItemUid TEXT UNIQUE,
            reason TEXT,
            resolution TEXT,
            earlierGoalUids TEXT, reference TEXT,
            PRIMARY KEY (accountUid, weekEnd)
        );
        CREATE TABLE requests (
            day TEXT PRIMARY KEY,
            count INTEGER NOT NULL CHECK (count >= 0),
            lastWeekCost INTEGER CHECK (lastWeekCost >= 0)
        );
        CREATE TABLE run (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            startedAt TEXT NOT NULL,
            endedAt TEXT,
            exitCode INTEGER,
            weeks TEXT,
            accountsDone INTEGER NOT NULL DEFAULT 0,
            accountsHeld INTEGER NOT NULL DEFAULT 0,
            accountsFailed INTEGER NOT NULL DEFAULT 0,
            onlyHeld INTEGER NOT NULL DEFAULT 0,
            summary TEXT
        );
        CREATE TABLE counted (
            accountUid TEXT NOT NULL,
            weekEnd TEXT NOT NULL,
            payments TEXT NOT NULL,
            PRIMARY KEY (accountUid, weekEnd)
        ) WITHOUT ROWID;
        INSERT INTO transfer (accountUid, weekEnd, status, currency, minorUnits, goalUid, goalName, transferUid,
                              createdAt, updatedAt, accountName, confirmation, reference) VALUES
            ('ACCOUNT', '2026-10-25', 'done', 'GBP', 107, '90c00000-0000-4000-8000-0000000000e1', 'Round-ups',
             'f0000000-0000-4000-8000-000000000001', '2026-10-26T06:00:00.000Z', '2026-10-26T06:00:01.000Z',
             'Personal', 'bank', 'Round-up w/e 25 Oct 2026'),
            ('ACCOUNT', '2026-11-01', 'nothing', 'GBP', 0, NULL, NULL, NULL,
             '2026-11-02T06:00:00.000Z', '2026-11-02T06:00:00.000Z', 'Personal', NULL, NULL),
            ('ACCOUNT', '2026-11-08', 'done', 'GBP', 50, '90c00000-0000-4000-8000-0000000000e1', 'Round-ups',
             'f0000000-0000-4000-8000-000000000002', '2026-11-09T06:00:00.000Z', '2026-11-09T06:00:01.000Z',
             'Personal', 'bank', 'Round-up w/e 8 Nov 2026'),
            ('ACCOUNT', '2026-11-15', 'done', 'GBP', 57, '90c00000-0000-4000-8000-0000000000e1', 'Round-ups',
             'f0000000-0000-4000-8000-000000000003', '2026-11-16T06:00:00.000Z', '2026-11-16T06:00:01.000Z',
             'Personal', 'bank', 'Round-up w/e 15 Nov 2026'),
            ('e0000000-0000-4000-8000-00000000000e', '2026-11-08', 'done', 'EUR', 126,
             '90c00000-0000-4000-8000-0000000000e2', 'Round-ups', 'f0000000-0000-4000-8000-000000000004',
             '2026-11-09T06:00:00.000Z', '2026-11-09T06:00:01.000Z', 'Euro', 'bank', 'Round-up w/e 8 Nov 2026'),
            ('e0000000-0000-4000-8000-00000000000e', '2026-11-15', 'abandoned', 'EUR', 33,
             '90c00000-0000-4000-8000-0000000000e2', 'Round-ups', 'f0000000-0000-4000-8000-000000000005',
             '2026-11-16T06:00:00.000Z', '2026-11-17T09:00:00.000Z', 'Euro', NULL, 'Round-up w/e 15 Nov 2026');
        INSERT INTO counted VALUES ('ACCOUNT', '2026-11-15', 'f1150000-0000-4000-8000-000000001115\t57\n');
        INSERT INTO requests VALUES ('2026-11-16', 12, 6);
        INSERT INTO run (startedAt, endedAt, exitCode, weeks, accountsDone, summary) VALUES
            ('2026-11-16T06:00:00.000Z', '2026-11-16T06:00:02.000Z', 0, '2026-11-15', 2, 'exit 0: 2 done');
        """
}
