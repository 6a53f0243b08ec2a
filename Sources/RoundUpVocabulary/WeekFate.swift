/// Where one account's week came to: the one set of states that the job's outcomes, the
/// report, the history, the run's tally and the terminal's colours share. A person reads
/// one word for each (`word`); the JSON documents keep the words their schema 1 was
/// published with (`reportJSONWord`, `historyJSONWord`).
public enum WeekFate: Sendable, Hashable, CaseIterable {
    /// Money moved: by this run, or (in the history) by the run that recorded the week.
    case transferred
    /// An earlier run moved the week's money, or the feed shows it arrived; nothing was sent.
    case alreadyTransferred
    /// Nothing moves: the week had no round-up (in this run or an earlier one).
    case nothingToMove
    /// A minimum balance, keeping out of overdraft, or what falls due before payday kept all
    /// of the week's round-up; the week is settled. Not `held`, which waits for a person.
    case heldBack
    /// A dry run: what a real run would do.
    case dryRun
    /// A transfer sent, or about to be, with no answer yet: the next run looks for it in
    /// the feed, and sends it again only when it is not there.
    case unconfirmed
    /// A week that moves into several goals, some of whose transfers arrived and some not
    /// yet: the next run (or `roundup resolve`) finishes only the missing ones.
    case partlyTransferred
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
        case .unconfirmed, .partlyTransferred, .failed, .held: .failedOrWaiting
        }
    }

    /// The one word a saver reads for this fate, wherever it is shown to a person: the
    /// run's summary, the Markdown report, `history` and its CSV, `status`, `resolve`, the
    /// help and the man page. `WeekFate.table` explains each.
    public var word: String {
        switch self {
        case .transferred: "transferred"
        case .alreadyTransferred: "already transferred"
        case .nothingToMove: "nothing to move"
        case .heldBack: "held back"
        case .dryRun: "dry run"
        case .unconfirmed: "unconfirmed"
        case .partlyTransferred: "partly transferred"
        case .failed: "failed"
        case .held: "held"
        case .abandoned: "abandoned"
        case .skipped: "skipped"
        }
    }

    /// What the word means, for the tables of states in docs/reports.md and the man page.
    public var meaning: String {
        switch self {
        case .transferred: "the week's round-up moved into the goal"
        case .alreadyTransferred: "an earlier run moved it, or the feed shows it arrived: nothing was sent again"
        case .nothingToMove: "the week had no round-up to move"
        case .heldBack:
            "the balance kept the whole round-up in the account (a minimum balance, keeping out of overdraft, or "
                + "what falls due before payday); the week is settled and no later run moves it"
        case .dryRun: "what a real run would do; nothing moved and nothing was recorded"
        case .unconfirmed:
            "a transfer was sent, or about to be, and is not known to have arrived: the next run looks for it in "
                + "the feed and sends it again only when it is not there"
        case .partlyTransferred:
            "the week moves into several goals and only some of its transfers arrived: the next run, or "
                + "`roundup resolve`, finishes the missing ones, and none is sent twice"
        case .failed:
            "the week did not finish (the exit code says whether it may pass by itself); the next run tries again"
        case .held: "waits for a person: the job could not tell what to do without guessing (`roundup resolve`)"
        case .abandoned: "a person decided (`roundup resolve --abandon`) that the week's money stays in the account"
        case .skipped: "not worked on: an account type not in `accountTypes`, or Starling's own round-up is on"
        }
    }

    /// The word the JSON report (`schema/report-v1.schema.json`) gives it. Schema 1 keeps
    /// the words it was published with: "nothing to do" for both nothing to move and held
    /// back (the report's `heldBack` tells them apart), and "failed" for an unconfirmed
    /// week (its `exitCode` says what stopped it).
    public var reportJSONWord: String {
        switch self {
        case .transferred: "transferred"
        case .alreadyTransferred: "already transferred"
        case .nothingToMove, .heldBack: "nothing to do"
        case .dryRun: "dry run"
        case .unconfirmed, .partlyTransferred, .failed: "failed"
        case .held: "held"
        case .abandoned: "abandoned"
        case .skipped: "skipped"
        }
    }

    /// The word the JSON report of schema 2 (`schema/report-v2.schema.json`, a week into
    /// several goals) gives it: schema 1's, and `partly transferred` for a week some of
    /// whose transfers arrived.
    public var reportJSONWordV2: String { self == .partlyTransferred ? word : reportJSONWord }

    /// The word `history --json` (`schema/history-v1.schema.json`) gives a week the ledger
    /// records; nil for the fates only a run reports.
    public var historyJSONWord: String? {
        switch self {
        case .transferred: "transferred"
        case .nothingToMove: "nothing to move"
        case .heldBack: "held back"
        case .unconfirmed: "unconfirmed"
        case .partlyTransferred: "partly transferred"
        case .held: "held"
        case .abandoned: "abandoned"
        case .alreadyTransferred, .dryRun, .failed, .skipped: nil
        }
    }

    /// Each fate in the order the tables of states list them: a row's word, what it means,
    /// and the words the JSON report and `history --json` give it ("—" where the history
    /// never has it).
    public static var table: [(word: String, meaning: String, reportJSON: String, historyJSON: String)] {
        allCases.map { ($0.word, $0.meaning, $0.reportJSONWord, $0.historyJSONWord ?? "—") }
    }

    /// Where a week the ledger records stands.
    public init(_ entry: AccountWeek) {
        switch entry.status {
        case .done: self = .transferred
        case .nothing: self = entry.note == nil ? .nothingToMove : .heldBack
        case .pending: self = entry.isPartlyTransferred ? .partlyTransferred : .unconfirmed
        case .held: self = .held
        case .abandoned: self = .abandoned
        }
    }

    /// The fates the ledger can record, one for each of the history's words.
    public static let recorded: [WeekFate] = [
        .transferred, .nothingToMove, .heldBack, .unconfirmed, .partlyTransferred, .held, .abandoned,
    ]
}

extension WeekState {
    /// The word for one transfer of a week into several goals in this state, as a week of one
    /// transfer in it has it: `transferred`, `nothing to move`, `unconfirmed`, `held`,
    /// `abandoned`.
    public var transferWord: String {
        switch self {
        case .done: WeekFate.transferred.word
        case .nothing: WeekFate.nothingToMove.word
        case .pending: WeekFate.unconfirmed.word
        case .held: WeekFate.held.word
        case .abandoned: WeekFate.abandoned.word
        }
    }
}
