import CurlHTTP
public import Foundation
public import Logging
public import RoundUp
public import RoundUpHost
public import RoundUpLedger
import RoundUpOutput
public import RoundUpReports
public import RoundUpVocabulary
import RoundUpWeek
import StarlingAPI

/// What `roundup run` was asked to do, as typed values.
public struct RunRequest: Sendable {
    /// The week asked for: `--end-date`'s, or the newest finished week ending on `weekEndsOn`.
    public var week: Week
    public var dryRun: Bool
    /// Run every finished week ending on `weekEndsOn` since each account's newest such week
    /// in the ledger, oldest first, up to `week` (at most `Runner.catchUpLimit` weeks per run).
    public var catchUp: Bool

    public init(week: Week, dryRun: Bool = false, catchUp: Bool = false) {
        self.week = week
        self.dryRun = dryRun
        self.catchUp = catchUp
    }

    /// The week ending `endDate`, or the newest finished one ending on `weekEndsOn`;
    /// refused while it has not ended.
    public static func week(
        endingOn endDate: LocalDate?, now: Instant, in timeZone: TimeZone, weekEndsOn: Weekday
    ) throws(CommandFailure) -> Week {
        guard let endDate else { return Week.newest(endingOn: weekEndsOn, before: now, in: timeZone) }
        let week = Week(endingOn: endDate, in: timeZone)
        guard week.hasEnded(at: now) else {
            let today = Week.localDate(of: now, in: timeZone)
            throw CommandFailure(
                .usage,
                "the week ending \(endDate) has not ended yet (today is \(today) in \(timeZone.identifier)); "
                    + "give an end date before today")
        }
        return week
    }
}

/// Carries out `roundup run` with settings and a token already in hand: opens the state
/// directory, connects to the bank, runs the job for each week asked for, and writes and
/// summarises the reports.
public enum Runner {
    /// Weeks a catch-up run covers at most; a longer gap is closed over several runs.
    public static let catchUpLimit = 8

    /// Runs `request` in the state directory it opens itself (`stateDirectory(for:settings:)`);
    /// `clock` stamps reports and ledger entries, and `printout` makes standard output.
    public static func run(
        _ request: RunRequest, printout: RunPrintout, settings: Settings, token: AccessToken,
        clock: @escaping @Sendable () -> Instant, logger: Logger, progress: RunProgress? = nil
    ) async -> CommandResult {
        let state: StateDirectory
        do throws(CommandFailure) {
            state = try await stateDirectory(for: request, settings: settings)
        } catch {
            return .failure(error)
        }
        let result = await run(
            request, printout: printout, in: state, settings: settings, token: token, clock: clock, logger: logger,
            progress: progress)
        withExtendedLifetime(state) {}
        return result
    }

    /// The state directory `request` runs in: for a dry run the ledger as it is, read into
    /// memory; for a real run opened and locked, waiting up to `lockWait` for another run.
    public static func stateDirectory(for request: RunRequest, settings: Settings) async throws(CommandFailure)
        -> StateDirectory
    {
        // A dry run reads the ledger as it is and writes nothing, anywhere.
        guard !request.dryRun else {
            return try StateDirectory.read(settings.state.directory, weekZone: settings.rules.timeZone)
        }
        // A run that SSLKEYLOGFILE stops says so at once, not after waiting for the lock.
        _ = try BankClient.guardKeyLog(settings.bank, movesMoney: true)
        return try await StateDirectory.open(
            settings.state.directory, lockWait: settings.state.lockWait, weekZone: settings.rules.timeZone)
    }

