import Foundation
import TestSupport
import Testing

/// The savings page the demo draws, opened in a real browser: Debian's
/// chromium-headless-shell, driven through the DevTools protocol by
/// `Tests/Contract/savings_page.py`, at a phone's width of 390 pixels.
@Suite struct BrowserTests {
    static let browser = "/usr/bin/chromium-headless-shell"
    static let driver = repositoryRoot.appendingPathComponent("Tests/Contract/savings_page.py").path

    @Test func theSavingsPageDrawsWithoutErrorsOrRequestsAndFitsAPhone() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.browser) else {
            // CI runs scripts/test, which runs scripts/test-tools: there, its absence is a failure.
            let message = "opening the savings page needs chromium-headless-shell (scripts/test-tools installs it)"
            if ProcessInfo.processInfo.environment["CI"] != nil { Issue.record(Comment(rawValue: message)) }
            print("skipped: \(message)")
            return
        }
        let home = try TemporaryDirectory()
        let demo = try await roundup(["demo"], environment: ["HOME": home.path, "PATH": "/usr/bin:/bin"])
        #expect(demo.status == 0, "\(demo.stderr)")
        let page = home.path + "/.local/state/roundup/demo/reports/savings.html"
        let opened = try await run(
            "/usr/bin/python3", [Self.driver, Self.browser, page, home.path + "/savings.png"],
            environment: ["PATH": "/usr/bin:/bin", "HOME": home.path])
        #expect(opened.status == 0, "\(opened.stderr)")
        let found = try #require(try JSONSerialization.jsonObject(with: Data(opened.stdout.utf8)) as? [String: Any])
        // It draws: a good part of the screenshot is not the background, in many colours.
        let drawn = try #require(found["drawn"] as? [String: Any])
        #expect((drawn["share"] as? Double ?? 0) > 0.03, "\(drawn)")
        #expect((drawn["colours"] as? Int ?? 0) > 16, "\(drawn)")
        #expect(drawn["width"] as? Int == 390)
        // Nothing goes wrong, and nothing leaves the page.
        #expect((found["errors"] as? [String]) == [], "\(found)")
        #expect((found["requests"] as? [String]) == [], "\(found)")
        // At 390 pixels it fits without sideways scrolling.
        #expect((found["overflow"] as? Int ?? 1) <= 0, "\(found)")
        // The figures are tables too: per week and per month for each currency, and the goals.
        let tables = try #require(found["tables"] as? [String])
        #expect(tables == ["Week ending", "Month", "Week ending", "Month", "Goal"], "\(tables)")
        let png = try Data(contentsOf: URL(fileURLWithPath: home.path + "/savings.png"))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }
}
