/// Where one account's week came to: the one set of states that the job's outcomes, the
/// report, the history, the run's tally and the terminal's colours share. The report and
/// the history still say them in the words each has always used (`reportWord`,
/// `historyWord`), so that what a saver reads does not change with the code.
public enum WeekFate: Sendable, Hashable, CaseIterable {
    /// Money moved: by this run, or (in the history) by the run that recorded the week.
    case transferred
    /// An earlier run moved the week's money, or the feed shows it arrived; nothing was sent.
    case alreadyTransferred
    /// Nothing moves: no round-up, a minimum balance held it back, or an earlier run found
    /// nothing to move.
    case nothingToMove
    /// A minimum balance, or keeping out of overdraft, kept all of the week's round-up. The
    /// history tells it apart; a run's report says `nothingToMove` and the amount held back.
    case heldBack
    /// A dry run: what a real run would do.
    case dryRun
    /// A transfer sent, or about to be, with no answer yet: the next run looks for it in
    /// the feed, and sends it again only when it is not there. A run that leaves a week so
    /// reports it `failed`.
    case unconfirmed
    /// The week did not complete; the exit status says whether it may pass by itself.
    case failed
    /// The job could not tell what to do without guessing; a person decides (`roundup resolve`).
    case held
    /// A person decided that this week's money is not to be moved.
    case abandoned
    /// Not worked on: an account type not in `accountTypes`, or the bank's own round-up is on.
    case skipped

    /// The three ends a week can come to for the saver. The terminal's colours and the
    /// Markdown report's columns follow them, so a new state is placed once, here.
    public enum Kind: Sendable {
        /// Money moved, in this run or an earlier one.
        case moved
        /// Nothing moved, on purpose.
        case nothingMoved
        /// The week failed or waits for a person, and the detail says why.
        case failedOrWaiting
    }

    /// Which of the three ends this is.
    public var kind: Kind {
        switch self {
        case .transferred, .alreadyTransferred: .moved
        case .nothingToMove, .heldBack, .dryRun, .abandoned, .skipped: .nothingMoved
        case .unconfirmed, .failed, .held: .failedOrWaiting
        }
    }

    /// The word a run's report and summary give it: `schema/report-v1.schema.json` lists them.
    public var reportWord: String {
        switch self {
        case .transferred: "transferred"
        case .alreadyTransferred: "already transferred"
        case .nothingToMove, .heldBack: "nothing to do"
        case .dryRun: "dry run"
        case .unconfirmed, .failed: "failed"
        case .held: "held"
        case .abandoned: "abandoned"
        case .skipped: "skipped"
        }
    }

    /// The fates a run's report can give, one for each of its words.
    public static let reported: [WeekFate] = [
        .transferred, .alreadyTransferred, .nothingToMove, .dryRun, .failed, .held, .abandoned, .skipped,
    ]

    /// Where a week the ledger records stands.
    public init(_ entry: LedgerEntry) {
        switch entry.status {
        case .done: self = .transferred
        case .nothing: self = entry.note == nil ? .nothingToMove : .heldBack
        case .pending: self = .unconfirmed
        case .held: self = .held
        case .abandoned: self = .abandoned
        }
    }

    /// The word `roundup history` (and `resolve`) gives a week the ledger records:
    /// `schema/history-v1.schema.json` lists those of `recorded`. The fates only a run
    /// reports keep the run's word.
    public var historyWord: String {
        switch self {
        case .nothingToMove: "nothing to move"
        case .heldBack: "held back"
        case .unconfirmed: "unconfirmed"
        case .transferred, .alreadyTransferred, .dryRun, .failed, .held, .abandoned, .skipped: reportWord
        }
    }

    /// The fates the ledger can record, one for each of the history's words.
    public static let recorded: [WeekFate] = [.transferred, .nothingToMove, .heldBack, .unconfirmed, .held, .abandoned]
}
