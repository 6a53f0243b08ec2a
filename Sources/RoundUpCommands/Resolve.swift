import CurlHTTP
import Foundation
public import Logging
public import RoundUp
public import RoundUpHost
import RoundUpLedger
import RoundUpOutput
import RoundUpReports
import RoundUpVocabulary
import RoundUpWeeklyRun
import StarlingAPI

/// What a person asks `roundup resolve` to do with a held or unconfirmed account-week.
public enum Resolution: Sendable, Equatable {
    /// Look in the account's feed again; record the week as arrived if its transfer is there.
    case check
    /// Record this feed item as the week's transfer, as a person says it is: once the feed
    /// shows it moved into the week's goal, of its amount, and no other week accounts for it.
    case accept(feedItem: String)
    /// Send the transfer again now, with the same transfer uid, amount and goal.
    case retry
    /// Send it to this goal (a name or a uid) instead, with a new transfer uid. Later feed
    /// checks look at both goals.
    case redirect(goal: String)
    /// Give the week up: its money stays in the account, and no run moves it.
    case abandon(reason: String)

    /// Whether carrying it out talks to the bank (and so needs the token).
    public var needsBank: Bool {
        if case .abandon = self { return false }
        return true
    }
}

/// `roundup resolve`: lists the account-weeks a person must look at, and settles one.
public enum Resolve {
    /// The held and unconfirmed account-weeks in the ledger of `stateDirectory`, with the reason.
    public static func list(stateDirectory: String) -> CommandResult {
        let path = Ledger.path(in: stateDirectory)
        guard FileManager.default.fileExists(atPath: path) else {
            return CommandResult(
                status: .ok, output: "No ledger in \(stateDirectory): nothing to resolve.\n")
        }
        let entries: [AccountWeek]
        do {
            entries = try Ledger.readOnlyCopy(of: path).accountWeeks().filter {
                $0.status == .held || $0.status == .pending
            }
        } catch {
            return .failure(
                CommandFailure(.configuration, "cannot read the ledger \(path): \(plainDescription(error))"))
        }
        guard !entries.isEmpty else {
            return CommandResult(
                status: .ok, output: "Nothing to resolve: no week is held or unconfirmed.\n")
        }
        var lines: [String] = []
        for entry in entries {
            let into =
                entry.hasSeveralLegs
                ? ": "
                    + entry.legs.map { leg in
                        "\(entry.words(of: [leg])) (\(leg.status.transferWord), leg \(leg.index), transfer "
                            + "\(leg.transferUid ?? "none"))"
                    }.joined(separator: ", ")
                : " into \"\(entry.firstLeg.goalName ?? entry.firstLeg.goalUid ?? "the goal")\" (transfer "
                    + "\(entry.firstLeg.transferUid ?? "none"))"
            lines.append(
                "\(WeekFate(entry).word): \(entry.label), week ending \(entry.weekEnd): \(entry.amountText)\(into)")
            lines.append(
                "  why: \(entry.reason ?? entry.lastError ?? "a run stopped before the bank answered")")
            lines.append(
                "  roundup resolve --account \(entry.accountUid) --end-date \(entry.weekEnd) "
                    + "--check | --retry | --redirect GOAL | --abandon REASON")
        }
        return CommandResult(status: .ok, output: lines.map(printable).joined(separator: "\n") + "\n")
    }

