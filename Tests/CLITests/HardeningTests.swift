import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// Promises the README makes that a careless or hostile surrounding tries: numbers written
/// in another notation, and more. Each runs the built binary and says what it did, for
/// `scripts/robustness`.
@Suite struct HardeningTests {
    let home: TemporaryDirectory
    let token = "hardening-" + UUID().uuidString

    init() throws { home = try TemporaryDirectory() }

    var environment: [String: String] { binaryEnvironment(home, token: token) }

    /// YAML 1.1 reads `010` as octal 8; the config's schema and YAML 1.2 editors read it as
    /// ten or refuse it. A whole-number setting takes decimal digits only, and the refusal
    /// says how to write the number meant, before anything is asked of the bank.
    @Test func aWholeNumberInAnotherNotationIsRefusedWithTheNumberMeant() async throws {
        let cases = [
            ("multiplier: 010", "write 10"), ("multiplier: 0x5", "write 5"), ("multiplier: 0b11", "write 3"),
            ("multiplier: 1_0", "write 10"), ("roundTo: +5", "write 5"), ("concurrency: 0o7", "write 7"),
            ("lockWaitSeconds: 1e3", "is not a whole number in decimal digits"),
            ("retryAttempts: 2.0", "is not a whole number in decimal digits"),
            ("multiplier: [2]", "'multiplier' must be a whole number"),
        ]
        var refused = 0
        for (line, said) in cases {
            let config = try writeConfig(line + "\n", in: home)
            // A closed port: a run that reached the bank would end 69, not 78.
            let run = try await roundup(
                ["run", "--end-date", "2026-11-15", "--config", config, "--api-base-url", "http://127.0.0.1:9"],
                environment: environment)
            #expect(run.status == 78, "\(line): \(run.stderr)")
            #expect(run.stderr.contains(said), "\(line): \(run.stderr)")
            let check = try await roundup(["check", "--config", config], environment: environment)
            #expect(check.stdout.contains(said), "check says so too: \(check.stdout)")
            if run.status == 78, run.stderr.contains(said) { refused += 1 }
        }
        // Decimal digits, negative ones included, are read as written, and bounds still apply.
        let plain = try writeConfig("multiplier: 10\nlockWaitSeconds: 0\n", in: home)
        let check = try await roundup(["check", "--config", plain], environment: environment)
        #expect(!check.stdout.contains("decimal digits"), "\(check.stdout)")
        let negative = try writeConfig("lockWaitSeconds: -1\n", in: home)
        let bounded = try await roundup(["check", "--config", negative], environment: environment)
        #expect(bounded.stdout.contains("lockWaitSeconds must be from 0 to 3600, not -1"), "\(bounded.stdout)")
        robustnessLine(
            "whole-number settings written 010, 0x5, 0b11, 1_0, +5, 0o7, 1e3, 2.0",
            "\(refused) of \(cases.count) refused (exit 78) with the number meant, before any request",
            moneyExactlyOnce: true)
    }
}
