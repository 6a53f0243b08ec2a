import Foundation
public import RoundUp
import RoundUpVocabulary

/// One message for the places `notify.to` names: a title and a few lines, in words a saver
/// reads on a phone. It never carries the access token, an account's uid or a balance:
/// only what the run's one line (`RunWatch.summary`) and the savings news already say.
public struct Notice: Sendable, Equatable {
    /// What it tells of; each service shows the kinds apart (ntfy's tags and priority,
    /// Gotify's priority, the JSON object's `event` and `type`).
    public enum Kind: String, Sendable {
        /// What a real run that moved money saved (`notify.weekly`).
        case weekly
        /// A week held for a person, told once.
        case held
        /// A run that failed, or that needs a person.
        case failure
        /// `roundup check --notify-test`.
        case test
    }

    public var kind: Kind
    public var title: String
    public var message: String
    /// The run's exit status, for a failure.
    public var exitCode: Int32?

    public init(kind: Kind, title: String, message: String, exitCode: Int32? = nil) {
        self.kind = kind
        self.title = title
        self.message = message
        self.exitCode = exitCode
    }

    /// ntfy's priority (1 to 5) and Gotify's (0 to 10) when the URL names none: a failure
    /// or a held week is high, so that a phone shows it at once.
    var ntfyPriority: Int { kind == .failure || kind == .held ? 4 : 3 }
    var gotifyPriority: Int { kind == .failure || kind == .held ? 8 : 5 }

    /// ntfy's tags, which its apps show as emoji.
    var ntfyTags: [String] {
        switch kind {
        case .weekly: ["moneybag"]
        case .held: ["hourglass"]
        case .failure: ["warning"]
        case .test: ["white_check_mark"]
        }
    }

    /// Apprise's notification type, for the JSON object.
    var appriseType: String {
        switch kind {
        case .weekly: "success"
        case .held: "warning"
        case .failure: "failure"
        case .test: "info"
        }
    }
}

extension Notice {
    /// The good news of a real run that moved money: `news` (notify.weekly's line), with the
    /// goals the money went into.
    public static func weekly(news: String, goals: [String], weeks: [LocalDate]) -> Notice {
        let into = goals.isEmpty ? "" : " Into " + spokenList(goals.map { "\"\(printable($0))\"" }) + "."
        let title = weeks.count > 1 ? "roundup: \(weeks.count) weeks saved" : "roundup: a week saved"
        return Notice(kind: .weekly, title: title, message: capitalised(news) + "." + into)
    }

    /// A run that failed, from its one line (`RunWatch.summary`), with the command that helps.
    public static func failure(code: Int32, summary: String, heldWeeks: Bool) -> Notice {
        let needsPerson = [64, 65, 77, 78].contains(code)
        let title = needsPerson ? "roundup needs you (exit \(code))" : "roundup failed (exit \(code))"
        let help: String
        switch code {
        case 129, 130, 143:
            help = "Nothing to do: the next run finishes the rest. `roundup status` shows where it stands."
        case 78 where heldWeeks: help = "`roundup resolve` lists the weeks that wait and settles them."
        case 69, 75:
            help =
                "It may pass by itself; `roundup check` tests the bank, the token and the goals now."
        default: help = "`roundup check` says what to fix."
        }
        return Notice(kind: .failure, title: title, message: summary + "\n" + help, exitCode: code)
    }

    /// The weeks held for a person since the saver was last told, each told once: its
    /// account, its end and why, without uids, and the command that settles them.
    public static func held(_ weeks: [(account: String, weekEnd: LocalDate, reason: String?)]) -> Notice {
        // A phone shows a few lines, and ntfy takes 4,096 bytes: the first weeks, each reason
        // clipped, and how many more.
        var lines = weeks.prefix(heldShown).map { week in
            let why = week.reason.map { ": " + clipped(reasonWithoutCommands(Notice.withoutUids(printable($0)))) } ?? ""
            return "\(clipped(Notice.withoutUids(printable(week.account)))), week ending \(week.weekEnd), is held\(why)"
        }
        if weeks.count > heldShown { lines.append("… and \(weeks.count - heldShown) more.") }
        let title = weeks.count == 1 ? "roundup: a week waits for you" : "roundup: \(weeks.count) weeks wait for you"
        let settle =
            weeks.count == 1
            ? "`roundup resolve` shows it and settles it; nothing moves for it until then."
            : "`roundup resolve` shows them and settles them; nothing moves for them until then."
        return Notice(kind: .held, title: title, message: (lines + [settle]).joined(separator: "\n"))
    }

    /// The held weeks one notice names at most.
    static let heldShown = 6

    /// `text` cut to 300 characters.
    static func clipped(_ text: String) -> String { text.count <= 300 ? text : String(text.prefix(299)) + "…" }

    /// A held week's reason up to the sentence that gives a command to type: with its uids
    /// left out, the command could not be typed as it stands.
    static func reasonWithoutCommands(_ reason: String) -> String {
        guard let command = reason.range(of: "`roundup ") else { return reason }
        let before = reason[..<command.lowerBound]
        guard let end = before.range(of: ". ", options: .backwards) else { return reason }
        return String(before[..<end.lowerBound]) + "."
    }

    /// A run that never recorded its end: killed (the OOM killer, SIGKILL) or crashed; told
    /// by `roundup tell`, or `byTheNextRun`, which took up what it left.
    public static func unfinished(startedAt: String, byTheNextRun: Bool = false) -> Notice {
        let next =
            byTheNextRun
            ? "This run took up what it left, looking in the feed before it sent anything again"
            : "The next run finishes the rest, looking in the feed before it sends anything again"
        return Notice(
            kind: .failure, title: "roundup failed (did not finish)",
            message: "The run started \(startedAt) did not finish: it was killed or crashed. \(next); "
                + "`roundup status` shows where it stands.")
    }

    /// `roundup check --notify-test`'s message to `target`.
    public static func test(to target: NotifyTarget) -> Notice {
        Notice(
            kind: .test, title: "roundup: a test message",
            message: "roundup can reach you at \(target.shown). Sent by `roundup check --notify-test`; "
                + "nothing was moved.")
    }

    /// `text` with anything shaped like a uid left out: a phone's message needs none.
    public static func withoutUids(_ text: String) -> String {
        text.replacingOccurrences(
            of: "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}", with: "…",
            options: .regularExpression)
    }

    private static func capitalised(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }

    private static func spokenList(_ items: [String]) -> String {
        items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items.last!
    }
}
