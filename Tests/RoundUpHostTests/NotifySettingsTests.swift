import Foundation
import Logging
import RoundUp
import TestSupport
import Testing

@testable import RoundUpHost
@testable import RoundUpNotify

/// `notify.to` in Apprise's URL syntax, read without any server: each scheme as its
/// service's documentation gives its request, secrets never in what is shown, each mistake
/// refused by what is wrong and never by quoting the URL; and Uptime Kuma's push URL told
/// as Kuma reads it.
@Suite struct NotifySettingsTests {
    static func watch(_ text: String, environment: [String: String] = [:]) throws -> WatchSettings {
        let environment = environment.merging(["HOME": "/home/saver", "PATH": "/nonexistent"]) { first, _ in first }
        return try Settings.resolve(
            flags: SettingFlags(), environment: environment, locations: Locations(environment: environment),
            configText: text, configPath: "config.yaml"
        ).watch
    }

    static func refusal(_ text: String, environment: [String: String] = [:]) -> String? {
        do {
            _ = try watch(text, environment: environment)
            return nil
        } catch let error as SettingsError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    static func target(_ url: String) throws -> NotifyTarget {
        try #require(try watch("notify:\n  to: ['\(url)']\n").notifyTo.first)
    }

    /// The JSON body of the request `notice` makes for `url`, with the request.
    static func request(_ url: String, _ notice: Notice) throws -> (request: HTTPRequestView, body: [String: Any]) {
        let request = try #require(NotifyRequest.make(notice, for: try target(url)))
        let body = try #require(
            try JSONSerialization.jsonObject(with: Data(request.body ?? [])) as? [String: Any], "a JSON object")
        return (HTTPRequestView(url: request.url, headers: request.headers), body)
    }

    struct HTTPRequestView {
        var url: String
        var headers: [(name: String, value: String)]
        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    static let failure = Notice.failure(code: 69, summary: "exit 69: could not reach the bank", heldWeeks: false)

    @Test func withoutItNothingIsTold() throws {
        #expect(try Self.watch("").notifyTo.isEmpty)
        #expect(try Self.watch("").failures == .eachRun)
    }

    @Test func ntfyPublishesJSONWithTitlePriorityAndTagsToTheTopicsServer() throws {
        let (request, body) = try Self.request("ntfys://ntfy.example.com/roundup-alerts", Self.failure)
        #expect(request.url == "https://ntfy.example.com/")
        #expect(body["topic"] as? String == "roundup-alerts")
        #expect(body["title"] as? String == "roundup failed (exit 69)")
        #expect((body["message"] as? String)?.hasPrefix("exit 69: could not reach the bank\n") == true)
        #expect(body["priority"] as? Int == 4, "a failure is high")
        #expect(body["tags"] as? [String] == ["warning"])
        #expect(request.header("Authorization") == nil)
        #expect(try Self.target("ntfys://ntfy.example.com/roundup-alerts").shown == "ntfys://ntfy.example.com/***")
    }

    @Test func ntfyWithATopicAloneIsNtfySh() throws {
        let (request, body) = try Self.request("ntfy://my-secret-topic", Self.failure)
        #expect(request.url == "https://ntfy.sh/")
        #expect(body["topic"] as? String == "my-secret-topic")
        #expect(try Self.target("ntfy://my-secret-topic").shown == "ntfy://ntfy.sh/***", "the topic is the secret")
    }

    @Test func ntfyTakesItsTokenFromTheURLOrAFileOfTheUsersOwn() throws {
        let (byUser, _) = try Self.request("ntfy://tk_abc123@127.0.0.1:8080/alerts", Self.failure)
        #expect(byUser.url == "http://127.0.0.1:8080/")
        #expect(byUser.header("Authorization") == "Bearer tk_abc123")
        let (byQuery, _) = try Self.request("ntfys://host.example/alerts?token=tk_q", Self.failure)
        #expect(byQuery.header("Authorization") == "Bearer tk_q")
        let (basic, _) = try Self.request("ntfys://saver:pa%3Ass@host.example/alerts", Self.failure)
        #expect(basic.header("Authorization") == "Basic " + Data("saver:pa:ss".utf8).base64EncodedString())

        let directory = try TemporaryDirectory()
        let file = directory.path + "/ntfy-token"
        try "tk_fromfile\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        let (fromFile, _) = try Self.request("ntfys://host.example/alerts?tokenFile=\(file)", Self.failure)
        #expect(fromFile.header("Authorization") == "Bearer tk_fromfile")
        chmod(file, 0o644)
        let refused = Self.refusal("notify:\n  to: ['ntfys://host.example/alerts?tokenFile=\(file)']\n")
        #expect(refused?.contains("readable by group or others; run: chmod 600 \(file)") == true, "\(refused ?? "")")
    }

