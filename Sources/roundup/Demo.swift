import ArgumentParser
import Foundation
import RoundUp
import RoundUpCommands
import RoundUpHost
import RoundUpReports
import RoundUpVocabulary
import StarlingEmulator

extension Roundup {
    struct Demo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the real job, through libcurl, against a local emulator of the bank.",
            discussion: """
                Starts the emulator on 127.0.0.1, seeded with a realistic week (a GBP and a EUR account) that \
                ended last Sunday, and card payments in the seven weeks before it. The first demo runs those seven \
                weeks as the schedule would have, then runs the job for last week and shows its summary, with the \
                paths of its report and of the savings chart. The demo keeps \
                its own ledger, reports and savings chart under $XDG_STATE_HOME/roundup/demo, apart from real runs, so \
                running it again moves nothing new.

                Examples:
                  roundup demo                 # the job, its summary, the report's path
                  roundup demo                 # again: the ledger remembers, nothing moves
                  roundup demo --reset --json  # from scratch, the report as JSON
                  roundup history --state-dir ~/.local/state/roundup/demo   # its weeks
                """
        )

        /// The weeks before last week that a first demo runs.
        static let earlierWeeks = 7

        /// `text` as one word a shell reads back as it is: unquoted when it is plain, else in
        /// single quotes.
        static func shellWord(_ text: String) -> String {
            let plain = text.unicodeScalars.allSatisfy {
                CharacterSet.alphanumerics.contains($0) && $0.isASCII || "/._-+:@%=,".unicodeScalars.contains($0)
            }
            return plain && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }

        /// Whether a program `name` is in one of `searchPath`'s directories: a file, not a
        /// directory of that name, that may be run.
        static func onPath(_ name: String, searchPath: String?) -> Bool {
            (searchPath ?? "/usr/bin:/bin").split(separator: ":").contains { directory in
                var status = stat()
                let path = "\(directory)/\(name)"
                return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
                    && FileManager.default.isExecutableFile(atPath: path)
            }
        }

        @Flag(help: "Show what would move; write nothing.")
        var dryRun = false

        @Flag(help: "Forget earlier demo runs first.")
        var reset = false

        @OptionGroup var output: OutputOptions

        func run() async throws {
            let live = Composition.live
            guard let demoState = live.locations.demoStateDirectory else {
                try finish(
                    .failure(CommandFailure(.configuration, "HOME is not set: the demo keeps its state under it")))
            }
            if reset { try? FileManager.default.removeItem(atPath: demoState) }

            guard let zone = Week.defaultTimeZone else { throw ExitCode(78) }
            // Before the emulator starts: without the zone files, a report's time stops the process.
            if let problem = ZoneData.problem(with: zone) {
                try finish(.failure(CommandFailure(.configuration, problem.message)))
            }
            let week = Week.newest(endingOn: Weekday.defaultWeekEnd, before: live.clock(), in: zone)
            let bank = EmulatedBank(
                state: Seed.earlierWeeks(
                    before: week.endDate, count: Demo.earlierWeeks, timeZone: zone,
                    adding: Seed.realisticWeek(endingOn: week.endDate, timeZone: zone)))
            let server = try await EmulatorServer.start(bank: bank)

            // The demo's run sees only the demo token and its own state, never a real config; the
            // bank is on this machine, so it need not keep to the real bank's 5 requests a second.
            let demo = Composition(
                environment: ["STARLING_ACCESS_TOKEN": Seed.demoToken, "ROUNDUP_MAX_REQUESTS_PER_SECOND": "1000"],
                locations: live.locations, clock: live.clock, typedByAPerson: live.typedByAPerson)
            let flags = SettingFlags(apiBaseURL: server.baseURL, stateDirectory: demoState)
            // A first real demo runs the weeks before last week first, as the schedule would
            // have, so that the history and the chart have weeks to show.
            var before = ""
            if !dryRun, !FileManager.default.fileExists(atPath: demoState + "/ledger.sqlite") {
                var quiet = output.logging.logger
                quiet.logLevel = .error
                for back in (1...Demo.earlierWeeks).reversed() {
                    let earlier = await demo.run(
                        flags, endDate: week.endDate.adding(days: -7 * back),
                        options: RunOptions(dryRun: false, json: false, style: .plain), readConfigFile: false,
                        logger: quiet
                    )
                    guard earlier.status == .ok else {
                        await server.stop()
                        try finish(earlier)
                    }
                }
                before =
                    "roundup demo: first ran the \(Demo.earlierWeeks) weeks before it, as the schedule would have\n"
            }
            var result = await demo.run(
                flags, endDate: week.endDate,
                options: RunOptions(dryRun: dryRun, json: output.json, style: output.style), readConfigFile: false,
                logger: output.logging.logger)
            await server.stop()

            if !output.json, result.report != nil {
                // The summary ends with the report's path; what to look at next follows it,
                // with only the programs this machine has (a container may have no pager or
                // browser).
                var next = ["", "Next:"]
                let has = { (name: String) in Demo.onPath(name, searchPath: live.environment["PATH"]) }
                let quoted = Demo.shellWord
                if let path = result.reportPath, let pager = ["less", "more"].first(where: has) {
                    next.append("  \(pager) \(quoted(path))   # the week's whole report")
                }
                if !dryRun {
                    let chart = "\(demoState)/reports/savings.html"
                    next.append(
                        has("xdg-open")
                            ? "  xdg-open \(quoted(chart))   # the savings chart, in a browser"
                            : "  the savings chart, for a browser: \(chart)")
                }
                next.append(
                    "  \(quoted(live.executable)) history --state-dir \(quoted(demoState))   # every week so far")
                result.output =
                    "roundup demo: the emulated bank is at \(server.baseURL); state in \(demoState)\n" + before + "\n"
                    + result.output + next.joined(separator: "\n") + "\n"
            }
            try finish(result)
        }
    }
}
