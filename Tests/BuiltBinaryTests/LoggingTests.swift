import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// Logging through the built binary: quiet by default, one line per step with --verbose,
/// one line per request at debug.
@Suite struct LoggingTests {
    @Test func quietByDefaultThenOneLinePerStep() async throws {
        let home = try TemporaryDirectory()
        let token = "log-token"
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        let environment = binaryEnvironment(home, token: token)
        try await withEmulator(state) { server in
            let base = ["run", "--api-base-url", server.baseURL]
            let quiet = try await roundup(base + ["--end-date", "2026-11-08"], environment: environment)
            #expect(quiet.status == 0)
            #expect(quiet.stderr.isEmpty, "a run that goes well logs nothing by default: \(quiet.stderr)")

            let verbose = try await roundup(base + ["--end-date", "2026-11-15", "--verbose"], environment: environment)
            #expect(verbose.status == 0)
            let personal = verbose.stderr.split(separator: "\n").filter { $0.contains("Personal (GBP):") }
            let steps = [
                " info roundup: [RoundUpJob] Personal (GBP): 12 settled feed item(s) in the week",
                " info roundup: [RoundUpJob] Personal (GBP): 7 counted, round-up 2.98 GBP → 2.98 GBP",
                " info roundup: [RoundUpJob] Personal (GBP): saves into \"Round-ups\"",
                " transfer(s) into goals in the feed since 2026-11-15T23:",
                " info roundup: [RoundUpJob] Personal (GBP): recorded the transfer of 2.98 GBP before sending it",
                " notice roundup: [RoundUpJob] Personal (GBP): the bank confirmed 2.98 GBP into \"Round-ups\"",
            ]
            #expect(personal.count == steps.count, "\(personal)")
            for (line, step) in zip(personal, steps) {
                #expect(line.contains(step), "\(line) should contain \(step)")
            }
            // From the week's end less the margin (10 minutes), on the bank's clock (within a second of this machine's).
            #expect(personal.count > 3 && personal[3].contains(": no sign of this week's transfer"), "\(personal)")
            #expect(!verbose.stderr.contains(" debug "), "--verbose stops at info")

            var debugEnvironment = environment
            debugEnvironment["ROUNDUP_LOG_LEVEL"] = "debug"
            let debug = try await roundup(base + ["--end-date", "2026-11-15"], environment: debugEnvironment)
            #expect(debug.stderr.contains(" debug roundup: [StarlingAPI] GET /api/v2/accounts → 200, "))
            #expect(debug.stderr.contains("the ledger has this week as transferred"))

            debugEnvironment["ROUNDUP_LOG_LEVEL"] = "chatty"
            let bad = try await roundup(base, environment: debugEnvironment)
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("ROUNDUP_LOG_LEVEL 'chatty' is not one of trace, debug, info"))
        }
    }
}
