import ArgumentParser
import Foundation
import RoundUp
import RoundUpOutput
import RoundUpVocabulary
import StarlingEmulator

extension Roundup {
    struct Emulator: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the bank emulator on 127.0.0.1 for trying things by hand.",
            discussion: """
                Seeded with the demo week that ended last Sunday (\(Week.defaultTimeZoneIdentifier)), the week a \
                plain run rounds up. Point a run at it, with the emulator's token.

                Examples:
                  roundup emulator --port 8080 &
                  export STARLING_ACCESS_TOKEN=\(Seed.demoToken)
                  roundup run --api-base-url http://127.0.0.1:8080 --state-dir /tmp/try
                """
        )

        @Option(help: "Port to listen on; 0 picks a free one.")
        var port: UInt16 = 8080

        @Option(
            help: ArgumentHelp("Last day of the seeded week; default last Sunday.", valueName: "YYYY-MM-DD"),
            transform: LocalDate.fromArgument)
        var endDate: LocalDate?

        @Option(
            help: ArgumentHelp(
                "Percentage of requests to fail transiently (5xx, 429, dropped connections, garbled bodies, …), "
                    + "to watch the job retry.", valueName: "percent"))
        var faultRate: Int = 0

        @Option(help: ArgumentHelp("Seed that chooses which requests fail, to repeat a sequence.", valueName: "n"))
        var faultSeed: UInt64 = 1

        @Option(
            help: ArgumentHelp(
                "Serve this many GBP accounts with generated card payments instead of the demo week (for benchmarks).",
                valueName: "n"))
        var accounts: Int?

        @Option(help: ArgumentHelp("Settled card payments per generated account and week.", valueName: "n"))
        var items: Int = 20

        @Option(
            help: ArgumentHelp(
                "Generate payments for this many weeks, ending with the seeded one (1 to 52; for catch-up benchmarks).",
                valueName: "n"))
        var weeks: Int = 1

        @Option(help: ArgumentHelp("Answer every request this many milliseconds late.", valueName: "ms"))
        var latency: Int = 0

        @Flag(
            help: ArgumentHelp(
                "Answer add-money that repeats a transfer uid as before and move nothing, which the bank does not "
                    + "promise; by default a repeat moves the money again."))
        var dedup = false

        @Flag(
            help: ArgumentHelp(
                "Show a transfer's reference on its feed items; the bank does not document whether it does, so by "
                    + "default they carry none."))
        var feedReference = false

        @Flag(help: ArgumentHelp("Write every uid in an answer in capitals, as the bank's pattern for uids allows."))
        var upperCaseUids = false

        @Flag(
            help: ArgumentHelp(
                "Leave each transfer's feed items UPCOMING, with no settlement time, as a transfer the bank has "
                    + "scheduled but not carried out."))
        var upcomingTransfers = false

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp(
                "Run the bank's clock this many seconds off the real one: positive is ahead, negative behind "
                    + "(-86400 to 86400). Stamps transfers in the feed, every answer's Date header and goal activation.",
                valueName: "seconds"))
        var clockOffset: Int = 0

        @Option(
            help: ArgumentHelp(
                "Create new goals in state CREATING, ACTIVE only after this many seconds (0 to 3600); add-money "
                    + "into them is refused until then.", valueName: "seconds"))
        var goalActivationDelay: Int = 0

        @Option(
            help: ArgumentHelp(
                "Answer at most this many requests in any second, the rest with 429 and Retry-After, as the bank "
                    + "limits a token (with --max-requests-per-day; 0: no limit).", valueName: "n"))
        var maxRequestsPerSecond: Int = 0

        @Option(help: ArgumentHelp("Answer at most this many requests a UTC day (0: no limit).", valueName: "n"))
        var maxRequestsPerDay: Int = 0

        @Option(
            help: ArgumentHelp(
                "Refuse add-money into the seeded goals of this name with 503, before moving anything, the first 2 "
                    + "times each is asked: a run's send and its one send again. A week saved into several goals "
                    + "(saveInto) is then partly transferred, and the next run finishes it.", valueName: "goal"))
        var failGoal: String?

        func validate() throws {
            guard weeks == 1 || accounts != nil else { throw ValidationError("--weeks needs --accounts") }
            guard maxRequestsPerSecond >= 0, maxRequestsPerDay >= 0 else {
                throw ValidationError("--max-requests-per-second and --max-requests-per-day must not be negative")
            }
            guard (-86_400...86_400).contains(clockOffset) else {
                throw ValidationError("--clock-offset must be from -86400 to 86400 seconds")
            }
            guard (0...3600).contains(goalActivationDelay) else {
                throw ValidationError("--goal-activation-delay must be from 0 to 3600 seconds")
            }
        }

        func run() async throws {
            guard let zone = Week.defaultTimeZone else { throw ExitCode(78) }
            let week =
                endDate.map { Week(endingOn: $0, in: zone) }
                ?? Week.newest(endingOn: Weekday.defaultWeekEnd, before: Composition.live.clock(), in: zone)
            guard (0...100).contains(faultRate) else { throw ValidationError("--fault-rate must be from 0 to 100") }
            guard (0...60_000).contains(latency) else { throw ValidationError("--latency must be from 0 to 60000") }
            let state: BankState
            var seeded = "week \(week)"
            if let accounts {
                guard (1...1000).contains(accounts), (0...1_000_000).contains(items), (1...52).contains(weeks) else {
                    throw ValidationError(
                        "--accounts must be from 1 to 1000, --items from 0 to 1000000 and --weeks from 1 to 52")
                }
                state =
                    Seed.benchmark(
                        accounts: accounts, items: items, endingOn: week.endDate, weeks: weeks, token: Seed.demoToken
                    ).state
                seeded +=
                    ", \(accounts) account(s) of \(items) payments" + (weeks > 1 ? " a week for \(weeks) weeks" : "")
            } else {
                state = Seed.realisticWeek(endingOn: week.endDate, timeZone: zone)
            }
            let behaviour = EmulatorBehaviour(
                deduplicatesTransfers: dedup, clockOffset: .seconds(clockOffset),
                goalActivationDelay: goalActivationDelay > 0 ? .seconds(goalActivationDelay) : nil,
                rateLimit: maxRequestsPerSecond > 0 || maxRequestsPerDay > 0
                    ? RateLimit(
                        perSecond: maxRequestsPerSecond > 0 ? maxRequestsPerSecond : Int.max,
                        perDay: maxRequestsPerDay > 0 ? maxRequestsPerDay : Int.max) : nil,
                feedReference: feedReference, upperCaseUids: upperCaseUids, transfersUpcoming: upcomingTransfers)
            let bank = EmulatedBank(state: state, behaviour: behaviour)
            var rules: [FaultRule] = []
            if faultRate > 0 {
                rules.append(
                    FaultRule(
                        when: .randomly(probability: Double(faultRate) / 100, seed: faultSeed),
                        faults: Fault.transientKinds
                    ))
            }
            if latency > 0 {
                rules.append(FaultRule(when: .always, faults: [.latency(.milliseconds(latency))]))
                seeded += ", \(latency) ms latency"
            }
            if let failGoal {
                let named = state.goals.values.joined().filter {
                    $0.name.compare(failGoal, options: .caseInsensitive) == .orderedSame
                }
                guard !named.isEmpty else {
                    throw ValidationError("--fail-goal: no seeded goal is named \"\(printable(failGoal))\"")
                }
                for goal in named {
                    rules.append(
                        FaultRule(
                            endpoints: [.addMoney], pathContains: goal.uid, when: .first(2), faults: [.serverError(503)]
                        ))
                }
                seeded += ", add-money into \"\(printable(failGoal))\" refused twice"
            }
            if dedup { seeded += ", repeated transfer uids deduplicated" }
            if clockOffset != 0 {
                seeded += ", clock \(abs(clockOffset)) s \(clockOffset > 0 ? "ahead" : "behind")"
            }
            if goalActivationDelay > 0 { seeded += ", new goals CREATING for \(goalActivationDelay) s" }
            if maxRequestsPerSecond > 0 { seeded += ", at most \(maxRequestsPerSecond) requests a second" }
            if maxRequestsPerDay > 0 { seeded += ", at most \(maxRequestsPerDay) requests a day" }
            await bank.injectFaults(rules)
            if let problem = Self.cannotListen(on: port) {
                try finish(.failure(CommandFailure(.unavailable, "cannot listen on 127.0.0.1:\(port): \(problem)")))
            }
            let server = try await EmulatorServer.start(bank: bank, port: port)
            let faults = faultRate > 0 ? "; failing \(faultRate)% of requests" : ""
            let banner = "Emulated bank listening on \(server.baseURL) (\(seeded)\(faults)); token: \(Seed.demoToken)\n"
            _ = writeAll(STDOUT_FILENO, banner)
            try await server.wait()
        }

        /// Why nothing can listen on `port` of the loopback address ("Address already in use"),
        /// found at once by binding it; nil when it is free (or 0, any free port).
        static func cannotListen(on port: UInt16) -> String? {
            guard port != 0 else { return nil }
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            // As the server itself: a port left in TIME_WAIT by an earlier run is free.
            var reuse: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            return bound == 0 ? nil : String(cString: strerror(errno))
        }
    }
}
