public import RoundUp
public import RoundUpReports
public import RoundUpVocabulary

/// How a command ended: what to print and the exit status.
public struct CommandResult: Sendable {
    public var status: ExitStatus
    /// For stdout.
    public var output: String
    /// For stderr, in the order said; never contains the token.
    public var said: [Diagnostic]
    public var report: WeekReport?
    public var reportPath: String?
    /// What a run's weeks came to, for the ledger's run record, the monitor and the metrics.
    public var tally = RunTally()
    /// What a real run saved, in one line, when `notify.weekly` asks for it: printed even
    /// by `run --quiet`.
    public var savingsNews: String?
    /// Each account-week this run held for a person, as the summary says it: shown once,
    /// there, and named by the --quiet line and the run's row when nothing else went wrong.
    public var held: [String] = []

    public init(
        status: ExitStatus, output: String, said: [Diagnostic] = [], report: WeekReport? = nil,
        reportPath: String? = nil
    ) {
        self.status = status
        self.output = output
        self.said = said
        self.report = report
        self.reportPath = reportPath
    }

    /// The lines standard error gets, in order.
    public var diagnostics: [String] { said.map(\.line) }

    /// Why the run did not end well, as its one line gives it: the first failure said, else
    /// the first held account-week; nil for a run that ended well.
    public var reason: String? {
        guard status != .ok else { return nil }
        return reasonSaid.map { said[$0].text } ?? held.first
    }

    /// Where in `said` the reason is, when a failure said gives it.
    private var reasonSaid: Int? {
        status == .ok ? nil : said.firstIndex { $0.severity == .failure }
    }

    /// The result with `problems` of recording or telling the run said on stderr, even by
    /// `run --quiet`.
    public func adding(watchProblems problems: [String]) -> CommandResult {
        var result = self
        result.said += problems.map { Diagnostic(.failure, $0, audience: .everyone) }
        return result
    }

    /// What `run --quiet` prints of this result: nothing when every account-week ended done
    /// or with nothing to move, else the run's one line (`RunWatch.summary`), with stderr
    /// keeping what that line does not already give; notify.weekly's line and what went
    /// wrong in recording the run are said all the same.
    public func quieted() -> CommandResult {
        var result = self
        let allWell = status == .ok && tally.held == 0 && tally.unconfirmed == 0 && tally.failed == 0
        result.output = allWell ? "" : RunWatch.summary(of: self) + "\n"
        if let news = savingsNews { result.output += news + "\n" }
        if allWell {
            result.said = said.filter { $0.audience == .everyone }
        } else if let reason = reasonSaid {
            // The line gives the reason: stderr gives the rest.
            result.said.remove(at: reason)
        }
        return result
    }

    /// A command that stopped before it could do its work, saying why on stderr.
    public static func failure(_ failure: CommandFailure) -> CommandResult {
        CommandResult(status: failure.status, output: "", said: [Diagnostic(.failure, failure.message)])
    }
}

/// What the weeks of a run came to, in counts and totals only.
public struct RunTally: Sendable, Equatable {
    /// The weeks run, by end date, oldest first.
    public var weeks: [LocalDate] = []
    /// Account-weeks that ended well: moved, found moved, nothing to move, skipped or given up.
    public var done = 0
    public var held = 0
    /// Account-weeks left with a transfer not known to have arrived (partly transferred ones
    /// too: some of their transfers arrived, the rest not yet).
    public var unconfirmed = 0
    public var failed = 0
    /// Transfers this run made, and what they moved by currency code, in minor units.
    public var transfers = 0
    public var moved: [String: Int64] = [:]
    /// The goals those transfers went into, by name, each once, in the order first moved into.
    public var savedInto: [String] = []
    /// Requests sent to the bank.
    public var requests = 0
    /// Weeks that stopped before any account was worked on (a refused token, no bank).
    public var weekErrors = 0

    public init() {}

    /// Adds one week's report.
    public mutating func add(_ report: WeekReport) {
        weeks.append(report.week.endDate)
        requests += report.requests ?? 0
        if report.error != nil { weekErrors += 1 }
        for account in report.accounts {
            switch account.status {
            case .held: held += 1
            case .unconfirmed, .partlyTransferred: unconfirmed += 1
            case .failed: failed += 1
            case .dryRun: break
            case .transferred:
                done += 1
                transfers += 1
                moved[account.currency, default: 0] += account.totalMinorUnits ?? 0
                let goals =
                    account.legs.isEmpty
                    ? [account.goal?.name].compactMap { $0 }
                    : account.legs.filter { $0.amount.minorUnits > 0 }.map(\.goal.name)
                savedInto += goals.filter { !savedInto.contains($0) }
            case .alreadyTransferred, .nothingToMove, .heldBack, .skipped, .abandoned: done += 1
            }
        }
    }
}

extension SettingsError {
    /// This error as a reason to stop.
    public var failure: CommandFailure { CommandFailure(exitStatus, message) }
}
