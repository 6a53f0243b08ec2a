import RoundUp
import RoundUpReports
import RoundUpVocabulary
import StarlingAPI

/// How one account's week ended, with the sentence that says so.
enum AccountOutcome: Sendable, Equatable {
    /// Not worked on: an account type left out, or the bank's own round-up is on.
    case skipped(String)
    /// Nothing moves this week: no round-up, a minimum balance held it back, or an earlier
    /// run found nothing to move.
    case nothingToMove(String)
    /// This run moved the week's money.
    case transferred(String)
    /// An earlier run moved the week's money.
    case alreadyTransferred(String)
    /// The account's feed shows the week's money arrived; nothing was sent.
    case foundInFeed(String)
    /// A person decided that this week's money is not to be moved.
    case abandoned(String)
    /// The week waits for a person (`roundup resolve`).
    case held(String)
    /// The week did not complete; the exit status says whether it may pass by itself.
    case failed(ExitStatus, String)
    /// A dry run: what a real run would do.
    case wouldDo(String)

    /// The outcome of a week that stopped on `failure`.
    init(_ failure: AccountFailure) {
        self = failure.held ? .held(failure.message) : .failed(failure.status, failure.message)
    }

    /// The sentence that says what happened.
    var detail: String {
        switch self {
        case .skipped(let text), .nothingToMove(let text), .transferred(let text), .alreadyTransferred(let text),
            .foundInFeed(let text), .abandoned(let text), .held(let text), .failed(_, let text), .wouldDo(let text):
            text
        }
    }

    /// What the process exit status makes of it: a held week needs a person.
    var exitCode: ExitStatus {
        switch self {
        case .held: .configuration
        case .failed(let status, _): status
        default: .ok
        }
    }

    /// The status the report gives it.
    var status: AccountStatus {
        switch self {
        case .skipped: .skipped
        case .nothingToMove: .nothingToDo
        case .transferred: .transferred
        case .alreadyTransferred, .foundInFeed: .alreadyTransferred
        case .abandoned: .abandoned
        case .held: .held
        case .failed: .failed
        case .wouldDo: .dryRun
        }
    }
}

/// What the job read and decided of an account's week on the way to its outcome, for the
/// report: each is set once it is known, and a week that stops early has only the first.
struct AccountFindings: Sendable {
    /// Whether the bank's own round-up is on, once read.
    var nativeRoundUp: NativeRoundUpState?
    /// An earlier run settled the week (moved its money, found nothing to move, or a person
    /// abandoned it), and this run changed nothing of it.
    var settledEarlier = false
    /// The week's counted payments and their round-up.
    var plan: RoundUpPlan?
    /// What the balance did to the round-up: a minimum balance, or keeping out of overdraft.
    var balance: BalanceOutcome?
    /// The account's bounds for the week, when they are not its seven local days.
    var window: WeekWindow?
    /// The transfer the week is about: the amount, goal and transfer uid, once chosen or
    /// read from the ledger.
    var movement: Movement?
}

/// The week's transfer as far as it is known.
struct Movement: Sendable {
    var amount: Money
    /// Nil for a week the ledger holds without a goal (nothing to move).
    var goal: GoalReport?
    /// Nil until the goal exists.
    var transferUid: String?

    /// The transfer an earlier run recorded in `entry`, in `currency`.
    init(recorded entry: LedgerEntry, currency: Currency) {
        amount = Money(minorUnits: entry.minorUnits, currency: currency)
        goal = entry.goalName.map { GoalReport(uid: entry.goalUid, name: $0) }
        transferUid = entry.transferUid
    }

    init(amount: Money, goal: GoalReport?, transferUid: String?) {
        self.amount = amount
        self.goal = goal
        self.transferUid = transferUid
    }
}
