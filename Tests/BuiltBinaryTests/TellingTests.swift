import ChildProcess
import Foundation
import RoundUp
import RoundUpLedger
import StarlingEmulator
import TestSupport
import Testing

/// Told where savers look (`notify.to`, Uptime Kuma's push URL): the built binary against
/// the emulator, the real ntfy server (Debian 13's, which scripts/test-tools unpacks), local
/// stand-ins for Gotify and Uptime Kuma that hold each request to their documentation, and
/// the `apprise` command from PyPI. Each case: a good week, a held week told once, a
/// failure, an unreachable server, and a URL whose secret must not be printed.
@Suite(.serialized) struct TellingTests {
    static let week = "2026-11-15"
    let home: TemporaryDirectory
    let token = "telling-token-" + UUID().uuidString

    init() throws { home = try TemporaryDirectory() }

    var environment: [String: String] {
        binaryEnvironment(home, token: token).merging(["ROUNDUP_SCHEDULER": "external"]) { $1 }
    }

    func state() -> BankState {
        Seed.realisticWeek(endingOn: LocalDate(iso: Self.week)!, timeZone: TestBank.london, token: token)
    }

    func run(_ arguments: [String], config: String, state directory: String? = nil, extra: [String: String] = [:])
        async throws -> Execution
    {
        let stateDirectory = directory ?? home.path + "/state"
        return try await roundup(
            arguments + ["--config", config, "--state-dir", stateDirectory],
            environment: environment.merging(extra) { $1 })
    }

    /// A good week reaches an ntfy topic (the real server, a protected topic with its token
    /// from a file), a Gotify application and a JSON hook with the amount and the goal, and
    /// Uptime Kuma's push monitor with status=up and the run's milliseconds; none of them
    /// sees the access token. A failed run then reaches each with its reason and the command
    /// that helps, and Kuma with status=down.
    @Test func aGoodWeekThenAFailureReachNtfyGotifyJSONAndUptimeKuma() async throws {
        guard let ntfy = try await NtfyServer.start(in: home) else { return }
        defer { ntfy.stop() }
        let gotify = try await ServiceStandIn.start(.gotify(token: "AppTok.en-123"))
        let kuma = try await ServiceStandIn.start(.uptimeKuma(token: "KumaPush42"))
        let hook = try await ServiceStandIn.start(.anyPost)
        let tokenFile = home.path + "/ntfy-token"
        _ = FileManager.default.createFile(
            atPath: tokenFile, contents: Data(ntfy.accessToken.utf8), attributes: [.posixPermissions: 0o600])
        let config = try writeConfig(
            """
            notify:
              weekly: true
              pingURL: http://\(kuma.base)/api/push/KumaPush42
              to:
                - ntfy://\(ntfy.address)/roundup-phone?tokenFile=\(tokenFile)
                - gotify://\(gotify.base)/AppTok.en-123
                - json://\(hook.base)/roundup
            """, in: home)
        try await withEmulator(state()) { server in
            let result = try await run(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL], config: config)
            #expect(result.status == 0, "\(result.stderr)")
        }
        let published = try await ntfy.messages(topic: "roundup-phone")
        #expect(published.count == 1, "\(published)")
        let weekly = try #require(published.first)
        #expect(weekly["title"] as? String == "roundup: a week saved")
        #expect((weekly["message"] as? String)?.contains("£") == true, "\(weekly)")
        #expect((weekly["message"] as? String)?.contains("Into \"Round-ups\"") == true, "\(weekly)")
        #expect(weekly["tags"] as? [String] == ["moneybag"])
        #expect(weekly["priority"] == nil || weekly["priority"] as? Int == 3, "ntfy leaves out the default priority")
        let gotifyWeekly = try #require(await gotify.taken.first?.json)
        #expect(gotifyWeekly["title"] as? String == "roundup: a week saved")
        #expect(gotifyWeekly["priority"] as? Int == 5)
        #expect(await gotify.requests.allSatisfy { $0.problem == nil })
        #expect(try #require(await hook.taken.first?.json)["event"] as? String == "weekly")
        let up = try #require(await kuma.taken.first)
        #expect(up.query["status"] == "up")
        #expect(up.query["msg"]?.hasPrefix("exit 0: week ending \(Self.week)") == true, "\(up.query)")
        #expect(Int(up.query["ping"] ?? "") != nil, "the run's milliseconds: \(up.query)")
        #expect(await kuma.requests.count == 1, "no start: Kuma has none")

