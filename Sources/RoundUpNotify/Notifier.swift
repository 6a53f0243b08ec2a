import ChildProcess
import CurlHTTP
import Foundation
public import Logging
import RoundUp
import RoundUpVocabulary

/// Sends a `Notice` to each place `notify.to` names: ntfy, Gotify and JSON by its own
/// libcurl client (never the bank's, so never with the bank's token), every other scheme
/// through the `apprise` command. Each place gets 10 seconds, and one more try when the
/// first fails. A notice that cannot be sent is a warning, said in what `send` returns; it
/// never changes a run's outcome. URLs are shown only as `NotifyTarget.shown`.
public struct Notifier: Sendable {
    public private(set) var targets: [NotifyTarget]
    let caFile: String?
    /// Where the `apprise` command is, when `notify.to` needs it.
    let apprise: String?
    let logger: Logger
    /// How long a place has to answer, each try.
    var timeout: Duration = .seconds(10)

    /// `targets`, with the certificate authorities an https place is checked against and
    /// the `apprise` command for other schemes; nil when there are none.
    public init?(targets: [NotifyTarget], caFile: String?, apprise: String?, logger: Logger) {
        guard !targets.isEmpty else { return nil }
        self.targets = targets
        self.caFile = caFile
        self.apprise = apprise
        self.logger = logger
    }

    /// Sends `notice` to every place at once; returns how many took it, and a warning for each
    /// that did not.
    public func send(_ notice: Notice) async -> Sent {
        await withTaskGroup(of: (Int, String?).self) { group in
            for (index, target) in targets.enumerated() {
                group.addTask { (index, await send(notice, to: target)) }
            }
            var sent = Sent()
            var failed: [Int] = []
            for await (index, warning) in group {
                if let warning {
                    sent.warnings.append(warning)
                    failed.append(index)
                } else {
                    sent.delivered += 1
                }
            }
            sent.warnings.sort()
            sent.failed = failed.sorted().map { targets[$0] }
            return sent
        }
    }

    /// What became of one notice.
    public struct Sent: Sendable {
        /// How many places took it.
        public var delivered = 0
        /// Why each of the others did not.
        public var warnings: [String] = []
        /// The others.
        public var failed: [NotifyTarget] = []
    }

    /// These places without `failed`: a place that did not answer is not tried again in the
    /// same run, so that a dead server costs a run its 21 seconds once. Nil when none is left.
    public func without(_ failed: [NotifyTarget]) -> Notifier? {
        var rest = self
        rest.targets = targets.filter { !failed.contains($0) }
        return rest.targets.isEmpty ? nil : rest
    }

    /// Sends `notice` to `target`, tried twice; nil when it was taken, else why not.
    public func send(_ notice: Notice, to target: NotifyTarget) async -> String? {
        var problem = ""
        for tries in 1...2 {
            if tries == 2 { try? await Task.sleep(for: .seconds(1)) }
            guard let why = await attempt(notice, to: target) else {
                logger.info("told \(target.shown) (\(notice.kind.rawValue))")
                return nil
            }
            problem = why
        }
        let warning = "could not tell \(target.shown) (\(notice.kind.rawValue)), tried twice: \(problem)"
        logger.warning("\(warning)")
        return warning
    }

    /// One try: nil when the place took it.
    private func attempt(_ notice: Notice, to target: NotifyTarget) async -> String? {
        switch target.service {
        case .apprise(let url): return await runApprise(notice, url: url)
        default:
            guard let request = NotifyRequest.make(notice, for: target) else { return "nothing to send" }
            do throws(TransportError) {
                let client = try CurlHTTPClient(
                    configuration: CurlHTTPConfiguration(
                        connectTimeout: timeout, requestTimeout: timeout, lanes: 1,
                        userAgent: "roundup/\(roundupVersion)", caFile: caFile, proxy: target.proxy))
                let response = try await client.send(request)
                guard (200..<300).contains(response.status) else { return "it answered \(response.status)" }
                return nil
            } catch {
                return error.message
            }
        }
    }