    /// Runs `request` in `state`, which the caller opened for it (`stateDirectory(for:settings:)`)
    /// and keeps, with its lock, until it is done with it; `clock` stamps reports and ledger
    /// entries, and `printout` makes standard output of the weeks as they end.
    public static func run(
        _ request: RunRequest, printout: RunPrintout, in state: StateDirectory, settings: Settings,
        token: AccessToken, clock: @escaping @Sendable () -> Instant, logger: Logger, progress: RunProgress? = nil
    ) async -> CommandResult {
        // From here on every log line passes through a filter that removes the token.
        let logger = redacting(logger, token: token)
        let bank: BankClient
        var weeks = [request.week]
        var notes: [String] = []
        var laterReports = LaterReports.Said()
        // The ledger, read once: what every step before the weeks asks of it.
        let recorded: Result<RecordedWeeks, any Error> = Result { try RecordedWeeks(state.ledger) }
        do throws(CommandFailure) {
            if let warning = try BankClient.guardKeyLog(settings.bank, movesMoney: !request.dryRun) {
                notes.append(warning)
            }
            // Where reports go is checked before anything is asked of the bank.
            if !request.dryRun { try checkReportDirectory(settings.state.reportDirectory) }
            bank = try BankClient.connect(
                bank: settings.bank, token: token, lanes: settings.bank.concurrency,
                retryPolicy: settings.bank.retryPolicy, clock: clock, logger: logger)
            if !request.dryRun {
                notes += state.tighten(reportDirectory: settings.state.reportDirectory)
                // Said by the run that changed the ledger's schema, so once.
                notes += state.ledger.notices
                // A report an earlier run did not write (it stopped after recording the week,
                // or the disk was full), written now from the ledger.
                laterReports = LaterReports.write(
                    from: state.ledger, recorded: recorded, to: settings.state.reportDirectory, token: token,
                    zone: settings.rules.timeZone, at: clock())
                notes += laterReports.written
            }
            if request.catchUp {
                let (catchUp, said) = try catchUpWeeks(
                    recorded, in: state, through: request.week, weekEndsOn: settings.rules.weekEndsOn)
                weeks = catchUp
                notes += said
            } else if request.week.endDate.weekday == settings.rules.weekEndsOn {
                let found = try? recorded.get()
                notes += CatchUp.leftBehindNotes(
                    entries: found?.weeks ?? [], before: request.week, known: found?.known ?? [:])
            }
        } catch {
            return .failure(error)
        }
        let ledger = state.ledger
        progress?.onSettle { ledger.settle() }
        let job = WeeklyJob(
            bank: bank, ledger: state.ledger, settings: settings, logger: logger, version: roundupVersion, now: clock,
            progress: progress)
        var run = WeekRuns(
            request: request, printout: printout, reportDirectory: settings.state.reportDirectory, token: token,
            startedAt: clock(), ledger: request.dryRun ? nil : state.ledger)
        if !laterReports.failed.isEmpty {
            run.result.said += laterReports.failed.map { Diagnostic(.failure, $0) }
            run.result.status = .configuration
        }
        var daily = DailyRequests(
            ledger: state.ledger, counts: !request.dryRun, perDay: settings.bank.maxRequestsPerDay, now: clock())
        notes += await runWeeks(
            weeks, job: job, recorded: (try? recorded.get()) ?? nil, bank: bank, daily: &daily, run: &run)
        guard !request.dryRun else { return run.finish(notes: notes, waiting: nil) }
        // What the weeks left in the ledger: the weeks the run worked on, read again.
        let after = Result { () throws -> RecordedWeeks in
            try recorded.get().rereading(weeksEnding: Set(weeks.map(\.endDate)), from: state.ledger)
        }
        return finish(&run, after: after, ledger: state.ledger, settings: settings, notes: notes, at: clock())
    }

    /// What a real run says once its weeks are done, from `after`, the ledger's weeks as they
    /// left them: the savings chart, the good news, and, until a person settles them, the
    /// earlier weeks that wait for one, last.
    private static func finish(
        _ run: inout WeekRuns, after: Result<RecordedWeeks, any Error>, ledger: Ledger, settings: Settings,
        notes: [String], at now: Instant
    ) -> CommandResult {
        run.drawSavings(recorded: after, ledger: ledger, at: now)
        // Good news is for a run that did its work: one that could not reach the bank says so
        // in its summary instead.
        if settings.watch.weekly, run.result.status == .ok || !run.result.tally.moved.isEmpty,
            let entries = try? after.get().weeks
        {
            run.result.savingsNews = SavingsNews.line(
                moved: run.result.tally.moved, weeks: run.result.tally.weeks, entries: entries,
                currentYear: Week.localDate(of: now, in: settings.rules.timeZone).year)
        }
        let waiting = heldNote(in: try? after.get(), shown: run.heldShown)
        if waiting != nil { run.result.status = ExitStatus.overall([run.result.status, .configuration]) }
        return run.finish(notes: notes, waiting: waiting)
    }

