package import RoundUp
package import RoundUpReports
package import RoundUpVocabulary
package import StarlingAPI

/// How one account's week ended: its fate, the sentence that says so, and what the exit
/// status makes of it.
package struct AccountOutcome: Sendable, Equatable {
    package var fate: WeekFate
    /// The sentence that says what happened.
    package var detail: String
    /// What the process exit status makes of it: a held week needs a person.
    package var exitCode: ExitStatus

    private init(_ fate: WeekFate, _ detail: String, exitCode: ExitStatus = .ok) {
        self.fate = fate
        self.detail = detail
        self.exitCode = exitCode
    }

    /// Not worked on: an account type left out, or the bank's own round-up is on.
    package static func skipped(_ detail: String) -> AccountOutcome { AccountOutcome(.skipped, detail) }
    /// Nothing moves this week: it had no round-up, in this run or an earlier one.
    package static func nothingToMove(_ detail: String) -> AccountOutcome { AccountOutcome(.nothingToMove, detail) }
    /// The balance kept all of the week's round-up (this run, or an earlier one decided so);
    /// the week is settled.
    package static func heldBack(_ detail: String) -> AccountOutcome { AccountOutcome(.heldBack, detail) }
    /// This run moved the week's money.
    package static func transferred(_ detail: String) -> AccountOutcome { AccountOutcome(.transferred, detail) }
    /// An earlier run moved the week's money, or the account's feed shows it arrived;
    /// nothing was sent.
    package static func alreadyTransferred(_ detail: String) -> AccountOutcome {
        AccountOutcome(.alreadyTransferred, detail)
    }
    /// A person decided that this week's money is not to be moved.
    package static func abandoned(_ detail: String) -> AccountOutcome { AccountOutcome(.abandoned, detail) }
    /// The week waits for a person (`roundup resolve`).
    package static func held(_ detail: String) -> AccountOutcome {
        AccountOutcome(.held, detail, exitCode: .configuration)
    }
    /// The week did not complete; `status` says whether it may pass by itself.
    package static func failed(_ status: ExitStatus, _ detail: String) -> AccountOutcome {
        AccountOutcome(.failed, detail, exitCode: status)
    }
    /// A week into several goals stopped with some of its transfers arrived and the rest
    /// not; the next run finishes those. `status` says whether that may pass by itself.
    package static func partlyTransferred(_ status: ExitStatus, _ detail: String) -> AccountOutcome {
        AccountOutcome(.partlyTransferred, detail, exitCode: status)
    }
    /// The week stopped with its transfer recorded and not known to have arrived; the next
    /// run looks for it in the feed. `status` says whether that may pass by itself.
    package static func unconfirmed(_ status: ExitStatus, _ detail: String) -> AccountOutcome {
        AccountOutcome(.unconfirmed, detail, exitCode: status)
    }
    /// A dry run: what a real run would do.
    package static func wouldDo(_ detail: String) -> AccountOutcome { AccountOutcome(.dryRun, detail) }

    /// A week recorded by a run that did not write its report, as the ledger keeps it, for
    /// the report written later: its fate, with `detail`, and the exit status that fate gives.
    package static func recorded(_ week: AccountWeek, _ detail: String) -> AccountOutcome {
        let fate = WeekFate(week)
        let status: ExitStatus =
            switch fate {
            case .held: .configuration
            case .unconfirmed, .partlyTransferred: .temporaryFailure
            default: .ok
            }
        return AccountOutcome(fate, detail, exitCode: status)
    }

    /// The outcome of a week that stopped on `failure`.
    package init(_ failure: AccountFailure) {
        self = failure.held ? .held(failure.message) : .failed(failure.status, failure.message)
    }
}

/// What the job read and decided of an account's week on the way to its outcome, for the
/// report: each is set once it is known, and a week that stops early has only the first.
package struct AccountFindings: Sendable {
    /// Whether the bank's own round-up is on, once read.
    package var nativeRoundUp: NativeRoundUpState?
    /// An earlier run settled the week (moved its money, found nothing to move, or a person
    /// abandoned it), and this run changed nothing of it.
    package var settledEarlier = false
    /// The week's counted payments and their round-up.
    package var plan: RoundUpPlan?
    /// What the balance did to the round-up: a minimum balance, or keeping out of overdraft.
    package var balance: BalanceOutcome?
    /// What the bank has scheduled before payday, when it was read for the week.
    package var forecast: Forecast?
    /// The account's bounds for the week, when they are not its seven local days.
    package var window: WeekWindow?
    /// The transfer the week is about: the amount, goal and transfer uid, once chosen or
    /// read from the ledger.
    package var movement: Movement?
    /// A recorded transfer was sent again and arrived (or, in a dry run, would be sent again):
    /// the run's later weeks measure against the balance less it.
    package var sentAgain = false
    /// For a week into several goals, what was sent again (its legs still open), when less
    /// than the week's amount.
    package var sentAgainAmount: Money?
    /// For a report written later, the week's payments as the ledger kept them (those it
    /// kept whole) and their round-ups' sum (all of them).
    package var recorded: (payments: [CountedTransaction], roundUpSum: Money)?

    package init(
        nativeRoundUp: NativeRoundUpState? = nil, settledEarlier: Bool = false, plan: RoundUpPlan? = nil,
        balance: BalanceOutcome? = nil, forecast: Forecast? = nil, window: WeekWindow? = nil, movement: Movement? = nil,
        sentAgain: Bool = false, recorded: (payments: [CountedTransaction], roundUpSum: Money)? = nil
    ) {
        self.nativeRoundUp = nativeRoundUp
        self.settledEarlier = settledEarlier
        self.plan = plan
        self.balance = balance
        self.forecast = forecast
        self.window = window
        self.movement = movement
        self.sentAgain = sentAgain
        self.recorded = recorded
    }
}

/// The week's transfer as far as it is known.
package struct Movement: Sendable {
    package var amount: Money
    /// Nil for a week the ledger holds without a goal (nothing to move).
    package var goal: GoalReport?
    /// Nil until the goal exists.
    package var transferUid: String?
    /// For a week into several goals, each of its transfers; empty for a week into one.
    package var legs: [Leg] = []

    /// One of a week's transfers into several goals.
    package struct Leg: Sendable {
        package var amount: Money
        package var goal: GoalReport
        package var transferUid: String?
        /// Where this transfer stands, when the ledger has it.
        package var status: WeekState?

        package init(amount: Money, goal: GoalReport, transferUid: String?, status: WeekState? = nil) {
            self.amount = amount
            self.goal = goal
            self.transferUid = transferUid
            self.status = status
        }
    }

    /// The transfer an earlier run recorded in `entry`, in `currency`.
    package init(recorded entry: AccountWeek, currency: Currency) {
        amount = Money(minorUnits: entry.minorUnits, currency: currency)
        goal = entry.firstLeg.goalName.map { GoalReport(uid: entry.firstLeg.goalUid, name: $0) }
        transferUid = entry.firstLeg.transferUid
        if entry.hasSeveralLegs {
            legs = entry.legs.map { leg in
                Leg(
                    amount: Money(minorUnits: leg.minorUnits, currency: currency),
                    goal: GoalReport(uid: leg.goalUid, name: leg.goalName ?? leg.goalUid ?? "the goal"),
                    transferUid: leg.transferUid, status: leg.status)
            }
        }
    }

    package init(amount: Money, goal: GoalReport?, transferUid: String?) {
        self.amount = amount
        self.goal = goal
        self.transferUid = transferUid
    }
}
