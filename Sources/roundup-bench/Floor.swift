import Foundation

/// Each request a run makes, per account-week, with the decision it can change and how
/// often the rule it serves needs it: the floor is what a run must ask when each request is
/// asked only that often. A request asked more often than its rule needs is a request to
/// save; one at its rule's pace stays unless the rule goes.
enum Floor {
    /// How often a request's rule needs it.
    enum Pace {
        /// Once per run: the same answer serves every week and account.
        case run
        /// Once per week of a run, before any account.
        case runWeek
        /// Once per account per run.
        case account
        /// Once per goal of the account per run.
        case goal
        /// Once for every account-week that may move money.
        case week

        var words: String {
            switch self {
            case .run: "once per run"
            case .runWeek: "once per week of a run"
            case .account: "once per account per run"
            case .goal: "once per goal per run"
            case .week: "every account-week"
            }
        }
    }

    /// What each request of a weekly run asks, what its answer can change, and its pace; in
    /// the order a week asks them.
    static let requests: [(endpoint: String, asks: String, changes: String, pace: Pace)] = [
        (
            "identity", "the token",
            "whether the week may start (the token still accepted, the bank reachable: "
                + "else the run stops, with one clear word), and what it may do (its scopes)", .runWeek
        ),
        ("accounts", "the accounts", "which accounts are worked on", .run),
        ("settledFeed", "the week's settled feed", "the week's round-up", .week),
        ("roundUp", "the bank's own round-up", "whether the account is skipped, its round-ups already saved", .account),
        (
            "savingsGoals", "the account's goals",
            "the goal the week saves into, and the goals whose recurring "
                + "transfers fall due before payday", .account
        ),
        ("standingOrders", "standing orders", "what falls due before payday (never short)", .account),
        ("mandates", "direct debits", "what falls due before payday (never short)", .account),
        ("recurringTransfer", "a goal's recurring transfer", "what falls due before payday (never short)", .goal),
        (
            "confirmationOfFunds", "confirmation of funds",
            "whether the week's amount and what falls due before "
                + "payday leave the account in credit (never short)", .week
        ),
        (
            "categoryFeed", "transfers into goals since the week began",
            "whether the week's transfer was already "
                + "made, by an earlier run or another ledger (transfer identity)", .week
        ),
        (
            "savingsGoal", "the goal's total",
            "what a send whose answer is lost is weighed against: read just "
                + "before the send, as the only total taken after every earlier move (transfer identity)", .week
        ),
        ("addMoney", "add money", "the transfer itself", .week),
    ]

    /// The table for a weekly run of `weeklyAccountWeeks` account-weeks (`weekly`: requests by
    /// endpoint) and a catch-up of `catchUpAccountWeeks`, with `accounts` accounts of `goals`
    /// goals in all.
    static func table(
        weekly: [String: Int], weeklyAccountWeeks: Int, catchUp: [String: Int], catchUpAccountWeeks: Int,
        accounts: Int, goals: Int
    ) -> String {
        func per(_ count: Int, _ accountWeeks: Int) -> String {
            String(format: "%.2f", Double(count) / Double(max(1, accountWeeks)))
        }
        func floor(_ pace: Pace, _ accountWeeks: Int, runs: Int = 1) -> Double {
            switch pace {
            case .run: Double(runs) / Double(accountWeeks)
            case .runWeek: Double(accountWeeks / accounts) / Double(accountWeeks)
            case .account: Double(accounts * runs) / Double(accountWeeks)
            case .goal: Double(goals * runs) / Double(accountWeeks)
            case .week: 1
            }
        }
        var lines = [
            "Requests per account-week: a weekly run of \(accounts) accounts with the forecast on, and a catch-up "
                + "of \(catchUpAccountWeeks / max(1, accounts)) weeks",
            "",
            "| request | what its answer can change | its rule needs it | weekly run | its floor | catch-up | its floor |",
            "|---|---|---|---:|---:|---:|---:|",
        ]
        var totals = (weekly: 0, weeklyFloor: 0.0, catchUp: 0, catchUpFloor: 0.0)
        var off: [String] = []
        /// The count per account-week, in bold when it is not its floor.
        func shown(_ count: Int, _ accountWeeks: Int, floor: Double, _ asks: String, _ run: String) -> String {
            let value = Double(count) / Double(max(1, accountWeeks))
            guard abs(value - floor) > 0.005 else { return per(count, accountWeeks) }
            off.append(
                "\(asks) in the \(run) (\(per(count, accountWeeks)), its floor \(String(format: "%.2f", floor)))")
            return "**\(per(count, accountWeeks))**"
        }
        let known = Set(requests.map(\.endpoint))
        for request in requests {
            let (now, then) = (weekly[request.endpoint] ?? 0, catchUp[request.endpoint] ?? 0)
            let (weeklyFloor, catchUpFloor) = (
                floor(request.pace, weeklyAccountWeeks), floor(request.pace, catchUpAccountWeeks)
            )
            totals.weekly += now
            totals.catchUp += then
            totals.weeklyFloor += weeklyFloor
            totals.catchUpFloor += catchUpFloor
            lines.append(
                "| \(request.asks) | \(request.changes) | \(request.pace.words) | "
                    + shown(now, weeklyAccountWeeks, floor: weeklyFloor, request.asks, "weekly run") + " | "
                    + String(format: "%.2f", weeklyFloor) + " | "
                    + shown(then, catchUpAccountWeeks, floor: catchUpFloor, request.asks, "catch-up") + " | "
                    + String(format: "%.2f", catchUpFloor) + " |")
        }
        for (endpoint, count) in weekly.merging(catchUp, uniquingKeysWith: max).sorted(by: { $0.key < $1.key })
        where !known.contains(endpoint) {
            lines.append(
                "| \(endpoint) | (not expected in these runs) | — | "
                    + "**\(per(weekly[endpoint] ?? 0, weeklyAccountWeeks))** | 0.00 | "
                    + "**\(per(catchUp[endpoint] ?? 0, catchUpAccountWeeks))** | 0.00 |")
            off.append("\(endpoint), which these runs should not ask (\(count))")
            totals.weekly += weekly[endpoint] ?? 0
            totals.catchUp += catchUp[endpoint] ?? 0
        }
        lines.append(
            "| all | | | \(per(totals.weekly, weeklyAccountWeeks)) | " + String(format: "%.2f", totals.weeklyFloor)
                + " | \(per(totals.catchUp, catchUpAccountWeeks)) | " + String(format: "%.2f", totals.catchUpFloor)
                + " |")
        lines.append("")
        lines.append(
            off.isEmpty
                ? "Every request is asked as often as its rule needs it, no more and no less."
                : "Not at its floor (in bold): " + off.joined(separator: "; ")
                    + ". More than the floor is a request to save; less, a rule no longer kept.")
        return lines.joined(separator: "\n")
    }
}