    /// Runs `weeks` in order into `run`, counting each week's requests; the notes say why
    /// it stopped early. One account's failed or held week does not hold up later weeks; a
    /// week that could not start (no bank, a rejected token) stops the run, and so does the
    /// daily request allowance in a catch-up; the next run continues.
    private static func runWeeks(
        _ weeks: [Week], job: WeeklyJob, recorded: RecordedWeeks?, bank: BankClient, daily: inout DailyRequests,
        run: inout WeekRuns
    ) async -> [String] {
        var notes: [String] = []
        for week in weeks {
            if run.request.catchUp, let stop = daily.stop(before: week) { return notes + [stop] }
            let (retriesBefore, sentBefore) = (bank.retrier.budget.retries, await bank.pacer.sent)
            let weekRun = await job.run(week: week, dryRun: run.request.dryRun, recorded: recorded)
            // Said once, however many weeks the bank answers the same way.
            notes += weekRun.notes.filter { !notes.contains($0) }
            var report = weekRun.report
            let retries = bank.retrier.budget.retries - retriesBefore
            if retries > 0 { report.retries = retries }
            let cost = await bank.pacer.sent - sentBefore
            report.record(requests: cost)
            daily.record(cost)
            run.record(report, changedNothing: weekRun.changedNothing)
            if report.error != nil {
                guard week != weeks.last else { return notes }
                return notes + [
                    "stopped after the week ending \(week.endDate); the next --catch-up run continues from it"
                ]
            }
        }
        return notes
    }

    /// The report directory, created if missing, or why reports cannot go there: another
    /// user owns it, or others can write to it and could plant links where reports go.
    private static func checkReportDirectory(_ path: String) throws(CommandFailure) {
        do {
            _ = try ReportWriter.openDirectory(path)
        } catch {
            throw CommandFailure(.configuration, error.description)
        }
    }

    /// A reminder of the weeks that wait for a person, other than those this run reported.
    private static func heldNote(in recorded: RecordedWeeks?, shown: Set<AccountWeekKey>) -> String? {
        guard let entries = recorded?.weeks else { return nil }
        let waiting = entries.filter { $0.status == .held && !shown.contains($0.key) }
        guard !waiting.isEmpty else { return nil }
        let weeks = waiting.map { "\($0.label), week ending \($0.weekEnd)" }.joined(separator: "; ")
        return "\(waiting.count) earlier week(s) wait for a person (\(weeks)): `roundup resolve` lists and settles them"
    }

    /// The weeks of a catch-up run, or why the ledger could not say.
    private static func catchUpWeeks(
        _ recorded: Result<RecordedWeeks, any Error>, in state: StateDirectory, through target: Week,
        weekEndsOn: Weekday
    ) throws(CommandFailure) -> ([Week], [String]) {
        do {
            let found = try recorded.get()
            return CatchUp.weeks(
                entries: found.weeks, through: target, weekEndsOn: weekEndsOn, limit: catchUpLimit, known: found.known)
        } catch {
            throw CommandFailure(.configuration, "cannot read the ledger in \(state.path): \(plainDescription(error))")
        }
    }
}

/// The weeks of one run as they finish: each week's report written, its problems said, and
/// each handed to the printout, which gives the output once all are done.
private struct WeekRuns {
    let request: RunRequest
    var printout: RunPrintout
    let reportDirectory: String
    let token: AccessToken
    /// When the run began: it names the run's reports.
    let startedAt: Instant
    var result = CommandResult(status: .ok, output: "")
    /// The held account-weeks this run's reports show.
    var heldShown: Set<AccountWeekKey> = []
    /// Each goal's progress as the run's newest report of it gives it, by goal uid.
    var goals: [String: GoalProgress] = [:]
    /// Where a week whose report cannot be written is marked, for a later run to write it;
    /// nil for a dry run.
    let ledger: Ledger?

    init(
        request: RunRequest, printout: RunPrintout, reportDirectory: String, token: AccessToken, startedAt: Instant,
        ledger: Ledger?
    ) {
        self.request = request
        self.printout = printout
        self.ledger = ledger
        self.reportDirectory = reportDirectory
        self.token = token
        self.startedAt = startedAt
    }