    /// Carries out `resolution` for the week ending `weekEnd` of `accountUid`, under the run
    /// lock: for a week into several goals, for its transfer `leg` (the one still open when
    /// only one is, and the whole week for `--abandon`). `token` is needed unless the
    /// resolution is to abandon the week.
    public static func run(
        _ resolution: Resolution, accountUid: String, weekEnd: LocalDate, leg: Int? = nil, settings: Settings,
        token: AccessToken?, clock: @escaping @Sendable () -> Instant, logger: Logger, progress: RunProgress? = nil,
        scheduling: Scheduling.Lookup? = nil
    ) async -> CommandResult {
        let logger = token.map { redacting(logger, token: $0) } ?? logger
        let state: StateDirectory
        let entry: AccountWeek
        do throws(CommandFailure) {
            guard FileManager.default.fileExists(atPath: Ledger.path(in: settings.state.directory)) else {
                throw CommandFailure(.usage, "no ledger in \(settings.state.directory): there is nothing to resolve")
            }
            state = try await StateDirectory.open(
                settings.state.directory, lockWait: settings.state.lockWait, weekZone: settings.rules.timeZone)
            entry = try resolvable(in: state.ledger, accountUid: accountUid, weekEnd: weekEnd)
        } catch {
            return .failure(error)
        }
        let ledger = state.ledger
        progress?.onSettle { ledger.settle() }
        progress?.onInterrupt { [entry] in
            let now = (try? ledger.accountWeek(accountUid: entry.accountUid, weekEnd: entry.weekEnd)) ?? nil
            let standing = now.map { WeekFate($0) }
            let said = "before it finished settling the week ending \(entry.weekEnd) of \(entry.label)"
            switch standing {
            case .transferred?: return said + "; the ledger has the money as moved: nothing is left to do"
            case let standing?:
                return said + "; the ledger has the week as \(standing.word): `roundup resolve` shows it, "
                    + "and `--check` looks in the feed for a transfer under way before anything is sent again"
            case nil: return said + "; `roundup resolve` shows where it stands"
            }
        }
        var result: CommandResult
        if case .abandon(let reason) = resolution {
            result =
                leg == nil
                ? abandon(entry, reason: reason, ledger: state.ledger, at: clock())
                : .failure(
                    CommandFailure(
                        .usage,
                        "--abandon gives up every transfer of the week still open, and takes no --leg: the legs "
                            + "that arrived stay where they are"))
        } else if let token {
            do throws(CommandFailure) {
                result = await settle(
                    try transfer(leg, of: entry), resolution, settings: settings, ledger: state.ledger, token: token,
                    clock: clock, logger: logger)
            } catch {
                result = .failure(error)
            }
        } else {
            result = .failure(CommandFailure(.configuration, "this needs the access token"))
        }
        // What `roundup status` now says, so that a person knows whether the monitor calms down.
        result.output += statusLine(settings: settings, now: clock(), scheduling: scheduling)
        return withExtendedLifetime(state) { result }
    }

    /// "status now: OK", or the level and its first reason, as `roundup status` gives them
    /// (looking for what runs the job with `scheduling`, when given).
    static func statusLine(settings: Settings, now: Instant, scheduling: Scheduling.Lookup?) -> String {
        let finding = JobHealth.find(
            stateDirectory: settings.state.directory, now: now,
            scheduling: scheduling.map { Scheduling.look(for: settings, now: now, lookup: $0) },
            zone: settings.rules.timeZone, weekEndsOn: settings.rules.weekEndsOn)
        let reason = finding.reasons.first.map { ": \(printable($0))" } ?? ""
        return "status now: \(finding.level.word)\(reason)\n"
    }

    /// The ledger's entry for the week, if it is one a person may resolve.
    private static func resolvable(in ledger: Ledger, accountUid: String, weekEnd: LocalDate) throws(CommandFailure)
        -> AccountWeek
    {
        let found: AccountWeek?
        do {
            found = try ledger.accountWeek(accountUid: accountUid, weekEnd: weekEnd)
        } catch {
            throw CommandFailure(.configuration, "cannot read the ledger: \(plainDescription(error))")
        }
        guard let entry = found else {
            throw CommandFailure(
                .usage,
                "the ledger has no week ending \(weekEnd) for the account \(accountUid); `roundup resolve` lists what can be resolved"
            )
        }
        guard entry.status == .held || entry.status == .pending else {
            throw CommandFailure(
                .usage,
                "the week ending \(weekEnd) of \(entry.label) is \(WeekFate(entry).word), not held or "
                    + "unconfirmed: there is nothing to resolve")
        }
        return entry
    }

