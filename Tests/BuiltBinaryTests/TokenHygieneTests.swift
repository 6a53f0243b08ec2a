import Foundation
import StarlingEmulator
import TestSupport
import Testing

/// The token, read from a token file, must appear in no output, log, report or state file,
/// even with `--verbose` or `--log-level trace`, under retries, and when the bank itself echoes it back.
@Suite struct TokenHygieneTests {
    @Test func theTokenAppearsNowhereEvenWhenTheBankEchoesIt() async throws {
        let token = "hygiene-token-" + UUID().uuidString
        var bank = TestBank(token: token)
        let poor = bank.account("GBP", name: "Poor", balance: 0)
        let garbled = bank.account("GBP", name: "Garbled")
        let fine = bank.account("EUR", name: "Fine")
        let inside = londonWeek("2026-11-15").start.adding(milliseconds: 60_000)
        for account in [poor, garbled, fine] { bank.spend(account, 1_234, settled: inside) }
        let home = try TemporaryDirectory()
        let tokenFile = home.path + "/token"
        try (token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile)
        let config = home.path + "/config.yaml"
        // overdraft: allow, so that the poor account's transfer reaches the bank and is refused.
        try "tokenFile: \(tokenFile)\nretryFirstDelayMilliseconds: 1\noverdraft: allow\n".write(
            toFile: config, atomically: true, encoding: .utf8)

        try await withEmulator(bank.state) { server in
            await server.bank.injectFaults([
                // The bank refuses the transfer and quotes the token in its message.
                FaultRule(
                    endpoints: [.addMoney], pathContains: poor, when: .always,
                    faults: [.rewrittenBody("INSUFFICIENT_FUNDS", "INSUFFICIENT_FUNDS for Bearer \(token)")]),
                // A feed with the token where a time should be.
                FaultRule(
                    endpoints: [.settledFeed], pathContains: garbled, when: .always,
                    faults: [.rewrittenBody(#""settlementTime":""#, #""settlementTime":"\#(token)"#)]),
                // Retries, so that their log lines are written too.
                FaultRule(when: .onRequests([1, 3, 5]), faults: [.serverError(503)]),
            ])
            var outputs: [String] = []
            for extra in [
                ["--verbose"], ["--verbose", "--json"], ["--verbose", "--dry-run"], ["--log-level", "trace"],
            ] {
                let result = try await roundup(
                    ["run", "--end-date", "2026-11-15", "--api-base-url", server.baseURL, "--config", config] + extra,
                    environment: ["HOME": home.path, "PATH": "/usr/bin:/bin"])
                #expect(result.status != 0, "the poor and garbled accounts fail")
                outputs += [result.stdout, result.stderr]
            }
            let stderr = outputs.joined(separator: "\n")
            #expect(stderr.contains("INSUFFICIENT_FUNDS for Bearer <redacted>"), "\(stderr)")
            #expect(stderr.contains("trying again in"), "retries are logged with --verbose")
            #expect(stderr.contains("GET /api/v2/accounts → 200"), "--log-level trace logs each request")
            #expect(await server.bank.transfers.map(\.accountUid) == [fine])
            for (index, text) in outputs.enumerated() {
                #expect(!text.contains(token), "output \(index) contains the token")
            }
        }
        // Every file the runs left, the ledger and the reports included, byte for byte.
        let files = FileManager.default.enumerator(atPath: home.path)?.compactMap { $0 as? String } ?? []
        var checked = 0
        for file in files where !file.hasSuffix("token") && !file.hasSuffix("config.yaml") {
            let path = home.path + "/" + file
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            checked += 1
            #expect(data.range(of: Data(token.utf8)) == nil, "\(file) contains the token")
        }
        #expect(checked >= 3, "the ledger and both reports were written: \(files)")
    }

    /// A token typed among a scheduled run's words by mistake, where the parser quotes it
    /// back: stderr, the run's row in the ledger, `status` and the monitor's ping say
    /// `<redacted>` instead.
    @Test func aTokenTypedAsAnArgumentIsNotRepeated() async throws {
        let token = "typed-token-" + UUID().uuidString
        let home = try TemporaryDirectory()
        let state = home.path + "/state"
        let environment = ["HOME": home.path, "PATH": "/usr/bin:/bin", "STARLING_ACCESS_TOKEN": token]
        // A run that could not reach the bank makes the ledger the mistaken runs are recorded in.
        let first = try await roundup(
            ["run", "--end-date", "2026-11-15", "--state-dir", state, "--api-base-url", "http://127.0.0.1:9"],
            environment: environment)
        #expect(first.status == 69, "\(first.stderr)")
        var said: [String] = []
        for words in [
            ["run", "--state-dir", state, token], ["run", "--state-dir", state, "--end-date", token],
            // Taken as a flag's value, then refused by the settings.
            ["run", "--state-dir", state, "--api-base-url", token],
        ] {
            let result = try await roundup(words, environment: environment)
            #expect([64, 78].contains(result.status), "\(words.count): \(result.stderr)")
            #expect(result.stderr.contains("<redacted>"), "the parser's message quotes the word: \(result.stderr)")
            said += [result.stdout, result.stderr]
        }
        let status = try await roundup(["status", "--state-dir", state], environment: environment)
        #expect(status.stdout.contains("exit 64"), "the runs were recorded: \(status.stdout)")
        said += [status.stdout, status.stderr]
        for (index, text) in said.enumerated() { #expect(!text.contains(token), "output \(index) has the token") }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: state)) ?? [] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: state + "/" + name))) ?? Data()
            #expect(bytes.range(of: Data(token.utf8)) == nil, "\(name) holds the token")
        }
    }

    /// A token pasted with quotes around it, or with the header's `Bearer ` before it, in
    /// the environment or in the token file, is refused before any request: the bank would
    /// call it invalid or expired. The message says what to remove, never the token.
    @Test func aTokenPastedWithQuotesOrBearerIsRefusedBeforeAnyRequest() async throws {
        let token = "pasted-token-" + UUID().uuidString
        let home = try TemporaryDirectory()
        let bank = TestBank(token: token)
        let file = home.path + "/token"
        try await withEmulator(bank.state) { server in
            for (pasted, inFile, said) in [
                (
                    "\"\(token)\"", false,
                    "STARLING_ACCESS_TOKEN has quotes (\" \") around it: remove the one at its start"
                ),
                ("'\(token)'\n", true, "the token file \(file) has quotes (' ') around it"),
                ("Bearer \(token)\n", true, "the token file \(file) begins with the word Bearer: remove it"),
            ] {
                var environment = ["HOME": home.path, "PATH": "/usr/bin:/bin"]
                var arguments = ["run", "--end-date", "2026-11-15", "--api-base-url", server.baseURL]
                if inFile {
                    _ = FileManager.default.createFile(
                        atPath: file, contents: Data(pasted.utf8), attributes: [.posixPermissions: 0o600])
                    arguments += ["--config", try writeConfig("tokenFile: \(file)\n", in: home)]
                } else {
                    environment["STARLING_ACCESS_TOKEN"] = pasted
                }
                let run = try await roundup(arguments, environment: environment)
                #expect(run.status == 78, "\(run.stderr)")
                #expect(run.stderr.contains(said), "\(run.stderr)")
                #expect(!run.stdout.contains(token) && !run.stderr.contains(token))
                #expect(await server.bank.requests.isEmpty, "nothing was asked of the bank")
            }
        }
    }
}
