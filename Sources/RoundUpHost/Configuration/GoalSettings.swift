public import RoundUp

/// Which goal each account saves into: by uid per account, else by name, created with a
/// target when there is none.
public struct GoalSettings: Sendable {
    /// The name of the goal to save into, found or created per account.
    public var savingsGoalName: String
    /// Goals chosen by uid, by account uid; these win over the name.
    public var goalUids: [String: String]
    /// Targets, by currency code, for goals the job creates.
    public var newGoalTargets: [String: Money]
    /// How long to wait for a goal that is being created or restored to become active.
    public var activationWait: Duration

    public static let defaultName = "Round-ups"
}

extension GoalSettings {
    package static func resolve(_ sources: SettingSources) throws(SettingsError) -> GoalSettings {
        let file = sources.file
        let (name, origin) =
            sources.first(flag: sources.flags.savingsGoal, environment: "ROUNDUP_SAVINGS_GOAL", file: file.savingsGoal)
            ?? (defaultName, .file)
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name.count <= 255 else {
            throw SettingsError(
                origin: origin == .flag ? .flag : .file, message: "the savings goal name must have 1 to 255 characters")
        }
        return GoalSettings(
            savingsGoalName: name, goalUids: try goalUids(file.goals ?? [:]),
            newGoalTargets: try file.amounts("newGoalTarget", file.newGoalTarget),
            activationWait: .seconds(try file.bounded(file.goalWaitSeconds, "goalWaitSeconds", 0...600) ?? 60))
    }

    /// `goals:` with every uid a UUID in its one spelling (`Uid.uuid`), as the bank's are.
    /// Two keys naming one account in different cases are a mistake, even when they agree.
    private static func goalUids(_ written: [String: String]) throws(SettingsError) -> [String: String] {
        var result: [String: String] = [:]
        for (account, goal) in written.sorted(by: { $0.key < $1.key }) {
            guard let key = Uid.uuid(account) else {
                throw SettingsError(
                    origin: .file,
                    message: "goals: \(Uid.shown(account)) is not an account uid: each key is an account's uid, a UUID "
                        + "as `roundup check` lists them")
            }
            guard let value = Uid.uuid(goal) else {
                throw SettingsError(
                    origin: .file,
                    message: "goals: the goal for \(key), \(Uid.shown(goal)), is not a goal uid (a UUID); to choose "
                        + "a goal by name, set savingsGoal")
            }
            guard result[key] == nil else {
                throw SettingsError(
                    origin: .file, message: "goals: names the account \(key) twice (uids are the same in either case)")
            }
            result[key] = value
        }
        return result
    }
}
