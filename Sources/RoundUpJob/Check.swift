import CurlHTTP
import Foundation
public import Logging
import RoundUp
import StarlingAPI

/// `roundup check`: the configuration, the token, its scopes, the accounts, their goals
/// and the state directory, checked without writing anything, each with what to fix.
public enum Check {
    public static func run(
        flags: SettingFlags, environment: [String: String], logger baseLogger: Logger, style: TextStyle = .plain
    ) async
        -> RunResult
    {
        var lines: [String] = []
        var status = ExitStatus.ok
        func ok(_ text: String) { lines.append(style.status(.transferred, "ok") + "    \(text)") }
        func problem(_ code: ExitStatus, _ text: String) {
            lines.append(style.status(.failed, "FIX") + "   \(text)")
            if status == .ok { status = code }
        }
        var redact: (String) -> String = { $0 }
        func done() -> RunResult {
            RunResult(status: status, output: redact(lines.joined(separator: "\n") + "\n"), diagnostics: [])
        }

        let settings: Settings
        do {
            let (resolved, path) = try Runner.resolveSettings(RunRequest(flags: flags), environment: environment)
            settings = resolved
            ok(path.map { "config: \($0)" } ?? "config: no config file, so the defaults")
        } catch {
            problem(error.exitStatus, "config: \(error.message)")
            return done()
        }
        ok("bank: \(settings.apiBaseURL)")
        checkStateDirectory(settings.stateDirectory, ok: ok, problem: problem)

        let token: AccessToken
        switch Runner.loadToken(settings: settings, environment: environment) {
        case .success(let (value, source)):
            token = value
            redact = value.redacted(in:)
            ok("token: from \(source.description)")
        case .failure(let error):
            problem(.configuration, "token: \(error.message)")
            return done()
        }
        let logger = redacting(baseLogger, token: token)
        let client: CurlHTTPClient
        do {
            client = try CurlHTTPClient(
                configuration: CurlHTTPConfiguration(
                    requestTimeout: settings.requestTimeout, lanes: 1, userAgent: "roundup/\(roundupVersion)"))
        } catch {
            problem(.unavailable, "libcurl: \(error.message)")
            return done()
        }
        let bank = BankClient(
            baseURL: settings.apiBaseURL, token: token, transport: client,
            retrier: Retrier(policy: RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(300))), logger: logger)
        let scopes: Set<String>
        let accounts: [BankAccount]
        do throws(BankError) {
            let identity = try await bank.tokenIdentity()
            scopes = Set(identity.scopes)
            let needed = RoundUpJob.neededScopes(settings: settings, dryRun: false)
            let missing = needed.filter { !scopes.contains($0) }
            if missing.isEmpty {
                ok("scopes: everything a run needs" + (identity.expiresAt.map { "; the token expires at \($0)" } ?? ""))
            } else {
                problem(.permissionDenied, "scopes: the token lacks \(missing.joined(separator: ", ")); create a token that has them")
            }
            accounts = try await bank.accounts()
            ok("accounts: \(accounts.count)")
        } catch {
            problem(ExitStatus(error), "bank: \(error.description)")
            return done()
        }
        let job: RoundUpJob
        do {
            job = RoundUpJob(
                bank: bank, ledger: try Ledger.inMemory(), settings: settings, logger: logger, version: roundupVersion,
                now: { Instant.now })
        } catch {
            problem(.configuration, "ledger: \(error)")
            return done()
        }
        for bankAccount in accounts {
            let account = bankAccount.account
            let name = "\(account.name ?? account.uid) (\(account.currencyCode))"
            guard Currency(code: account.currencyCode) != nil else {
                problem(.dataError, "\(name): the currency is not one the job can place; it will be skipped")
                continue
            }
            let goal = await job.describeGoal(for: account, scopes: scopes)
            if goal.ok { ok("\(name) \(goal.text)") } else { problem(.configuration, "\(name): \(goal.text)") }
        }
        for (accountUid, goalUid) in settings.goalUids.sorted(by: { $0.key < $1.key })
        where !accounts.contains(where: { $0.accountUid == accountUid }) {
            problem(.configuration, "goals: the config names account \(accountUid) (goal \(goalUid)), which the token cannot see")
        }
        return done()
    }

    /// The state directory must be writable, or creatable, by this user; nothing is created.
    private static func checkStateDirectory(
        _ path: String, ok: (String) -> Void, problem: (ExitStatus, String) -> Void
    ) {
        var existing = URL(fileURLWithPath: path)
        while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
            existing.deleteLastPathComponent()
        }
        if access(existing.path, W_OK) == 0 {
            ok("state directory: \(path)\(existing.path == path ? "" : " (a run creates it)")")
        } else {
            problem(.configuration, "state directory: \(existing.path) is not writable; set stateDir to a directory you own")
        }
    }
}