    /// The week owed its report from the moment it was recorded; it is written now.
    private func paid(_ report: WeekReport) {
        try? ledger?.clearReportMissing(weekEnd: report.week.endDate, accountUids: report.accounts.map(\.accountUid))
    }

    mutating func record(_ report: WeekReport, changedNothing: Bool) {
        result.report = report
        result.tally.add(report)
        result.status = ExitStatus.overall([result.status, report.exitCode])
        do {
            // A dry run's proposal goes to standard output only; a rerun that changed
            // nothing leaves the week's report as it is.
            result.reportPath = nil
            if !request.dryRun, !changedNothing {
                result.reportPath = try ReportWriter.write(report, to: reportDirectory, token: token, at: startedAt)
                paid(report)
            }
        } catch let failure as ReportWriter.LinkFailure {
            // The report is there; only its link is not: nothing for a later run to write.
            result.reportPath = failure.path
            paid(report)
            result.said.append(Diagnostic(.failure, plainDescription(failure)))
            if result.status == .ok { result.status = .configuration }
        } catch {
            // The ledger has what the week decided: a later run writes the report from it.
            let marked =
                (try? ledger?.markReportMissing(
                    weekEnd: report.week.endDate, accountUids: report.accounts.map(\.accountUid))) != nil
            let later = marked ? "; the next run writes it from the ledger" : ""
            result.said.append(
                Diagnostic(
                    .failure,
                    "could not write the report to \(reportDirectory): \(plainDescription(error))\(later)"))
            if result.status == .ok { result.status = .configuration }
        }
        if let error = report.error { result.said.append(Diagnostic(.failure, error)) }
        // A failed week is said on stderr too; a held one only in the summary (and the
        // --quiet line), which says what to do.
        for account in report.accounts where account.status.kind == .failedOrWaiting {
            let said = "\(account.label): \(account.detail ?? account.status.word)"
            if account.status == .held {
                heldShown.insert(AccountWeekKey(accountUid: account.accountUid, weekEnd: report.week.endDate))
                result.held.append(said)
            } else {
                result.said.append(Diagnostic(.failure, said))
            }
        }
        printout.add(
            report, reportPath: result.reportPath,
            unchangedNote: changedNothing && !request.dryRun
                ? ReportWriter.unchangedNote(week: report.week.endDate, in: reportDirectory) : nil)
        // Each goal a week moved into: its one goal, or each of its legs'.
        for account in report.accounts {
            for goal in [account.goal].compactMap({ $0 }) + account.legs.map(\.goal) {
                guard let uid = goal.uid, let saved = goal.saved else { continue }
                goals[uid] = GoalProgress(
                    name: goal.name, currency: account.currency, saved: saved.minorUnits,
                    target: goal.target?.minorUnits)
            }
        }
    }

    /// Records the goals this run saw, then writes the saver's chart (`savings.svg`,
    /// `savings.html`) beside the reports, from every week the ledger has (`recorded`, as
    /// the run left them) and each goal's progress as last recorded.
    mutating func drawSavings(recorded: Result<RecordedWeeks, any Error>, ledger: Ledger, at time: Instant) {
        do {
            try ledger.record(goals: goals, at: time)
            let chart = SavingsChart(savings: Savings(try recorded.get().weeks), goals: try ledger.goals())
            try chart.write(to: reportDirectory, token: token)
        } catch {
            result.said.append(
                Diagnostic(
                    .failure, "could not write the savings chart to \(reportDirectory): \(plainDescription(error))"))
            if result.status == .ok { result.status = .configuration }
        }
    }

    /// The result, with `notes` said last, then `waiting` (earlier weeks that wait for a
    /// person, a reason the run did not end well), and the token scrubbed from everything printed.
    func finish(notes: [String], waiting: String?) -> CommandResult {
        var result = result
        result.said += notes.map { Diagnostic(.note, $0) }
        if let waiting { result.said.append(Diagnostic(.failure, waiting)) }
        result.output = printout.text(savingsNews: result.savingsNews)
        // Defence in depth: nothing the run prints may contain the token.
        result.output = token.redacted(in: result.output)
        result.said = result.said.map { said in
            var said = said
            said.text = token.redacted(in: said.text)
            return said
        }
        return result
    }
}
