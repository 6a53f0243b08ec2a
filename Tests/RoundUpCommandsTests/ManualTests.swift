import Foundation
import RoundUpCommands
import RoundUpHost
import RoundUpVocabulary
import TestSupport
import Testing

/// The man page's reference sections are made from the code's own definitions; the list of
/// environment variables is held here to the names the sources read.
@Suite struct ManualTests {
    static let sources = repositoryRoot.appendingPathComponent("Sources")

    /// Every quoted name shaped like an environment variable roundup reads, in the sources
    /// of the programs it ships (not the benchmark's).
    static func namesInSources() throws -> Set<String> {
        let pattern = try NSRegularExpression(
            pattern:
                #""((?:ROUNDUP|XDG)_[A-Z_]+|STARLING_ACCESS_TOKEN|CREDENTIALS_DIRECTORY|NO_COLOR|TERM|HOME|PATH|SSLKEYLOGFILE|CURL_CA_BUNDLE|SSL_CERT_FILE|https_proxy)""#
        )
        var names: Set<String> = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift", !file.path.contains("/roundup-bench/"),
                file.lastPathComponent != "Manual.swift"
            else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                names.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        return names
    }

    @Test func theEnvironmentSectionNamesEveryVariableTheCodeReadsAndNoOther() throws {
        let listed = Set(Manual.environment.map(\.name))
        #expect(listed.count == Manual.environment.count, "each variable once")
        let read = try Self.namesInSources()
        #expect(read.subtracting(listed).isEmpty, "read but not in the man page: \(read.subtracting(listed).sorted())")
        #expect(
            listed.subtracting(read).isEmpty, "in the man page but never read: \(listed.subtracting(read).sorted())")
    }

    @Test func theSectionsGiveEveryExitStatusFileAndKey() {
        let text = Manual.sections()
        for status in ExitStatus.allCases {
            #expect(text.contains(".It \(status.rawValue)\n\(status.meaning). \(status.remedy)"), "\(status)")
        }
        for section in ["ENVIRONMENT", "FILES", "CONFIGURATION", "EXIT STATUS"] {
            #expect(text.components(separatedBy: ".Sh \(section)\n").count == 2, "\(section) once")
        }
        #expect(text.contains(".It Pa \(SystemService.tokenFile)\n"))
        #expect(text.contains(".It Pa ~/.config/roundup/config.yaml\n"))
        for key in [
            "apiBaseURL", "timeZone", "weekEndsOn", "goals", "notify (", "pingURL", "weekly", "notify.to lists",
        ] {
            #expect(text.contains(key), "\(key)")
        }
        // Each text line is mdoc text: none starts with a dot that is not a macro.
        for line in text.split(separator: "\n") where line.hasPrefix(".") {
            #expect(["Sh", "Bl", "It", "El", "Pp"].contains(line.dropFirst().prefix(2)), "\(line)")
        }
    }
}
