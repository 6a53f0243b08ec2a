import Foundation
public import RoundUp

/// Which goal each account saves into: by uid per account, else by name, created with a
/// target when there is none.
public struct GoalSettings: Sendable {
    /// The name of the goal to save into, found or created per account.
    public var savingsGoalName: String
    /// Several goals for every account (`saveInto`), instead of the one named; an account
    /// whose goal is chosen by uid (`goalUids`) saves into that one all the same.
    public var saveInto: SaveInto?
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
        let given = sources.first(
            flag: sources.flags.savingsGoal, environment: "ROUNDUP_SAVINGS_GOAL", file: file.savingsGoal)
        let (name, origin) = given ?? (defaultName, .file)
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name.count <= 255 else {
            throw SettingsError(
                origin: origin == .flag ? .flag : .file, message: "the savings goal name must have 1 to 255 characters")
        }
        var saveInto: SaveInto?
        if let written = file.saveInto { saveInto = try Self.saveInto(written) }
        if saveInto != nil, let given {
            let named =
                [SettingsError.Origin.flag: "--savings-goal", .environment: "ROUNDUP_SAVINGS_GOAL"][
                    given.origin] ?? "savingsGoal"
            throw SettingsError(
                origin: given.origin == .flag ? .flag : .file,
                message: "saveInto and \(named) exclude each other: saveInto names the goals every account saves "
                    + "into; leave out \(named), or saveInto for one goal")
        }
        return GoalSettings(
            savingsGoalName: name, saveInto: saveInto, goalUids: try goalUids(file.goals ?? [:]),
            newGoalTargets: try file.amounts("newGoalTarget", file.newGoalTarget),
            activationWait: .seconds(try file.bounded(file.goalWaitSeconds, "goalWaitSeconds", 0...600) ?? 60))
    }

    /// `saveInto:` checked: one way of dividing, goals named once each (in any case) with 1
    /// to 255 characters, whole percents from 1 summing to 100, and `whenFull` only for shares.
    private static func saveInto(_ written: ConfigFile.SaveIntoFile) throws(SettingsError) -> SaveInto {
        let division: SaveInto.Division
        switch (written.fill, written.fillInAppOrder, written.shares) {
        case (let names?, _, nil):
            guard !names.isEmpty else { throw refuse("fill names no goal: list them in order, or write fill: app") }
            division = .fill(names)
        case (nil, true, nil):
            division = .fillInAppOrder
        case (nil, false, let shares?):
            guard !shares.isEmpty else {
                throw refuse("shares names no goal: write shares: {Holiday: 70, Christmas: 30}")
            }
            for share in shares where !(1...100).contains(share.percent.value) {
                throw refuse(
                    "the share of \"\(printable(share.goal))\" is \(share.percent.value): each is a whole percent from 1 to 100"
                )
            }
            let sum = shares.reduce(0) { $0 + $1.percent.value }
            guard sum == 100 else {
                throw refuse("the shares sum to \(sum), not 100: each goal's is a whole percent of the week's amount")
            }
            division = .shares(shares.map { SaveInto.Share(goal: $0.goal, percent: $0.percent.value) })
        case (nil, false, nil):
            throw refuse(
                "say how the week is divided: fill (goals in order, each up to its target) or shares (percents)")
        default:
            throw refuse("fill and shares exclude each other: choose one")
        }
        let into = SaveInto(division: division)
        var seen: [String] = []
        for name in into.named {
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name.count <= 255 else {
                throw refuse("a goal's name must have 1 to 255 characters, not \"\(printable(name))\"")
            }
            if let earlier = seen.first(where: { $0.compare(name, options: .caseInsensitive) == .orderedSame }) {
                throw refuse(
                    "names the goal \"\(printable(name))\" twice (\"\(printable(earlier))\"; goals are found by name in any case)"
                )
            }
            seen.append(name)
        }
        let file = ConfigFile()
        var result = into
        if let whenFull = written.whenFull {
            guard case .shares = division else {
                throw refuse("whenFull is for shares: under fill a full goal takes nothing and the next one fills")
            }
            result.whenFull = try file.choice(whenFull, "saveInto.whenFull", default: SaveInto.WhenFull.skip)
        }
        result.whenAllFull = try file.choice(written.whenAllFull, "saveInto.whenAllFull", default: .stay)
        return result
    }

    /// A mistake in `saveInto:`, said as one.
    private static func refuse(_ message: String) -> SettingsError {
        SettingsError(origin: .file, message: "saveInto: " + message)
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
