// The benchmark: roundup and a plain sequential client (plain-client) side by side, each
// run as its own process against the same emulator data, with the emulator in a process of
// its own. Reports wall time, the client's CPU time and peak memory, the connections the
// emulator saw, and checks that both clients moved the same money.
//
// Usage: roundup-bench [--runs N] [--quick]     (scripts/bench builds it for release)
// ROUNDUP_BENCH_ROUNDUP=<path> measures another build of roundup against this one's emulator.

import ChildProcess
import Foundation
import RoundUp
import StarlingEmulator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct Options {
    var runs = 3
    var quick = false
    var concurrency = 10
    var latency = 30

    init(_ arguments: [String]) {
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            switch argument {
            case "--runs": runs = rest.popFirst().flatMap(Int.init) ?? runs
            case "--quick": quick = true
            case "--concurrency": concurrency = rest.popFirst().flatMap(Int.init) ?? concurrency
            case "--latency": latency = rest.popFirst().flatMap(Int.init) ?? latency
            default:
                FileHandle.standardError.write(
                    Data("usage: roundup-bench [--runs N] [--quick] [--concurrency N] [--latency MS]\n".utf8))
                exit(64)
            }
        }
    }
}

enum Client: String, CaseIterable {
    case roundup
    case plain = "plain client"
}

struct Measurement {
    var wall: Double
    var cpu: Double
    var peakMemory: Int
    var connections: Int
    var requests: Int
    var moved: Int64
    /// The requests the emulator answered, by what each asks (`EmulatedBank.Statistics`).
    var byEndpoint: [String: Int] = [:]
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
}

let options = Options(CommandLine.arguments)
let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
/// The roundup measured: this build's, or another's (`ROUNDUP_BENCH_ROUNDUP`, to compare
/// against an earlier commit). The emulator is always this build's.
let roundupBinary = ProcessInfo.processInfo.environment["ROUNDUP_BENCH_ROUNDUP"] ?? directory + "/roundup"
let emulatorBinary = directory + "/roundup"
let plainBinary = directory + "/plain-client"
let token = Seed.demoToken
// A November week: London time is UTC, so the plain client's window is plain UTC midnights.
let endDate = "2026-11-15"
let windowStart = "2026-11-09T00:00:00.000Z"
let windowEnd = "2026-11-16T00:00:00.000Z"
let scratch = NSTemporaryDirectory() + "roundup-bench-" + UUID().uuidString
try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: scratch) }

