import Foundation
import StarlingEmulator
import TestSupport
import Testing

@testable import RoundUpHost

/// Arbitrary and mutated config files never crash settings resolution: each one either
/// resolves or is refused with a message that says what is wrong, in words.
@Suite struct ConfigFuzzTests {
    static let example: String = {
        return
            (try? String(
                contentsOf: repositoryRoot.appendingPathComponent("config/roundup.example.yaml"), encoding: .utf8))
            ?? ""
    }()

    /// Every key the file takes, a misspelt one and an empty one.
    static let keys = ConfigFile.keys + ["multiplyer", ""]
    static let values = [
        "0", "1", "-1", "10", "11", "99999999999999999999", "1.5", "12.345", "-3.00", "true", "no", "null", "~", "''",
        "\"\"", "[]", "{}", "[1, 2]", "{GBP: 20}", "{GBP: -1}", "{XXX: 5}", "{GBP: 1e9}", "http://bank.example.com",
        "https://api.starlingbank.com", "http://127.0.0.1:9", "ftp://x", "Europe/London", "Mars/Olympus", "&a",
        "*a", "!!binary aGVsbG8=", "|\n  text", ">-\n  folded", "\"\\u0000\"", "[[[[[", "{a: {b: {c: 1}}}",
    ]

    static func resolve(_ text: String) -> (resolved: Bool, message: String?) {
        do {
            _ = try Settings.resolve(
                flags: SettingFlags(), environment: ["HOME": "/home/fuzz"],
                locations: Locations(environment: ["HOME": "/home/fuzz"]), configText: text, configPath: "fuzz.yaml")
            return (true, nil)
        } catch {
            return (false, error.message)
        }
    }

    static func expectClear(_ message: String?, for text: String) {
        guard let message else { return }
        #expect(message.count > 10, "\(text) → \(message)")
        for raw in ["DecodingError", "codingPath", "Optional(", "Context(", "Swift.", "be Mapping", "be Scalar"] {
            #expect(!message.contains(raw), "\(text) → \(message)")
        }
    }

    @Test("the example config resolves")
    func exampleResolves() {
        #expect(!Self.example.isEmpty)
        #expect(Self.resolve(Self.example).resolved, "\(Self.resolve(Self.example).message ?? "")")
    }

    @Test("mutated example configs resolve or are refused clearly")
    func mutatedExample() async {
        var random = SeededRandom(seed: 4_242)
        let tokens = Self.values + Self.keys.map { "\n\($0): " } + [":", "- ", "\t", "  ", "#", "\"", "'", "\n"]
        var refused = 0
        for round in 0..<1500 {
            var bytes = Array(Self.example.utf8)
            for _ in 0...(round % 4) { mutate(&bytes, tokens: tokens, &random) }
            let text = String(decoding: bytes, as: UTF8.self)
            // Leave the shared threads to the emulators of tests running alongside.
            if round % 50 == 0 { await Task.yield() }
            let outcome = Self.resolve(text)
            if !outcome.resolved { refused += 1 }
            Self.expectClear(outcome.message, for: text)
        }
        #expect(refused > 100)
        print("config fuzz: 1500 mutated example configs, \(refused) refused with a message, none crashed")
    }

    @Test("generated configs of known keys and odd values resolve or are refused clearly")
    func generatedConfigs() async {
        var random = SeededRandom(seed: 99)
        var refused = 0
        for round in 0..<1500 {
            if round % 50 == 0 { await Task.yield() }
            var text = ""
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let key = Self.keys[Int(random.next() % UInt64(Self.keys.count))]
                let value = Self.values[Int(random.next() % UInt64(Self.values.count))]
                text += "\(key): \(value)\n"
            }
            let outcome = Self.resolve(text)
            if !outcome.resolved { refused += 1 }
            Self.expectClear(outcome.message, for: text)
        }
        #expect(refused > 100)
        print("config fuzz: 1500 generated configs, \(refused) refused with a message, none crashed")
    }
}