        // The bank is gone: a failure, told to each.
        let down = try await run(
            ["run", "--end-date", Self.week, "--api-base-url", "http://127.0.0.1:9"], config: config)
        #expect(down.status == 69, "\(down.stderr)")
        let failure = try #require(try await ntfy.messages(topic: "roundup-phone").last)
        #expect(failure["title"] as? String == "roundup failed (exit 69)")
        #expect((failure["message"] as? String)?.contains("`roundup check`") == true, "\(failure)")
        #expect(failure["priority"] as? Int == 4)
        #expect(try #require(await gotify.taken.last?.json)["title"] as? String == "roundup failed (exit 69)")
        #expect(try #require(await hook.taken.last?.json)["exitCode"] as? Int == 69)
        #expect(await kuma.taken.last?.query["status"] == "down")
        for standIn in [gotify, kuma, hook] {
            for request in await standIn.requests {
                #expect(!request.everything.contains(token), "the access token reached \(request.path)")
            }
            await standIn.stop()
        }
        #expect(!(try await ntfy.everythingPublished()).contains(token))
    }

    /// A week held for a person is told once, when first held; later runs that find it still
    /// held (78) tell nothing more, and such a run is not told as a failure.
    @Test func aHeldWeekIsToldOnce() async throws {
        let hook = try await ServiceStandIn.start(.anyPost)
        let gotify = try await ServiceStandIn.start(.gotify(token: "HeldApp"))
        let ntfy = try await NtfyServer.start(in: home)
        defer { ntfy?.stop() }
        let tokenFile = home.path + "/ntfy-token"
        _ = FileManager.default.createFile(
            atPath: tokenFile, contents: Data((ntfy?.accessToken ?? "").utf8), attributes: [.posixPermissions: 0o600])
        let ntfyURL = ntfy.map { "'ntfy://\($0.address)/roundup-held?tokenFile=\(tokenFile)', " } ?? ""
        let config = try writeConfig(
            "notify:\n  to: [\(ntfyURL)'json://\(hook.base)/roundup', 'gotify://\(gotify.base)/HeldApp']\n", in: home)
        try await withEmulator(state()) { server in
            let arguments = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL]
            // Another state directory moves the week first: this one finds the transfer and holds.
            #expect(try await run(arguments, config: config, state: home.path + "/other").status == 0)
            let before = await hook.requests.count
            let held = try await run(arguments, config: config)
            #expect(held.status == 78, "\(held.stderr)")
            let told = await hook.requests.dropFirst(before).compactMap(\.json)
            #expect(told.count == 1, "one notice for the weeks held by the run: \(told)")
            #expect(told.allSatisfy { $0["event"] as? String == "held" && $0["type"] as? String == "warning" })
            let message = told.first?["message"] as? String ?? ""
            #expect(message.contains("Personal (GBP), week ending \(Self.week), is held"), "\(message)")
            #expect(message.contains("Euro (EUR), week ending \(Self.week), is held"), "\(message)")
            #expect(message.contains("`roundup resolve` shows them"))
            #expect(!message.contains("7f4e2a10"), "no account uid")
            let again = try await run(arguments, config: config)
            #expect(again.status == 78)
            #expect(await hook.requests.count == before + 1, "told once")
        }
        let gotified = await gotify.taken.compactMap(\.json)
        #expect(
            gotified.count == 1 && gotified.allSatisfy { $0["title"] as? String == "roundup: 2 weeks wait for you" })
        #expect(gotified.allSatisfy { $0["priority"] as? Int == 8 })
        if let ntfy {
            let published = try await ntfy.messages(topic: "roundup-held")
            #expect(published.count == 1, "\(published)")
            #expect(published.allSatisfy { $0["tags"] as? [String] == ["hourglass"] && $0["priority"] as? Int == 4 })
        }
        for standIn in [hook, gotify] {
            for request in await standIn.requests { #expect(!request.everything.contains(token)) }
            await standIn.stop()
        }
    }

    /// A place that cannot be reached is tried twice and said as a warning; the run moves its
    /// money and ends 0 all the same. Its URL's secret is printed nowhere, not even with
    /// --verbose; `check --notify-test` shows it as `***` too.
    @Test func anUnreachablePlaceIsAWarningAndItsSecretIsNeverPrinted() async throws {
        let port = try NetworkTrustTests.freePort()
        let secret = "TopSecretApp" + UUID().uuidString.prefix(8)
        let config = try writeConfig(
            "notify:\n  weekly: true\n  to: ['gotify://127.0.0.1:\(port)/\(secret)', 'ntfy://127.0.0.1:\(port)/\(secret)']\n",
            in: home)
        try await withEmulator(state()) { server in
            let result = try await run(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL, "--verbose"], config: config)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("could not tell gotify://127.0.0.1:\(port)/*** (weekly), tried twice"))
            #expect(result.stderr.contains("could not tell ntfy://127.0.0.1:\(port)/*** (weekly), tried twice"))
            #expect(!(result.stdout + result.stderr).contains(secret))
            let history = try await run(["history", "--json"], config: config)
            let document = try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any]
            #expect(
                document?["totals"] as? [String: String] == ["GBP": "2.98", "EUR": "1.26"],
                "it moved: \(history.stdout)")
        }
        let check = try await roundup(
            ["check", "--notify-test", "--config", config, "--api-base-url", "http://127.0.0.1:9"],
            environment: environment)
        #expect(!(check.stdout + check.stderr).contains(secret))
        #expect(
            check.stdout.contains("notify: gotify://127.0.0.1:\(port)/***, ntfy://127.0.0.1:\(port)/***"),
            "\(check.stdout)")
        #expect(
            check.stdout.contains("FIX   notify: could not tell gotify://127.0.0.1:\(port)/*** (test)"),
            "\(check.stdout)")
        #expect(check.status == 69, "a place that did not take the test: \(check.stdout)")
    }

    /// `check` sends nothing; `check --notify-test` sends one test message to each place.
    @Test func checkSendsOnlyWhenAskedToTest() async throws {
        let hook = try await ServiceStandIn.start(.anyPost)
        let gotify = try await ServiceStandIn.start(.gotify(token: "T0k"))
        let config = try writeConfig(
            "notify:\n  to: ['json://\(hook.base)/in', 'gotify://\(gotify.base)/T0k']\n", in: home)
        try await withEmulator(state()) { server in
            let check = try await run(["check", "--api-base-url", server.baseURL], config: config)
            #expect(check.status == 0, "\(check.stdout)")
            let (hooked, gotified) = (await hook.requests, await gotify.requests)
            #expect(hooked.isEmpty && gotified.isEmpty, "check alone sends nothing")
            let test = try await run(["check", "--notify-test", "--api-base-url", server.baseURL], config: config)
            #expect(test.status == 0, "\(test.stdout)")
            #expect(test.stdout.contains("notify: gotify://\(gotify.base)/*** took the test message"), "\(test.stdout)")
        }
        #expect(await hook.taken.compactMap(\.json).map { $0["event"] as? String } == ["test"])
        #expect(await gotify.taken.compactMap(\.json).map { $0["title"] as? String } == ["roundup: a test message"])
        await hook.stop()
        await gotify.stop()
    }

    /// Under systemd (`notify.failures: on-failure-unit`, as roundup.service sets it) a failed
    /// run tells nothing itself; `roundup tell`, which OnFailure= starts once systemd has
    /// given up, tells the ledger's newest run, once; a run that ended well is not told.
    @Test func underSystemdTheFailureIsToldByRoundupTell() async throws {
        let hook = try await ServiceStandIn.start(.anyPost)
        let config = try writeConfig("notify:\n  to: ['json://\(hook.base)/in']\n", in: home)
        let systemd = ["ROUNDUP_NOTIFY_FAILURES": "on-failure-unit"]
        try await withEmulator(state()) { server in
            let good = try await run(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL], config: config, extra: systemd)
            #expect(good.status == 0)
        }
        let quiet = try await run(["tell"], config: config, extra: systemd)
        #expect(quiet.status == 0 && quiet.stdout.contains("ended well"), "\(quiet.stdout)\(quiet.stderr)")
        let down = try await run(
            ["run", "--end-date", Self.week, "--api-base-url", "http://127.0.0.1:9"], config: config, extra: systemd)
        #expect(down.status == 69)
        #expect(await hook.requests.isEmpty, "the run itself tells no failure under systemd")
        let tell = try await run(["tell"], config: config, extra: systemd)
        #expect(tell.status == 0, "\(tell.stdout)\(tell.stderr)")
        let told = await hook.taken.compactMap(\.json)
        #expect(told.count == 1)
        #expect(told.first?["exitCode"] as? Int == 69)
        #expect((told.first?["message"] as? String)?.contains("could not reach the bank") == true, "\(told)")
        // A config the service could not read, roundup tell cannot either: it tells why,
        // through ROUNDUP_NOTIFY_URLS, as the service's run ended.
        let broken = try writeConfig("notify:\n  to: ['json://\(hook.base)/in']\nweeklyCap: lots\n", in: home)
        let tellBroken = try await run(
            ["tell"], config: broken, extra: systemd.merging(["ROUNDUP_NOTIFY_URLS": "json://\(hook.base)/in"]) { $1 })
        #expect(tellBroken.status == 78, "\(tellBroken.stdout)\(tellBroken.stderr)")
        let last = await hook.taken.compactMap(\.json).last
        #expect(
            last?["exitCode"] as? Int == 78 && (last?["message"] as? String)?.contains("weeklyCap") == true,
            "\(last ?? [:])")
        await hook.stop()
    }

    /// A ledger in the state directory whose newest run began and never ended, as a run
    /// killed by SIGKILL or the OOM killer leaves it.
    func ledgerWithAKilledRun() throws {
        let stateDirectory = home.path + "/state"
        try FileManager.default.createDirectory(
            atPath: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        _ = try Ledger(path: Ledger.path(in: stateDirectory)).startRun(
            at: Instant(millisecondsSince1970: 1_795_000_000_000))
    }

    /// A run that never recorded its end (killed by the OOM killer, SIGKILL, a crash) is told
    /// by `roundup tell` too: systemd's OnFailure= is how anyone hears of it.
    @Test func aRunThatDidNotFinishIsToldByRoundupTell() async throws {
        let hook = try await ServiceStandIn.start(.anyPost)
        let config = try writeConfig("notify:\n  to: ['json://\(hook.base)/in']\n", in: home)
        try ledgerWithAKilledRun()
        let tell = try await run(["tell"], config: config)
        #expect(tell.status == 0, "\(tell.stdout)\(tell.stderr)")
        let told = try #require(await hook.taken.first?.json)
        #expect(told["title"] as? String == "roundup failed (did not finish)")
        #expect((told["message"] as? String)?.contains("killed or crashed") == true)
        await hook.stop()
    }

    /// Under cron, the run after one that was killed tells that it did not finish, once.
    @Test func theRunAfterAKilledOneTellsThatItDidNotFinish() async throws {
        let hook = try await ServiceStandIn.start(.anyPost)
        let config = try writeConfig("notify:\n  to: ['json://\(hook.base)/in']\n", in: home)
        try ledgerWithAKilledRun()
        try await withEmulator(state()) { server in
            let arguments = ["run", "--end-date", Self.week, "--api-base-url", server.baseURL]
            let first = try await run(arguments, config: config)
            let second = try await run(arguments, config: config)
            #expect(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
        }
        let told = await hook.taken.compactMap(\.json)
        #expect(told.count == 1, "once: \(told)")
        #expect(told.first?["title"] as? String == "roundup failed (did not finish)")
        #expect((told.first?["message"] as? String)?.contains("This run took up what it left") == true, "\(told)")
        await hook.stop()
    }

    /// Started by systemd for a failure the ledger does not have (a credential that could not
    /// be loaded: the run never started), `roundup tell` tells what systemd says; a run still
    /// going, holding the state directory, is not told as one that did not finish.
    @Test func roundupTellTellsWhatSystemdSawAndNotARunStillGoing() async throws {
        let hook = try await ServiceStandIn.start(.anyPost)
        let config = try writeConfig("notify:\n  to: ['json://\(hook.base)/in']\n", in: home)
        try await withEmulator(state()) { server in
            let good = try await run(
                ["run", "--end-date", Self.week, "--api-base-url", server.baseURL], config: config)
            #expect(good.status == 0)
        }
        let systemd = [
            "MONITOR_SERVICE_RESULT": "exit-code", "MONITOR_EXIT_CODE": "exited", "MONITOR_EXIT_STATUS": "243",
        ]
        let tell = try await run(["tell"], config: config, extra: systemd)
        #expect(tell.status == 0, "\(tell.stdout)\(tell.stderr)")
        let told = try #require(await hook.taken.last?.json)
        #expect(told["title"] as? String == "roundup failed (before it could record a run)")
        #expect((told["message"] as? String)?.contains("status 243") == true, "\(told)")

        let stateDirectory = home.path + "/state"
        let lock = try #require(try await RunLock.acquire(in: stateDirectory, wait: .zero))
        _ = try Ledger(path: Ledger.path(in: stateDirectory)).startRun(at: Instant.now)
        let during = try await run(["tell"], config: config)
        #expect(during.stdout.contains("still running: nothing sent"), "\(during.stdout)\(during.stderr)")
        withExtendedLifetime(lock) {}
        #expect(await hook.taken.count == 1)
        // Only looked at: a tell in a state directory without a lock file makes none.
        let lockless = home.path + "/lockless"
        try FileManager.default.createDirectory(
            atPath: lockless, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        _ = try Ledger(path: Ledger.path(in: lockless)).startRun(at: Instant.now)
        let lockTold = try await run(["tell"], config: config, state: lockless)
        #expect(lockTold.stdout.contains("did not finish"), "\(lockTold.stdout)")
        #expect(!FileManager.default.fileExists(atPath: lockless + "/roundup.lock"))
        await hook.stop()
    }

    /// A run whose config cannot be read is told through ROUNDUP_NOTIFY_URLS, as the monitor
    /// is through ROUNDUP_PING_URL; a dry run tells nothing.
    @Test func aConfigThatCannotBeReadIsToldThroughTheEnvironment() async throws {
        let hook = try await ServiceStandIn.start(.anyPost)
        let config = try writeConfig("notify:\n  weekly: yes please\n", in: home)
        let urls = ["ROUNDUP_NOTIFY_URLS": "json://\(hook.base)/in"]
        let dry = try await run(["run", "--end-date", Self.week, "--dry-run"], config: config, extra: urls)
        #expect(dry.status == 78)
        #expect(await hook.requests.isEmpty, "a dry run tells nothing")
        let broken = try await run(["run", "--end-date", Self.week], config: config, extra: urls)
        #expect(broken.status == 78, "\(broken.stderr)")
        let told = try #require(await hook.taken.first?.json)
        #expect(told["title"] as? String == "roundup needs you (exit 78)")
        #expect((told["message"] as? String)?.contains("notify.weekly") == true, "\(told)")
        #expect((told["message"] as? String)?.contains("`roundup check` says what to fix.") == true, "\(told)")
        await hook.stop()
    }

    /// Another scheme goes through the apprise command, the URL in its environment, never
    /// on its command line: Apprise's `form://` posts the title and body to a local hook.
    @Test func anotherSchemeGoesThroughApprise() async throws {
        let apprise = repositoryRoot.appendingPathComponent(".build/contract-venv/bin/apprise").path
        guard FileManager.default.isExecutableFile(atPath: apprise) else {
            let message = "the apprise test needs .build/contract-venv/bin/apprise (scripts/test-tools)"
            if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record(Comment(rawValue: message)) }
            print("skipped: \(message)")
            return
        }
        let hook = try await ServiceStandIn.start(.anyPost)
        let config = try writeConfig("notify:\n  to: ['form://\(hook.base)/apprise']\n", in: home)
        let path = ["PATH": (apprise as NSString).deletingLastPathComponent + ":/usr/bin:/bin"]
        let down = try await run(
            ["run", "--end-date", Self.week, "--api-base-url", "http://127.0.0.1:9"], config: config, extra: path)
        #expect(down.status == 69, "\(down.stderr)")
        let posted = try #require(await hook.taken.first, "\(down.stderr)")
        #expect(posted.body.contains("roundup+failed") || posted.body.contains("roundup failed"), "\(posted.body)")
        #expect(!posted.everything.contains(token))
        // Without apprise, such a scheme is refused at load, naming it (on a machine where
        // pip or apt put apprise where roundup looks, it is found there).
        let installed = ["/usr/local/bin/apprise", "/usr/bin/apprise", home.path + "/.local/bin/apprise"]
        guard !installed.contains(where: FileManager.default.isExecutableFile) else {
            await hook.stop()
            return
        }
        let refused = try await run(["run", "--end-date", Self.week, "--dry-run"], config: config)
        #expect(refused.status == 78)
        #expect(
            refused.stderr.contains("form:// URL, which roundup sends through the apprise command"), "\(refused.stderr)"
        )
        await hook.stop()
    }
}