/// Starts `roundup emulator` with generated accounts (payments in `weeks` weeks) and
/// returns it with its base URL.
func startEmulator(accounts: Int, items: Int, latency: Int, weeks: Int = 1) throws -> (Child, String) {
    let out = try closeOnExecPipe()
    let log = open(scratch + "/emulator.err", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    defer { close(log) }
    let child = try Child.spawn(
        emulatorBinary,
        [
            "emulator", "--port", "0", "--end-date", endDate, "--accounts", "\(accounts)", "--items", "\(items)",
            "--latency", "\(latency)", "--weeks", "\(weeks)",
        ],
        environment: ["PATH": "/usr/bin:/bin"], stdout: out.write, stderr: log)
    close(out.write)
    // The banner's first line names the URL: "Emulated bank listening on http://127.0.0.1:PORT (…".
    var line = Data()
    var byte: UInt8 = 0
    while read(out.read, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
    close(out.read)
    let text = String(decoding: line, as: UTF8.self)
    guard let range = text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else {
        kill(child.pid, SIGKILL)
        _ = child.wait()
        throw BenchError(description: "the emulator did not start: \(text)")
    }
    return (child, String(text[range]))
}

func statistics(_ baseURL: String) async throws -> EmulatedBank.Statistics {
    let (data, _) = try await URLSession.shared.data(from: URL(string: baseURL + "/_emulator/stats")!)
    return try JSONDecoder().decode(EmulatedBank.Statistics.self, from: data)
}

/// One run of one client against a fresh emulator.
func measure(
    _ client: Client, accounts: Int, items: Int, latency: Int, dryRun: Bool = false, config extra: String = "",
    perSecond: Int = 10000
) async throws -> Measurement {
    let (emulator, baseURL) = try startEmulator(accounts: accounts, items: items, latency: latency)
    defer {
        kill(emulator.pid, SIGTERM)
        _ = emulator.wait()
    }
    let run = scratch + "/\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
    let config = run + "/config.yaml"
    try "concurrency: \(options.concurrency)\n\(extra)".write(toFile: config, atomically: true, encoding: .utf8)
    let (executable, arguments): (String, [String]) =
        switch client {
        case .roundup:
            (
                roundupBinary,
                [
                    "run", "--end-date", endDate, "--api-base-url", baseURL, "--state-dir", run + "/state",
                    "--config", config,
                ] + (dryRun ? ["--dry-run"] : [])
            )
        case .plain:
            (plainBinary, [baseURL, windowStart, windowEnd])
        }
    let flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC
    let out = open(run + "/out", flags, 0o600)
    let err = open(run + "/err", flags, 0o600)
    let started = ContinuousClock.now
    let child = try Child.spawn(
        executable, arguments,
        // The emulator is on this machine: roundup is not held to the real bank's 5 requests a
        // second, which would measure the pacing rather than the client.
        environment: [
            "PATH": "/usr/bin:/bin", "HOME": run, "STARLING_ACCESS_TOKEN": token,
            "ROUNDUP_MAX_REQUESTS_PER_SECOND": "\(perSecond)",
        ], stdout: out, stderr: err)
    close(out)
    close(err)
    let (ending, usage) = child.waitWithUsage()
    let wall = ContinuousClock.now - started
    guard ending == .exit(0) else {
        let stderr = (try? String(contentsOfFile: run + "/err", encoding: .utf8)) ?? ""
        throw BenchError(description: "\(client.rawValue) ended \(ending): \(stderr)")
    }
    let stats = try await statistics(baseURL)
    try? FileManager.default.removeItem(atPath: run)
    let (seconds, attoseconds) = wall.components
    return Measurement(
        wall: Double(seconds) + Double(attoseconds) / 1e18, cpu: usage.cpuSeconds, peakMemory: usage.peakMemoryBytes,
        connections: stats.connections, requests: stats.requests, moved: stats.movedMinorUnits,
        byEndpoint: stats.byEndpoint)
}

/// What a week of one account costs in requests: a catch-up of `weeks` weeks of `accounts`
/// accounts (after a first run of the week before them), read from the catch-up's own
/// `--json` reports and checked against the requests the emulator saw.
func catchUpCost(accounts: Int, weeks: Int) async throws -> (
    accountWeeks: Int, requests: Int, byEndpoint: [String: Int]
) {
    let (emulator, baseURL) = try startEmulator(accounts: accounts, items: 20, latency: 0, weeks: weeks)
    defer {
        kill(emulator.pid, SIGTERM)
        _ = emulator.wait()
    }
    let run = scratch + "/\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: run) }
    let environment = [
        "PATH": "/usr/bin:/bin", "HOME": run, "STARLING_ACCESS_TOKEN": token,
        "ROUNDUP_MAX_REQUESTS_PER_SECOND": "10000",
    ]
    func roundup(_ arguments: [String]) throws -> Data {
        let out = open(run + "/out", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        let child = try Child.spawn(
            roundupBinary, arguments + ["--api-base-url", baseURL, "--state-dir", run + "/state"],
            environment: environment, stdout: out, stderr: null)
        close(out)
        close(null)
        guard child.wait() == .exit(0) else { throw BenchError(description: "roundup \(arguments) failed") }
        return try Data(contentsOf: URL(fileURLWithPath: run + "/out"))
    }
    let before = String(LocalDate(iso: endDate)!.adding(days: -7 * weeks).description)
    _ = try roundup(["run", "--end-date", before])
    let statsBefore = try await statistics(baseURL)
    let seen = statsBefore.requests
    let output = try roundup(["run", "--catch-up", "--end-date", endDate, "--json"])
    struct Report: Decodable {
        struct Account: Decodable {}
        var accounts: [Account]
        var requests: Int
    }
    let reports = try JSONDecoder().decode([Report].self, from: output)
    let requests = reports.reduce(0) { $0 + $1.requests }
    let after = try await statistics(baseURL)
    guard reports.count == weeks, after.requests - seen == requests else {
        throw BenchError(description: "the catch-up's reports do not add up to what the emulator saw")
    }
    let byEndpoint = after.byEndpoint.mapValues { $0 }.merging(
        statsBefore.byEndpoint.mapValues { -$0 }, uniquingKeysWith: +)
    return (reports.reduce(0) { $0 + $1.accounts.count }, requests, byEndpoint.filter { $0.value != 0 })
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

/// The median of `options.runs` runs of each client, alternating between them.
func compare(accounts: Int, items: Int, latency: Int) async throws -> [Client: Measurement] {
    var runs: [Client: [Measurement]] = [:]
    for _ in 0..<options.runs {
        for client in Client.allCases {
            runs[client, default: []].append(
                try await measure(client, accounts: accounts, items: items, latency: latency))
        }
    }
    var result: [Client: Measurement] = [:]
    for (client, list) in runs {
        result[client] = Measurement(
            wall: median(list.map(\.wall)), cpu: median(list.map(\.cpu)),
            peakMemory: Int(median(list.map { Double($0.peakMemory) })),
            connections: list.map(\.connections).max() ?? 0,
            requests: list.map(\.requests).max() ?? 0, moved: list[0].moved,
            byEndpoint: list.max { $0.requests < $1.requests }?.byEndpoint ?? [:])
        guard Set(list.map(\.moved)).count == 1 else { throw BenchError(description: "\(client) moved different sums") }
    }
    guard result[.roundup]?.moved == result[.plain]?.moved, (result[.roundup]?.moved ?? 0) > 0 else {
        throw BenchError(
            description: "the clients moved different money: roundup \(result[.roundup]?.moved ?? -1), "
                + "plain \(result[.plain]?.moved ?? -1) (\(accounts) accounts, \(items) items)")
    }
    return result
}

func seconds(_ value: Double) -> String {
    value < 10 ? String(format: "%.3f s", value) : String(format: "%.1f s", value)
}
func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
func ratio(_ a: Double, _ b: Double) -> String { b > 0 ? String(format: "%.2f×", a / b) : "—" }

nonisolated(unsafe) var rows: [[String]] = []
@MainActor func row(
    _ label: String, _ results: [Client: Measurement], _ value: (Measurement) -> Double,
    _ format: (Double) -> String, target: String
) {
    guard let ours = results[.roundup], let theirs = results[.plain] else { return }
    rows.append([label, format(value(ours)), format(value(theirs)), ratio(value(ours), value(theirs)), target])
}

print(
    "roundup-bench: \(options.runs) run(s) of each client per line (medians); roundup concurrency \(options.concurrency)"
)
print(
    "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; emulator latency \(options.latency) ms for wall times"
)
print(
    "roundup runs with ROUNDUP_MAX_REQUESTS_PER_SECOND=10000: the emulator is on this machine; the default 5 is for the real bank"
)
print("")
var weekly: [String: Int] = [:]
for accounts in [1, 10] {
    let results = try await compare(accounts: accounts, items: 20, latency: options.latency)
    if accounts == 10 { weekly = results[.roundup]?.byEndpoint ?? [:] }
    row(
        "wall time, \(accounts) account\(accounts == 1 ? "" : "s") × 20 payments, \(options.latency) ms latency",
        results, \.wall, seconds, target: accounts == 10 ? "≤ 0.30×" : "")
    if accounts == 10 {
        row(
            "connections opened, 10 accounts", results, { Double($0.connections) }, { String(Int($0)) },
            target: "roundup ≤ \(options.concurrency) + 1 per transfer")
        row("requests, 10 accounts", results, { Double($0.requests) }, { String(Int($0)) }, target: "")
        row(
            "requests per account-week, 1 week of 10 accounts", results, { Double($0.requests) / 10 },
            { String(format: "%.1f", $0) }, target: "")
    }
}
// The longest chain of requests that wait for each other in one account-week: with every
// answer 250 ms late and lanes to spare, a run of one account takes about that many
// latencies, less the run's two first requests (the token, the accounts). Reading what the
// bank has scheduled (upcomingPayments: count) goes beside the feed, so the chain is as long
// as without it (ignore, the job before the forecast).
for upcoming in ["count", "ignore"] {
    var walls: [Double] = []
    for _ in 0..<options.runs {
        walls.append(
            try await measure(
                .roundup, accounts: 1, items: 20, latency: 250, config: "upcomingPayments: \(upcoming)\n"
            ).wall)
    }
    rows.append([
        "longest chain of dependent requests per account-week, upcomingPayments: \(upcoming)",
        String(Int((median(walls) / 0.25).rounded(.down)) - 2), "—", "—", upcoming == "count" ? "= ignore's" : "",
    ])
}
// At the real bank's pace: every request waits its turn under 5 a second.
var paced: [Double] = []
for _ in 0..<max(1, options.runs / 3) {
    paced.append(try await measure(.roundup, accounts: 10, items: 20, latency: options.latency, perSecond: 5).wall)
}
rows.append([
    "wall time, 10 accounts × 20 payments, at the bank's 5 requests a second", seconds(median(paced)), "—", "—", "",
])
let catchUp = try await catchUpCost(accounts: 10, weeks: 4)
rows.append([
    "requests per account-week, catch-up of 4 weeks × 10 accounts",
    String(format: "%.1f", Double(catchUp.requests) / Double(catchUp.accountWeeks)), "—", "—", "",
])
for items in options.quick ? [1_000, 10_000] : [1_000, 10_000, 100_000] {
    let results = try await compare(accounts: 1, items: items, latency: 0)
    let label = items.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_GB")))
    row("client CPU, \(label) payments", results, \.cpu, seconds, target: items == 100_000 ? "≤ 0.50×" : "")
    row(
        "peak memory, \(label) payments", results, { Double($0.peakMemory) }, { megabytes(Int($0)) },
        target: items == 100_000 ? "roundup < 100 MB" : "")
    row("wall time, \(label) payments, no latency", results, \.wall, seconds, target: "")
}

// Overhead: start-up alone, and a dry run of a week with nothing to move, roundup only.
var startups: [Child.Usage] = []
var startupWalls: [Double] = []
for _ in 0..<max(options.runs, 5) {
    let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
    let started = ContinuousClock.now
    let child = try Child.spawn(roundupBinary, ["--version"], environment: [:], stdout: null, stderr: null)
    close(null)
    let (_, usage) = child.waitWithUsage()
    let (seconds, attoseconds) = (ContinuousClock.now - started).components
    startupWalls.append(Double(seconds) + Double(attoseconds) / 1e18)
    startups.append(usage)
}
rows.append(["start-up (`roundup --version`): wall time", seconds(median(startupWalls)), "—", "—", ""])
rows.append([
    "start-up: peak memory", megabytes(Int(median(startups.map { Double($0.peakMemoryBytes) }))), "—", "—", "",
])
var idle: [Measurement] = []
for _ in 0..<options.runs {
    idle.append(try await measure(.roundup, accounts: 1, items: 0, latency: 0, dryRun: true))
}
rows.append(["dry run of a week with nothing to move: wall time", seconds(median(idle.map(\.wall))), "—", "—", ""])
rows.append(["dry run of a week with nothing to move: CPU", seconds(median(idle.map(\.cpu))), "—", "—", ""])
rows.append([
    "dry run of a week with nothing to move: peak memory", megabytes(Int(median(idle.map { Double($0.peakMemory) }))),
    "—", "—", "",
])
/// The size of `binary` with its symbols stripped, as `scripts/install` installs it.
func strippedSize(_ binary: String) -> Int? {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strip") else { return nil }
    let copy = scratch + "/stripped-" + URL(fileURLWithPath: binary).lastPathComponent
    try? FileManager.default.removeItem(atPath: copy)
    guard (try? FileManager.default.copyItem(atPath: binary, toPath: copy)) != nil,
        let child = try? Child.spawn("/usr/bin/strip", [copy], environment: [:], stdout: 2, stderr: 2),
        child.wait() == .exit(0)
    else { return nil }
    return (try? FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int) ?? nil
}
if let size = strippedSize(roundupBinary), let plainSize = strippedSize(plainBinary) {
    rows.append([
        "binary size, stripped (Swift runtime and Foundation shared)", megabytes(size), megabytes(plainSize),
        ratio(Double(size), Double(plainSize)), "",
    ])
}

let header = ["measure", "roundup", "plain client", "roundup ÷ plain", "target"]
print("| " + header.joined(separator: " | ") + " |")
print("|---|---:|---:|---:|---|")
for row in rows { print("| " + row.joined(separator: " | ") + " |") }
print("")
print("Both clients moved the same money in every run.")
print("")
print(
    Floor.table(
        weekly: weekly, weeklyAccountWeeks: 10, catchUp: catchUp.byEndpoint, catchUpAccountWeeks: catchUp.accountWeeks,
        // Seed.benchmark gives each account one goal.
        accounts: 10, goals: 10))