    @Test func ntfyPriorityAndTagsFromTheURLWin() throws {
        let (_, body) = try Self.request("ntfys://h.example/t?priority=min&tags=phone,bank", Self.failure)
        #expect(body["priority"] as? Int == 1)
        #expect(body["tags"] as? [String] == ["warning", "phone", "bank"])
        let (_, weekly) = try Self.request(
            "ntfys://h.example/t", .weekly(news: "you saved £2.98 this week", goals: ["Holiday"], weeks: []))
        #expect(weekly["priority"] as? Int == 3)
        #expect(weekly["tags"] as? [String] == ["moneybag"])
        #expect(weekly["message"] as? String == "You saved £2.98 this week. Into \"Holiday\".")
    }

    @Test func gotifyPostsTitleMessageAndPriorityWithTheAppTokenInAHeader() throws {
        let (request, body) = try Self.request("gotifys://push.example.com/gotify/AbCdEf.123", Self.failure)
        #expect(request.url == "https://push.example.com/gotify/message")
        #expect(request.header("X-Gotify-Key") == "AbCdEf.123")
        #expect(body["title"] as? String == "roundup failed (exit 69)")
        #expect(body["priority"] as? Int == 8)
        #expect(body.keys.sorted() == ["message", "priority", "title"])
        #expect(
            try Self.target("gotifys://push.example.com/gotify/AbCdEf.123").shown == "gotifys://push.example.com/***")
        let (plain, named) = try Self.request("gotify://10.0.0.2:8008/Tok?priority=high", Self.failure)
        #expect(plain.url == "http://10.0.0.2:8008/message")
        #expect(named["priority"] as? Int == 8)
    }

    @Test func anIPv6HostAndEscapedPartsAreKeptAsWritten() throws {
        let (request, _) = try Self.request("ntfy://[::1]:8080/alerts", Self.failure)
        #expect(request.url == "http://[::1]:8080/")
        #expect(try Self.target("ntfy://[::1]:8080/alerts").shown == "ntfy://[::1]:8080/***")
        let (gotify, _) = try Self.request("gotify://g.example/sub%2Fpath/To%20k", Self.failure)
        #expect(gotify.url == "http://g.example/sub%2Fpath/message")
        #expect(gotify.header("X-Gotify-Key") == "To k")
    }

    @Test func jsonPostsTheDocumentedObjectWithHeaders() throws {
        let (request, body) = try Self.request(
            "jsons://user:pw@hooks.example.com/roundup/in?+X-Secret=s3cret",
            .failure(
                code: 78, summary: "exit 78: 1 held", heldWeeks: true))
        #expect(request.url == "https://hooks.example.com/roundup/in")
        #expect(request.header("X-Secret") == "s3cret")
        #expect(request.header("Authorization") == "Basic " + Data("user:pw".utf8).base64EncodedString())
        #expect(body["version"] as? String == "1.0")
        #expect(body["type"] as? String == "failure")
        #expect(body["event"] as? String == "failure")
        #expect(body["exitCode"] as? Int == 78)
        #expect(body["source"] as? String == "roundup")
        #expect((body["message"] as? String)?.contains("`roundup resolve`") == true)
    }

    @Test func mistakesAreRefusedByWhatIsWrongNeverByQuotingTheURL() {
        let cases: [(String, String)] = [
            ("notify:\n  to: ['not a url']\n", "is not a URL"),
            ("notify:\n  to: ['ntfys://h.example/a/b']\n", "more than one topic"),
            ("notify:\n  to: ['ntfys://h.example/bad.topic!']\n", "topic ntfy does not take"),
            ("notify:\n  to: ['ntfys://h.example/t?priority=urgent']\n", "an ntfy priority is 1 to 5"),
            ("notify:\n  to: ['ntfys://h.example/t?secretive=1']\n", "has a parameter roundup does not know: it takes"),
            ("notify:\n  to: ['gotifys://h.example/T?verify=no']\n", "asks not to verify the server's certificate"),
            ("notify:\n  to: ['json://h.example/in?method=GET']\n", "another method than POST"),
            ("notify:\n  to: ['gotifys://h.example/']\n", "has no application token"),
            ("notify:\n  to: ['gotifys://h.example/T?priority=99']\n", "a Gotify priority is 0 to 10"),
            ("notify:\n  to: ['tgram://123456:ABCDEF/987']\n", "tgram:// URL, which roundup sends through the apprise"),
            ("notify:\n  failures: later\n", "notify.failures must be 'each-run' or 'on-failure-unit'"),
            ("notify:\n  toFile: /nonexistent/urls\n", "cannot read the notify.toFile file /nonexistent/urls"),
        ]
        for (config, expected) in cases {
            let refusal = Self.refusal(config)
            #expect(refusal?.contains(expected) == true, "\(config): \(refusal ?? "accepted")")
            for secret in ["ABCDEF", "bad.topic", "/a/b", "h.example/t", "secretive"] where !expected.contains(secret) {
                #expect(refusal?.contains(secret) != true, "\(config) quoted back: \(refusal ?? "")")
            }
        }
    }