/// The real ntfy server on a free loopback port, with a cache, an auth file that denies
/// everyone, and an admin user whose access token `accessToken` is; nil (the test skipped)
/// where scripts/test-tools has not unpacked it, a failure under CI.
struct NtfyServer {
    static let binary = repositoryRoot.appendingPathComponent(".build/tools/ntfy/usr/bin/ntfy").path
    let child: Child
    let address: String
    let accessToken: String
    let authFile: String

    static func start(in home: TemporaryDirectory) async throws -> NtfyServer? {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            let message = "the ntfy tests need Debian 13's ntfy in .build/tools/ntfy (scripts/test-tools)"
            if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record(Comment(rawValue: message)) }
            print("skipped: \(message)")
            return nil
        }
        let port = try NetworkTrustTests.freePort()
        let (cache, auth) = (home.path + "/ntfy-cache.db", home.path + "/ntfy-auth.db")
        let log = open(home.path + "/ntfy.log", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(log) }
        let child = try Child.spawn(
            binary,
            [
                "serve", "--listen-http", "127.0.0.1:\(port)", "--cache-file", cache, "--auth-file", auth,
                "--auth-default-access", "deny-all", "--base-url", "http://127.0.0.1:\(port)",
            ], environment: ["PATH": "/usr/bin:/bin"], stdout: log, stderr: log)
        var server = NtfyServer(child: child, address: "127.0.0.1:\(port)", accessToken: "", authFile: auth)
        for _ in 0..<100 {
            if FileManager.default.fileExists(atPath: auth), try await server.listening() { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let environment = ["NTFY_AUTH_FILE": auth, "NTFY_PASSWORD": "saver-password", "PATH": "/usr/bin:/bin"]
        let added = try await run(binary, ["user", "add", "--role=admin", "saver"], environment: environment)
        try #require(added.status == 0, "\(added.stderr)")
        let made = try await run(binary, ["token", "add", "saver"], environment: environment)
        let token = try #require((made.stdout + made.stderr).firstMatch(of: /tk_[a-z0-9]+/).map { String($0.output) })
        server = NtfyServer(child: child, address: server.address, accessToken: token, authFile: auth)
        return server
    }

    func listening() async throws -> Bool {
        let answer = try await run("/usr/bin/curl", ["-fsS", "http://\(address)/v1/health"], environment: [:])
        return answer.status == 0
    }

    /// What `topic` holds, oldest first, read with the access token.
    func messages(topic: String) async throws -> [[String: Any]] {
        let answer = try await run(
            "/usr/bin/curl",
            ["-fsS", "-H", "Authorization: Bearer \(accessToken)", "http://\(address)/\(topic)/json?poll=1&since=all"],
            environment: [:])
        try #require(answer.status == 0, "\(answer.stderr)")
        return answer.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }.filter { $0["event"] as? String == "message" }
    }

    /// Every message in the server's cache, as text.
    func everythingPublished() async throws -> String {
        try await messages(topic: "roundup-phone").map { "\($0)" }.joined(separator: "\n")
    }

    func stop() {
        kill(child.pid, SIGTERM)
        _ = child.wait()
    }
}
