import RoundUp
import Testing

@testable import RoundUpHost

/// `saveInto:` as the config file writes it: several goals, in order or by percent, and each
/// mistake refused with what is wrong.
@Suite struct SaveIntoSettingsTests {
    static func goals(_ text: String, flags: SettingFlags = SettingFlags(), environment: [String: String] = [:])
        throws -> GoalSettings
    {
        let environment = environment.merging(["HOME": "/home/saver"]) { first, _ in first }
        let settings = try Settings.resolve(
            flags: flags, environment: environment, locations: Locations(environment: environment), configText: text,
            configPath: "config.yaml")
        return settings.goals
    }

    static func refusal(_ text: String, flags: SettingFlags = SettingFlags(), environment: [String: String] = [:])
        -> String?
    {
        do {
            _ = try goals(text, flags: flags, environment: environment)
            return nil
        } catch let error as SettingsError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func withoutItAnAccountSavesIntoOneGoalAsBefore() throws {
        #expect(try Self.goals("savingsGoal: Holiday\n").saveInto == nil)
        #expect(try Self.goals("").saveInto == nil)
    }

    @Test func fillKeepsTheOrderWritten() throws {
        let goals = try Self.goals("saveInto:\n  fill: [Emergency fund, Holiday, Round-ups]\n")
        #expect(goals.saveInto == SaveInto(division: .fill(["Emergency fund", "Holiday", "Round-ups"])))
        #expect(
            try Self.goals("saveInto:\n  fill: app\n  whenAllFull: last\n").saveInto
                == SaveInto(division: .fillInAppOrder, whenAllFull: .last))
    }

    @Test func sharesKeepTheOrderWrittenForTies() throws {
        let goals = try Self.goals("saveInto:\n  shares: {Holiday: 70, Christmas: 30}\n  whenFull: keep\n")
        #expect(
            goals.saveInto
                == SaveInto(
                    division: .shares([
                        SaveInto.Share(goal: "Holiday", percent: 70), SaveInto.Share(goal: "Christmas", percent: 30),
                    ]), whenFull: .keep))
        let reversed = try Self.goals("saveInto:\n  shares:\n    Christmas: 30\n    Holiday: 70\n")
        #expect(reversed.saveInto?.named == ["Christmas", "Holiday"])
        #expect(reversed.saveInto?.whenFull == .skip && reversed.saveInto?.whenAllFull == .stay)
    }

    @Test(arguments: [
        ("saveInto:\n  fill: [A]\nsavingsGoal: Holiday\n", "saveInto and savingsGoal exclude each other"),
        ("saveInto:\n  fill: [A]\n  shares: {A: 100}\n", "saveInto: fill and shares exclude each other"),
        ("saveInto:\n  whenAllFull: last\n", "saveInto: say how the week is divided"),
        ("saveInto:\n  fill: []\n", "saveInto: fill names no goal"),
        (
            "saveInto:\n  fill: apps\n",
            "is a list of goal names ([Emergency fund, Holiday]) or the word app, not 'apps'"
        ),
        ("saveInto:\n  fill: [Holiday, holiday]\n", #"names the goal "holiday" twice ("Holiday""#),
        ("saveInto:\n  fill: [\"  \"]\n", "a goal's name must have 1 to 255 characters"),
        ("saveInto:\n  shares: {A: 70, B: 20}\n", "the shares sum to 90, not 100"),
        ("saveInto:\n  shares: {A: 100, B: 0}\n", #"the share of "B" is 0: each is a whole percent from 1 to 100"#),
        ("saveInto:\n  shares: {A: 50.5, B: 49.5}\n", "'50.5' is not a whole number"),
        ("saveInto:\n  shares: [A, B]\n", "'saveInto.shares' must be"),
        ("saveInto:\n  fill: [A]\n  whenFull: keep\n", "whenFull is for shares"),
        (
            "saveInto:\n  shares: {A: 100}\n  whenFull: always\n",
            "saveInto.whenFull must be 'skip' or 'keep', not 'always'"
        ),
        ("saveInto:\n  fill: [A]\n  whenAllFull: first\n", "saveInto.whenAllFull must be 'stay' or 'last'"),
        (
            "saveInto:\n  fill: [A]\n  whenAllfull: last\n",
            "unknown setting 'saveInto.whenAllfull' (did you mean 'whenAllFull'?)"
        ),
        ("saveInto: Holiday\n", "'saveInto' must be"),
    ])
    func aMistakeIsRefusedNamingIt(text: String, message: String) {
        let refusal = Self.refusal(text)
        #expect(refusal?.contains(message) == true, "\(refusal ?? "accepted")")
    }

    @Test func theGoalNamedOnTheCommandLineOrInTheEnvironmentIsRefusedBesideIt() {
        var flags = SettingFlags()
        flags.savingsGoal = "Holiday"
        #expect(Self.refusal("saveInto:\n  fill: [A]\n", flags: flags)?.contains("--savings-goal") == true)
        #expect(
            Self.refusal("saveInto:\n  fill: [A]\n", environment: ["ROUNDUP_SAVINGS_GOAL": "Holiday"])?.contains(
                "saveInto and ROUNDUP_SAVINGS_GOAL exclude each other") == true)
    }
}
