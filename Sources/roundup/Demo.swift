import ArgumentParser
import Foundation
import RoundUp
import RoundUpJob
import StarlingEmulator

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the real job, through libcurl, against a local emulator of the bank.",
        discussion: """
            Starts the emulator on 127.0.0.1, seeded with a realistic week (a GBP and a EUR account) ending \
            yesterday, runs the job against it and shows the report. The demo keeps its own ledger and reports \
            under $XDG_STATE_HOME/roundup/demo, apart from real runs, so running it again moves nothing new.

            Examples:
              roundup demo                 # the job, the summary and the Markdown report
              roundup demo                 # again: the ledger remembers the week, nothing moves
              roundup demo --reset --json  # from scratch, the report as JSON
            """
    )

    @Flag(help: "Show what would move; write nothing.")
    var dryRun = false

    @Flag(help: "Forget earlier demo runs first.")
    var reset = false

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"] ?? "/root"
        let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(home)/.local/state"
        let demoState = "\(stateHome)/roundup/demo"
        if reset { try? FileManager.default.removeItem(atPath: demoState) }

        let now = Instant.now
        guard let zone = TimeZone(identifier: "Europe/London") else { throw ExitCode(78) }
        let week = Week.endingYesterday(now: now, in: zone)
        let bank = EmulatedBank(state: Seed.realisticWeek(endingOn: week.endDate, timeZone: zone))
        let server = try await EmulatorServer.start(bank: bank)

        var demoEnvironment = ["HOME": home, "STARLING_ACCESS_TOKEN": Seed.demoToken]
        demoEnvironment["XDG_STATE_HOME"] = stateHome
        let request = RunRequest(
            endDate: week.endDate.description, dryRun: dryRun, json: output.json,
            flags: SettingFlags(apiBaseURL: server.baseURL, stateDirectory: demoState),
            ignoreConfigFile: true, style: output.style)
        var result = await Runner.run(
            request, environment: demoEnvironment, now: now, logger: output.logging.logger)
        await server.stop()

        if !output.json, let report = result.report {
            result.output = "roundup demo: the emulated bank is at \(server.baseURL); state in \(demoState)\n\n"
                + result.output + "\n" + report.markdown
        }
        try finish(result)
    }
}
