import ArgumentParser
import Testing

@testable import RoundUpHost
@testable import roundup

/// The crontab check and the recording of a run whose flags could not be parsed read the
/// setting flags with the option groups `run` declares, not a list of names of their own.
@Suite struct SettingFlagScanTests {
    /// Each `--name` the setting groups declare (`SettingFlagScan.names`, read off their own
    /// help), with the `SettingFlags` property it fills: a flag renamed in its group is
    /// followed here.
    static func declared() -> [(name: String, value: KeyPath<SettingFlags, String?>)] {
        let properties: [KeyPath<SettingFlags, String?>] = [
            \.configFile, \.stateDirectory, \.apiBaseURL, \.savingsGoal, \.reportDirectory, \.metricsFile,
        ]
        // Which property a name fills is found by scanning it alone.
        return SettingFlagScan.names.sorted().compactMap { name in
            let flags = SettingFlagScan.flags(in: [name, "probe"])
            return properties.first { flags[keyPath: $0] == "probe" }.map { (name, $0) }
        }
    }

    @Test func everySettingFlagTheGroupsDeclareIsRead() {
        // The six settings a command line can give, each found under the name its group gives it.
        #expect(Self.declared().count == 6)
        #expect(Set(Self.declared().map(\.name)).count == 6)
        for (name, value) in Self.declared() {
            let spaced = SettingFlagScan.flags(in: ["--catch-up", name, "/a b", "--end-date", "2026-11-01", "-q"])
            #expect(spaced[keyPath: value] == "/a b", "\(name) value")
            let joined = SettingFlagScan.flags(in: ["--bogus", "\(name)=/c", "stray"])
            #expect(joined[keyPath: value] == "/c", "\(name)=value")
        }
    }

    @Test func theRunFlagsAreTheOnesItDeclares() {
        // `run --help` lists every name the scan reads, so the two cannot drift apart.
        let runHelp = Roundup.Run.helpMessage(columns: 1000)
        for (name, _) in Self.declared() { #expect(runHelp.contains(name + " "), "run --help lists \(name)") }
    }

    /// A setting flag takes the next word as its value whatever it looks like, and help,
    /// `--`, short options and unknown words are passed over, as a crontab's line needs.
    @Test func theWordAfterASettingFlagIsItsValueWhateverItLooksLike() {
        let dashed = SettingFlagScan.flags(in: ["--report-dir", "-r", "--state-dir", "/srv/x"])
        #expect(dashed.reportDirectory == "-r" && dashed.stateDirectory == "/srv/x")
        #expect(SettingFlagScan.flags(in: ["--savings-goal", "-x"]).savingsGoal == "-x")
        #expect(SettingFlagScan.flags(in: ["--config", "--quiet"]).configFile == "--quiet")
        for passedOver in [["-h"], ["--help"], ["-help"], ["--"], ["&&", "rsync", "-ah"], ["--version"]] {
            let flags = SettingFlagScan.flags(in: passedOver + ["--state-dir", "/s", "--config=/c.yaml"])
            #expect(flags.stateDirectory == "/s" && flags.configFile == "/c.yaml", "after \(passedOver)")
        }
        let twice = SettingFlagScan.flags(in: ["--state-dir", "/first", "--state-dir=/second"])
        #expect(twice.stateDirectory == "/second", "the last one given counts")
    }

    @Test func aShellSeparatorEndsTheCommandAndADanglingFlagIsDropped() {
        let ended = SettingFlagScan.flags(in: ["--state-dir", "/mine", ";", "--state-dir", "/other"])
        #expect(ended.stateDirectory == "/mine")
        let dangling = SettingFlagScan.flags(in: ["--config", "/c.yaml", "--state-dir"])
        #expect(dangling.configFile == "/c.yaml")
        #expect(dangling.stateDirectory == nil)
        // A flag left with no value clears what it gave before, as the last one given.
        let cleared = SettingFlagScan.flags(in: ["--state-dir", "/a", "--config", "/c.yaml", "--state-dir"])
        #expect(cleared.stateDirectory == nil && cleared.configFile == "/c.yaml")
        // A separator right after a setting flag is that flag's value, not the command's end.
        let separator = SettingFlagScan.flags(in: ["--quiet", "--state-dir", ";", "--config", "/c.yaml"])
        #expect(separator.stateDirectory == ";" && separator.configFile == "/c.yaml")
        let none = SettingFlagScan.flags(in: [])
        #expect(none.configFile == nil && none.stateDirectory == nil)
    }

    /// An empty value (`--report-dir=` in a crontab, with its variable unset) is read as
    /// empty, and the other setting flags are kept: the settings then say what is wrong.
    @Test func anEmptyValueIsReadAsEmptyAndTheOtherFlagsStay() {
        let flags = SettingFlagScan.flags(in: [
            "--config", "/c.yaml", "--state-dir", "/s", "--report-dir=", "--api-base-url", "", "--metrics-file=",
        ])
        #expect(flags.configFile == "/c.yaml" && flags.stateDirectory == "/s")
        #expect(flags.reportDirectory == "" && flags.apiBaseURL == "" && flags.metricsFile == "")
        #expect(SettingFlagScan.values.count == SettingFlagScan.names.count, "every setting flag gives a value")
    }
}