    /// The `apprise` command, given the URL through its environment (`APPRISE_URLS`) and
    /// the message on its standard input, never on its command line, where other users
    /// could read them; it and whatever it started are killed after `timeout`.
    private func runApprise(_ notice: Notice, url: String) async -> String? {
        guard let apprise else { return "the apprise command is not installed" }
        let environment = ProcessInfo.processInfo.environment.filter {
            ["PATH", "HOME", "LANG", "LC_ALL", "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "no_proxy"]
                .contains($0.key)
        }.merging(["APPRISE_URLS": url]) { $1 }
        // The message goes through a pipe: a notice is a few hundred bytes, far below what
        // a pipe holds, so it is written whole before apprise starts.
        guard let (readEnd, writeEnd) = try? closeOnExecPipe() else { return "could not make a pipe for apprise" }
        _ = Array(notice.message.utf8).withUnsafeBytes { write(writeEnd, $0.baseAddress, min($0.count, 16 * 1024)) }
        close(writeEnd)
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer {
            close(null)
            close(readEnd)
        }
        let child: Child
        do {
            child = try Child.spawn(
                apprise, ["--title", notice.title], environment: environment, stdin: readEnd, stdout: null,
                stderr: null,
                ownProcessGroup: true)
        } catch {
            return "could not start apprise: \(error.description)"
        }
        let seconds = Double(timeout.components.seconds)
        let deadline = Date().addingTimeInterval(seconds)
        // Waited for without reaping it, so that its process group is still its own when
        // whatever it left behind is killed with it.
        while true {
            var info = siginfo_t()
            if waitid(P_PID, id_t(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0,
                info._sifields._sigchld.si_pid == child.pid
            {
                break
            }
            guard Date() < deadline else {
                child.killGroup()
                _ = child.wait()
                return "apprise did not finish within \(Int(seconds)) seconds"
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        child.killGroup()
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) == -1, errno == EINTR {}
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited else { return "apprise was ended by signal \(status & 0x7f)" }
        return code == 0 ? nil : "apprise ended with status \(code)"
    }
}

/// The HTTP request for one notice to one place, as that service's documentation gives it.
enum NotifyRequest {
    static func make(_ notice: Notice, for target: NotifyTarget) -> HTTPRequest? {
        switch target.service {
        case .ntfy(let server, let topic, let auth, let priority, let tags):
            // ntfy's JSON publishing: the title and message in any script, no header encoding.
            let object: [String: Any] = [
                "topic": topic, "title": notice.title, "message": notice.message,
                "priority": priority ?? notice.ntfyPriority, "tags": notice.ntfyTags + tags,
            ]
            return post(server + "/", object, headers: authorization(auth))
        case .gotify(let endpoint, let token, let priority):
            let object: [String: Any] = [
                "title": notice.title, "message": notice.message, "priority": priority ?? notice.gotifyPriority,
            ]
            return post(endpoint, object, headers: [("X-Gotify-Key", token)])
        case .json(let endpoint, let auth, let headers):
            return post(
                endpoint, jsonObject(notice), headers: authorization(auth) + headers.map { ($0.name, $0.value) })
        case .apprise:
            return nil
        }
    }

    /// The object `json://` sends, as docs/operating.md documents it: Apprise's fields
    /// (`version`, `title`, `message`, `type`) and roundup's `event` and `exitCode`.
    static func jsonObject(_ notice: Notice) -> [String: Any] {
        var object: [String: Any] = [
            "version": "1.0", "title": notice.title, "message": notice.message, "type": notice.appriseType,
            "event": notice.kind.rawValue, "source": "roundup",
        ]
        if let code = notice.exitCode { object["exitCode"] = Int(code) }
        return object
    }

    private static func post(_ url: String, _ object: [String: Any], headers: [(String, String)]) -> HTTPRequest? {
        guard
            let body = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else {
            return nil
        }
        return HTTPRequest(
            method: .post, url: url, headers: [("Content-Type", "application/json")] + headers, body: Array(body),
            repeatable: true)
    }

    private static func authorization(_ auth: NotifyTarget.Authorization?) -> [(String, String)] {
        switch auth {
        case .none: return []
        case .bearer(let token): return [("Authorization", "Bearer \(token)")]
        case .basic(let user, let password):
            return [("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())]
        }
    }
}