    @Test func anotherSchemeGoesToAppriseWhenItIsInstalled() throws {
        let directory = try TemporaryDirectory()
        let apprise = directory.path + "/apprise"
        try "#!/bin/sh\nexit 0\n".write(toFile: apprise, atomically: true, encoding: .utf8)
        chmod(apprise, 0o755)
        let watch = try Self.watch(
            "notify:\n  to: ['tgram://123456:ABCDEF/987']\n", environment: ["PATH": directory.path])
        #expect(watch.apprise == apprise)
        #expect(watch.notifyTo.first?.service == .apprise(url: "tgram://123456:ABCDEF/987"))
        #expect(watch.notifyTo.first?.shown == "tgram://***")
    }

    @Test func theEnvironmentReplacesTheConfigsList() throws {
        let watch = try Self.watch(
            "notify:\n  to: ['ntfys://from.config/t']\n",
            environment: [
                "ROUNDUP_NOTIFY_URLS": "ntfys://from.env/a  gotify://g.example/TOKEN\njson://j.example/",
                "ROUNDUP_NOTIFY_FAILURES": "on-failure-unit",
            ])
        #expect(
            watch.notifyTo.map(\.shown) == ["ntfys://from.env/***", "gotify://g.example/***", "json://j.example/***"])
        #expect(watch.failures == .onFailureUnit)
        let refused = Self.refusal("", environment: ["ROUNDUP_NOTIFY_URLS": "ntfys://h/a/b"])
        #expect(refused?.hasPrefix("ROUNDUP_NOTIFY_URLS: ") == true, "\(refused ?? "")")
    }

    @Test func toFileAddsItsLinesAndMustBeTheUsersAlone() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/notify-urls"
        try "# the phone\nntfys://ntfy.example.com/phone\n\ngotifys://g.example/T\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        let config = "notify:\n  to: ['json://j.example/in']\n  toFile: \(file)\n"
        #expect(
            try Self.watch(config).notifyTo.map(\.shown) == [
                "json://j.example/***", "ntfys://ntfy.example.com/***", "gotifys://g.example/***",
            ])
        chmod(file, 0o640)
        #expect(Self.refusal(config)?.contains("readable by group or others") == true)
    }

    @Test func uptimeKumasPushURLIsToldUpWithTheRunsMillisecondsOrDown() throws {
        let settings = WatchSettings(pingURL: "https://kuma.example.com/api/push/AbC123", pingProxy: "")
        let ping = try #require(Ping(settings, logger: .init(label: "test")))
        #expect(ping.isUptimeKuma)
        #expect(ping.request(.start, body: nil, milliseconds: nil) == nil, "Kuma has no start")
        let up = try #require(ping.request(.success, body: "exit 0: moved 2.98 GBP+1", milliseconds: 1234))
        #expect(up.method.rawValue == "GET")
        #expect(
            up.url
                == "https://kuma.example.com/api/push/AbC123?status=up&msg=exit%200:%20moved%202.98%20GBP%2B1&ping=1234"
        )
        let down = try #require(ping.request(.failure, body: "exit 69: down", milliseconds: 99))
        #expect(down.url == "https://kuma.example.com/api/push/AbC123?status=down&msg=exit%2069:%20down")

        let healthchecks = try #require(
            Ping(WatchSettings(pingURL: "https://hc-ping.com/5f1b0c1e", pingProxy: ""), logger: .init(label: "test")))
        #expect(!healthchecks.isUptimeKuma)
        #expect(healthchecks.request(.start, body: nil, milliseconds: nil)?.url == "https://hc-ping.com/5f1b0c1e/start")
        #expect(healthchecks.request(.failure, body: "x", milliseconds: 5)?.url == "https://hc-ping.com/5f1b0c1e/fail")
    }

    @Test func heldWeeksAreToldInOneNoticeWithoutUidsAndWithWhatToDo() {
        let notice = Notice.held([
            (
                "7f4e2a10-5c1d-4b8e-9f3a-2d6c8e1b0a01 (GBP)", LocalDate(iso: "2026-11-15")!,
                "the feed shows feed item e0000001-0000-4000-8000-00000000000e\u{1b}[2J that this ledger did not "
                    + "send. If it is this week's, `roundup resolve --account 7f4e2a10-5c1d-4b8e-9f3a-2d6c8e1b0a01 "
                    + "--check` records it"
            ),
            ("Euro (EUR)", LocalDate(iso: "2026-11-15")!, nil),
        ])
        #expect(notice.title == "roundup: 2 weeks wait for you")
        #expect(!notice.message.contains("7f4e2a10"))
        #expect(!notice.message.contains("e0000001"))
        #expect(!notice.message.contains("\u{1b}"))
        #expect(!notice.message.contains("--check"), "a command whose uids are gone is left out")
        #expect(notice.message.contains("that this ledger did not send.\n"), "\(notice.message)")
        #expect(notice.message.contains("Euro (EUR), week ending 2026-11-15, is held\n"))
        #expect(
            notice.message.hasSuffix(
                "`roundup resolve` shows them and settles them; nothing moves for them until then."))
        #expect(
            Notice.held([("Personal (GBP)", LocalDate(iso: "2026-11-15")!, "why")]).title
                == "roundup: a week waits for you")
    }

    @Test func aControlCharacterThatWouldWriteAHeaderIsRefused() throws {
        for url in [
            "json://h.example/in?+X-A=abc%0D%0AInjected:%20yes", "gotify://h.example/TOK%0D%0AX-Evil:%201",
            "ntfys://tk_a%0Ab@h.example/topic",
        ] {
            let refusal = Self.refusal("notify:\n  to: ['\(url)']\n")
            #expect(refusal?.contains("has a control character") == true, "\(url): \(refusal ?? "accepted")")
        }
        let directory = try TemporaryDirectory()
        let file = directory.path + "/token"
        try "tk_abc\r\nX-Injected: 1\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        #expect(
            Self.refusal("notify:\n  to: ['ntfys://h.example/t?tokenFile=\(file)']\n")?.contains("control character")
                == true)
    }

    @Test func apprisesOwnParametersThatChangeNothingAreTaken() throws {
        #expect(
            try Self.target("ntfys://h.example/t?format=markdown&overflow=split&verify=yes").shown
                == "ntfys://h.example/***")
        #expect(try Self.target("json://h.example/in?method=post&rto=4").shown == "json://h.example/***")
    }

    @Test func kumasPushURLIsTakenAsKumaShowsIt() throws {
        let watch = try Self.watch(
            "notify:\n  pingURL: 'https://kuma.example.com/api/push/AbC123?status=up&msg=OK&ping='\n")
        #expect(watch.pingURL == "https://kuma.example.com/api/push/AbC123")
        #expect(
            Self.refusal("notify:\n  pingURL: 'https://hc-ping.com/uuid?x=1'\n")?.contains("without a query") == true)
    }

    @Test func aRunWhoseSettingsCannotBeHadTellsTheUsablePlaces() {
        let watch = WatchSettings.fromEnvironment([
            "ROUNDUP_NOTIFY_URLS": "ntfys://h.example/ok ntfys://h.example/bad.topic!"
        ])
        #expect(watch.notifyTo.map(\.shown) == ["ntfys://h.example/***"])
    }

    @Test func manyHeldWeeksAreToldInAFewLines() {
        let weeks = (1...8).map {
            ("Account \($0) (GBP)", LocalDate(iso: "2026-11-15")!, String?(String(repeating: "why ", count: 200)))
        }
        let notice = Notice.held(weeks)
        #expect(notice.title == "roundup: 8 weeks wait for you")
        #expect(notice.message.contains("… and 2 more."))
        #expect(!notice.message.contains("Account 7 (GBP)"))
        #expect(notice.message.utf8.count < 4096, "ntfy's limit")
    }

    @Test func anotherSpellingOfTheSchemeIsTheSame() throws {
        let (request, _) = try Self.request("NTFYS://h.example/alerts", Self.failure)
        #expect(request.url == "https://h.example/")
        #expect(try Self.target("Gotify://g.example/T").shown == "gotify://g.example/***")
    }

    /// A file of secrets reached through a link, or with other names, is not chmod-advised:
    /// the saver is told to point the setting at a file of their own, as for the token file.
    @Test func aSecretFileThroughALinkIsNotToldToChangeItsMode() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/shared-urls"
        try "ntfys://h.example/t\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        let link = directory.path + "/notify-urls"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        let refusal = Self.refusal("notify:\n  toFile: \(link)\n")
        #expect(
            refusal?.contains("point notify.toFile at a file of your own with mode 600") == true, "\(refusal ?? "")")
        #expect(refusal?.contains("chmod") != true)
        #expect(refusal?.contains("ROUNDUP_NOTIFY_URLS in /etc/roundup/environment") == true, "\(refusal ?? "")")
    }

    @Test func aVariableOfSpacesIsTakenAsUnset() throws {
        let watch = try Self.watch(
            "notify:\n  to: ['ntfys://from.config/t']\n", environment: ["ROUNDUP_NOTIFY_URLS": "  "])
        #expect(watch.notifyTo.map(\.shown) == ["ntfys://from.config/***"])
    }
}