    /// The transfer of `entry` a person settles: the week itself when it moves into one goal;
    /// for a week into several, its leg `leg`, as a view of its own (`AccountWeek.view(of:)`),
    /// or the one leg still open when `leg` is not given.
    static func transfer(_ leg: Int?, of entry: AccountWeek) throws(CommandFailure) -> AccountWeek {
        let open = entry.openLegs
        guard let leg else {
            guard entry.hasSeveralLegs else { return entry }
            guard open.count == 1 else {
                throw CommandFailure(
                    .usage,
                    "the week ending \(entry.weekEnd) of \(entry.label) moves into \(entry.legs.count) goals and "
                        + "\(open.count) of its transfers are open (legs \(open.map { String($0.index) }.joined(separator: ", "))): "
                        + "name one with --leg N, as `roundup resolve` lists them")
            }
            return entry.view(of: open[0])
        }
        guard let chosen = entry.legs.first(where: { $0.index == leg }) else {
            throw CommandFailure(
                .usage,
                "the week ending \(entry.weekEnd) of \(entry.label) has no leg \(leg): its transfers are legs "
                    + entry.legs.map { String($0.index) }.joined(separator: ", "))
        }
        guard open.contains(where: { $0.index == leg }) else {
            throw CommandFailure(
                .usage,
                "leg \(leg) of the week ending \(entry.weekEnd) of \(entry.label), \(entry.words(of: [chosen])), is "
                    + "\(chosen.status.transferWord): there is nothing to resolve")
        }
        return entry.view(of: chosen)
    }

    private static func abandon(_ entry: AccountWeek, reason: String, ledger: Ledger, at now: Instant) -> CommandResult
    {
        do {
            try ledger.recordAbandoned(accountUid: entry.accountUid, weekEnd: entry.weekEnd, reason: reason, at: now)
        } catch {
            return .failure(
                CommandFailure(
                    .temporaryFailure, "could not record the decision in the ledger: \(plainDescription(error))")
            )
        }
        let open = entry.view(of: entry.openLegs)
        let stays =
            entry.doneLegs.isEmpty
            ? "\(entry.amountText) stays in the account"
            : "\(open.amountText) (\(entry.words(of: entry.openLegs))) stays in the account, and "
                + "\(entry.words(of: entry.doneLegs)), which arrived, stays in its goal"
        return CommandResult(
            status: .ok,
            output: "Abandoned the week ending \(entry.weekEnd) of \(entry.label): \(stays), and no run will move it. "
                + "Reason: \(printable(reason))\n"
                + (entry.unsavedDaysNote.map {
                    "Its payments are recorded as counted, so no later week counts them. "
                        + $0 + "\n"
                } ?? ""))
    }

    /// `--check`, `--retry` and `--redirect`: each talks to the bank.
    private static func settle(
        _ entry: AccountWeek, _ resolution: Resolution, settings: Settings, ledger: Ledger, token: AccessToken,
        clock: @escaping @Sendable () -> Instant, logger: Logger
    ) async -> CommandResult {
        do throws(CommandFailure) {
            _ = try BankClient.guardKeyLog(settings.bank, movesMoney: true)
            let bank = try BankClient.connect(
                bank: settings.bank, token: token, lanes: 1, retryPolicy: settings.bank.retryPolicy, clock: clock,
                logger: logger)
            let job = WeeklyJob(
                bank: bank, ledger: ledger, settings: settings, logger: logger, version: roundupVersion, now: clock)
            let account = try await job.resolver.account(entry.accountUid)
            let output: String
            switch resolution {
            case .check: output = try await job.resolver.checkAgain(entry, account: account)
            case .accept(let item): output = try await job.resolver.checkAgain(entry, account: account, accept: item)
            case .retry: output = try await job.resolver.sendAgain(entry, account: account, to: nil)
            case .redirect(let goal): output = try await job.resolver.sendAgain(entry, account: account, to: goal)
            case .abandon: output = ""
            }
            return CommandResult(status: .ok, output: token.redacted(in: output))
        } catch {
            return CommandResult(
                status: error.status, output: "", said: [Diagnostic(.failure, token.redacted(in: error.message))])
        }
    }
}
