import Foundation
import RoundUp
import RoundUpHost
import RoundUpLedger
import StarlingEmulator
import TestSupport
import Testing

/// The files in `cron/` as shipped: their command lines run through the built binary
/// against the emulator, with only their paths moved into a temporary directory.
@Suite struct SchedulingTests {
    static let cronDirectory = repositoryRoot.appendingPathComponent("cron").path

    static func text(_ name: String) throws -> String {
        try String(contentsOfFile: cronDirectory + "/" + name, encoding: .utf8)
    }

    /// A bank with one settled payment in the week ending the Sunday before today.
    static func bankWithLastWeek(token: String) -> (BankState, Week) {
        let week = Week.newest(endingOn: .sunday, before: Instant.now, in: TestBank.london)
        var bank = TestBank(token: token)
        let account = bank.account("GBP", name: "Personal")
        bank.goal(account, name: "Round-ups", uid: "90c00000-0000-4000-8000-0000000000c1")
        bank.spend(account, 1_234, settled: week.start.adding(milliseconds: 3_600_000))
        return (bank.state, week)
    }

    @Test func theCrontabLineRunsTheJob() async throws {
        let crontab = try Self.text("roundup.crontab")
        let lines = crontab.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(
            !lines.contains { $0.hasPrefix("CRON_TZ=") }, "Debian's and Ubuntu's cron ignore it: no promise of a zone")
        let path = try #require(lines.first { $0.hasPrefix("PATH=") })
        #expect(path.contains("/usr/local/bin"), "the install step puts roundup in /usr/local/bin")
        let entry = try #require(lines.first { $0.hasPrefix("0 6 * * 1 ") }, "Monday at 06:00")
        let command = String(entry.dropFirst("0 6 * * 1 ".count))
        #expect(command.contains("roundup run --catch-up --quiet"), "cron mails only what needs attention")

        // Cron runs the command with /bin/sh, HOME and the PATH above; here `roundup` on
        // that PATH is the built binary and HOME is a temporary directory.
        let home = try TemporaryDirectory()
        let bin = home.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: bin + "/roundup", withDestinationPath: try #require(roundupBinary))
        let token = "cron-token-" + UUID().uuidString
        let (state, week) = Self.bankWithLastWeek(token: token)
        try await withEmulator(state) { server in
            try FileManager.default.createDirectory(
                atPath: home.path + "/.config/roundup", withIntermediateDirectories: true)
            let tokenFile = home.path + "/.config/roundup/token"
            _ = FileManager.default.createFile(
                atPath: tokenFile, contents: Data(token.utf8), attributes: [.posixPermissions: 0o600])
            try "apiBaseURL: \(server.baseURL)\ntokenFile: ~/.config/roundup/token\n"
                .write(toFile: home.path + "/.config/roundup/config.yaml", atomically: true, encoding: .utf8)
            let cronPath = String(path.dropFirst("PATH=".count))
            let result = try await run(
                "/bin/sh", ["-c", "umask 022; " + command],
                environment: ["HOME": home.path, "PATH": "\(bin):\(cronPath)"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.isEmpty && result.stderr.isEmpty, "a run that went well mails nothing")
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [66])
            // The crontab holds the line, and systemd runs cron: status is OK, and names Monday.
            // The shipped crontab, its PATH leading to `bin` as roundup's install step's does.
            try crontab.replacingOccurrences(of: path, with: "PATH=\(bin):\(path.dropFirst("PATH=".count))")
                .write(toFile: home.path + "/crontab.txt", atomically: true, encoding: .utf8)
            try "#!/bin/sh\ncat '\(home.path)/crontab.txt'\n".write(
                toFile: bin + "/crontab", atomically: true, encoding: .utf8)
            try "#!/bin/sh\n[ \"$1\" = is-active ] && printf 'active\\ninactive\\n'\nexit 3\n".write(
                toFile: bin + "/systemctl", atomically: true, encoding: .utf8)
            for tool in ["crontab", "systemctl"] {
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/" + tool)
            }
            let status = try await roundup(
                ["status"], environment: ["HOME": home.path, "PATH": "\(bin):/usr/bin:/bin"])
            #expect(status.status == 0 && status.stdout.hasPrefix("roundup OK"), "\(status.stdout)")
            #expect(
                status.stdout.contains(", by your crontab's line (0 6 * * 1)\n")
                    && status.stdout.contains("next run:        Mon "), "\(status.stdout)")
            #expect(
                FileManager.default.fileExists(
                    atPath: home.path + "/.local/state/roundup/reports/roundup-\(week.endDate).json"))
            // Under cron's usual umask 022, the line still leaves everything yours alone.
            for (file, mode) in [
                ("", 0o700), ("/ledger.sqlite", 0o600), ("/roundup.lock", 0o600),
                ("/reports", 0o700), ("/reports/roundup-\(week.endDate).json", 0o600),
            ] {
                // The week's report is a link to the run's own report: that file is checked.
                let attributes = try FileManager.default.attributesOfItem(
                    atPath: URL(fileURLWithPath: home.path + "/.local/state/roundup" + file).resolvingSymlinksInPath()
                        .path)
                #expect(attributes[.posixPermissions] as? Int == mode, "\(file)")
            }
        }
    }

    /// The service's ExecStart, with its Environment= lines and the token handed over as
    /// systemd hands over a credential: a read-only file in `$CREDENTIALS_DIRECTORY`.
    @Test func theServiceCommandRunsTheJobWithTheTokenAsACredential() async throws {
        let unit = try Self.text("roundup.service")
        let entries = unit.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && $0.contains("=") }
        func values(_ key: String) -> [String] {
            entries.filter { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        #expect(values("LoadCredential") == ["starling-token:/etc/roundup/starling-token"])
        #expect(!unit.contains("STARLING_ACCESS_TOKEN"), "the token is never in the unit")
        #expect(values("DynamicUser") == ["yes"])
        #expect(values("StateDirectory") == ["roundup"])
        let exec = try #require(values("ExecStart").first).split(separator: " ").map(String.init)
        #expect(exec.first == "/usr/local/bin/roundup")

        let root = try TemporaryDirectory()
        // systemd's specifiers for a system service: %S is /var/lib, %E is /etc.
        func expand(_ text: String) -> String {
            text.replacingOccurrences(of: "%S", with: root.path + "/var/lib")
                .replacingOccurrences(of: "%E", with: root.path + "/etc")
        }
        var environment = ["PATH": "/usr/bin:/bin"]
        for assignment in values("Environment") {
            let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
            environment[parts[0]] = expand(parts[1])
        }
        #expect(environment["ROUNDUP_STATE_DIR"] == root.path + "/var/lib/roundup")
        let credentials = root.path + "/run/credentials/roundup.service"
        try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root.path + "/etc/roundup", withIntermediateDirectories: true)
        environment["CREDENTIALS_DIRECTORY"] = credentials

        let token = "unit-token-" + UUID().uuidString
        _ = FileManager.default.createFile(
            atPath: credentials + "/starling-token", contents: Data(token.utf8),
            attributes: [.posixPermissions: 0o400])
        let (state, week) = Self.bankWithLastWeek(token: token)
        try await withEmulator(state) { server in
            try "apiBaseURL: \(server.baseURL)\n"
                .write(toFile: try #require(environment["ROUNDUP_CONFIG"]), atomically: true, encoding: .utf8)
            let check = try await roundup(["check"], environment: environment)
            #expect(check.status == 0, "\(check.stdout)")
            #expect(check.stdout.contains("ok    token: from the systemd credential starling-token"))

            let result = try await roundup(Array(exec.dropFirst()), environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [66])
            #expect(
                FileManager.default.fileExists(
                    atPath: root.path + "/var/lib/roundup/reports/roundup-\(week.endDate).json"))
            #expect(!result.stdout.contains(token) && !result.stderr.contains(token))

            // The timer fires again after a restart; the week is not moved twice.
            let again = try await roundup(Array(exec.dropFirst()), environment: environment)
            #expect(again.status == 0)
            #expect(await server.bank.transfers.count == 1)
        }
    }

    /// systemd starts the notification when the run has failed for good, and only then.
    @Test func aRunThatFailedForGoodTellsTheSaverOnce() throws {
        let unit = try Self.text("roundup.service")
        #expect(unit.contains("\nOnFailure=roundup-notify@%n.service roundup-tell@%n.service\n"))
        let notify = try Self.text("roundup-notify@.service")
        #expect(notify.contains("\nExecCondition=/usr/bin/systemctl is-failed --quiet %i\n"), "not between restarts")
        #expect(notify.contains("\nConditionFileIsExecutable=/etc/roundup/notify\n"), "nothing without a command")
        // notify.to hears of a failure from roundup tell, then, and not from each run.
        #expect(unit.contains("\nEnvironment=ROUNDUP_NOTIFY_FAILURES=on-failure-unit\n"))
        let tell = try Self.text("roundup-tell@.service")
        #expect(
            tell.contains("\nExecCondition=+/usr/bin/systemctl is-failed --quiet %i\n"), "not between restarts, as root"
        )
        #expect(tell.contains("\nExecStart=/usr/local/bin/roundup tell\n"))
        for line in [
            "User=roundup", "DynamicUser=yes", "StateDirectory=roundup", "EnvironmentFile=-/etc/roundup/environment",
        ] {
            #expect(tell.contains("\n\(line)\n"), "the service's own user, ledger and secrets: \(line)")
        }
        #expect(!tell.contains("LoadCredential"), "no token")
    }

    @Test func theTimerRunsOnMondayMorningsInLondonAndCatchesUp() throws {
        let timer = try Self.text("roundup.timer")
        #expect(timer.contains("OnCalendar=Mon *-*-* 06:00:00 Europe/London"))
        #expect(timer.contains("Persistent=true"))
    }

    /// `systemd-analyze verify` reads the units as systemd would and warns about any key it
    /// does not know or value it cannot use. It needs the ExecStart binary to exist, so the
    /// check runs on a copy pointing at the built one. Machines without systemd skip it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")))
    func systemdAcceptsTheUnitsWithoutWarnings() async throws {
        let directory = try TemporaryDirectory()
        let service = try Self.text("roundup.service")
            .replacingOccurrences(of: "/usr/local/bin/roundup", with: try #require(roundupBinary))
        try service.write(toFile: directory.path + "/roundup.service", atomically: true, encoding: .utf8)
        try Self.text("roundup.timer")
            .write(toFile: directory.path + "/roundup.timer", atomically: true, encoding: .utf8)
        // The notification's command is the user's; a stand-in takes its place.
        let notify = directory.path + "/notify"
        _ = FileManager.default.createFile(
            atPath: notify, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o700])
        try Self.text("roundup-notify@.service").replacingOccurrences(of: "/etc/roundup/notify", with: notify)
            .write(toFile: directory.path + "/roundup-notify@.service", atomically: true, encoding: .utf8)
        try Self.text("roundup-tell@.service")
            .replacingOccurrences(of: "/usr/local/bin/roundup", with: try #require(roundupBinary))
            .write(toFile: directory.path + "/roundup-tell@.service", atomically: true, encoding: .utf8)
        let result = try await run(
            "/usr/bin/systemd-analyze",
            [
                "verify", "--man=no", directory.path + "/roundup.service", directory.path + "/roundup.timer",
                directory.path + "/roundup-notify@roundup.service.service",
                directory.path + "/roundup-tell@roundup.service.service",
            ],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "\(result.stdout)")
    }

    /// The crontab line `check --crontab` prints for a shell with XDG variables names that
    /// shell's config file and state directory, so that cron, which sets only HOME and
    /// PATH, runs with the same config and ledger.
    @Test func theCrontabLineCheckPrintsReadsWhatTheShellReads() async throws {
        let home = try TemporaryDirectory()
        let token = "cron-xdg-token-" + UUID().uuidString
        let (state, week) = Self.bankWithLastWeek(token: token)
        let (configHome, stateHome) = (home.path + "/xdg config", home.path + "/xdg-state")
        try FileManager.default.createDirectory(atPath: configHome + "/roundup", withIntermediateDirectories: true)
        let tokenFile = configHome + "/roundup/token"
        _ = FileManager.default.createFile(
            atPath: tokenFile, contents: Data(token.utf8), attributes: [.posixPermissions: 0o600])
        let shell = [
            "HOME": home.path, "PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": configHome, "XDG_STATE_HOME": stateHome,
        ]
        try await withEmulator(state) { server in
            try "apiBaseURL: \(server.baseURL)\ntokenFile: \(tokenFile)\n"
                .write(toFile: configHome + "/roundup/config.yaml", atomically: true, encoding: .utf8)
            let printed = try await roundup(["check", "--crontab"], environment: shell)
            #expect(printed.status == 0, "\(printed.stderr)")
            let entry = try #require(printed.stdout.split(separator: "\n").first { $0.hasPrefix("0 6 * * 1 ") })
            let command = String(entry.dropFirst("0 6 * * 1 ".count))
            #expect(command.contains(" --config '\(configHome)/roundup/config.yaml'"), "\(command)")
            #expect(command.contains(" --state-dir \(stateHome)/roundup"), "\(command)")
            // As cron runs it: /bin/sh, HOME and a PATH, no XDG variable.
            let result = try await run(
                "/bin/sh", ["-c", command], environment: ["HOME": home.path, "PATH": "/usr/bin:/bin"])
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [66])
            #expect(FileManager.default.fileExists(atPath: stateHome + "/roundup/reports/roundup-\(week.endDate).json"))
            #expect(!FileManager.default.fileExists(atPath: home.path + "/.local/state/roundup"), "no second ledger")
        }
    }

    /// `check` reads this user's crontab as cron would run its line and warns when that
    /// line would read another config file or keep another ledger than the shell does.
    @Test func checkWarnsWhenCronWouldReadAnotherConfigOrLedger() async throws {
        let home = try TemporaryDirectory()
        let bin = home.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: home.path + "/.config/roundup", withIntermediateDirectories: true)
        try "timeZone: Europe/London\n"
            .write(toFile: home.path + "/.config/roundup/config.yaml", atomically: true, encoding: .utf8)
        /// A `crontab` on PATH whose `-l` prints `text`.
        func crontab(_ text: String) throws {
            try text.write(toFile: home.path + "/crontab.txt", atomically: true, encoding: .utf8)
            try "#!/bin/sh\ncat '\(home.path)/crontab.txt'\n".write(
                toFile: bin + "/crontab", atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/crontab")
        }
        let plain = ["HOME": home.path, "PATH": "\(bin):/usr/bin:/bin"]
        // The shipped line, in a shell with no XDG variable: the same config and ledger.
        try crontab(try Self.text("roundup.crontab"))
        let same = try await roundup(["check"], environment: plain)
        #expect(
            same.stdout.contains("ok    cron: your crontab's line reads the same config and ledger"), "\(same.stdout)")
        // The config names no tokenFile, and cron sets no STARLING_ACCESS_TOKEN.
        #expect(same.stdout.contains("WARN  cron: your crontab's line would find no token"), "\(same.stdout)")
        // The lines check --crontab prints name whole paths, and refuse one cron would cut.
        let binary = try #require(roundupBinary)
        let relative = try await run(
            "/bin/sh", ["-c", "cd '\(home.path)' && '\(binary)' check --crontab --state-dir rel"], environment: plain)
        #expect(relative.stdout.contains(" --state-dir \(home.path)/rel\n"), "\(relative.stdout)")
        #expect(relative.stdout.hasPrefix("# cron sets no STARLING_ACCESS_TOKEN"), "\(relative.stdout)")
        let newline = try await roundup(["check", "--crontab", "--state-dir", home.path + "/a\nb"], environment: plain)
        #expect(newline.status == 78 && newline.stderr.contains("a crontab line cannot name"), "\(newline.stderr)")
        // A shell whose XDG_STATE_HOME moves the ledger: cron would keep another one.
        let moved = try await roundup(
            ["check"], environment: plain.merging(["XDG_STATE_HOME": home.path + "/st"]) { $1 })
        #expect(
            moved.stdout.contains(
                "WARN  cron: your crontab's line would read the ledger in \(home.path)/.local/state/roundup where "
                    + "this shell uses \(home.path)/st/roundup"), "\(moved.stdout)")
        // A line naming a config that is not there would fail.
        try crontab("0 6 * * 1 roundup run --quiet --config /nowhere/config.yaml\n")
        let failing = try await roundup(["check"], environment: plain)
        #expect(
            failing.stdout.contains(
                "WARN  cron: your crontab's line for roundup would fail: cannot read the config file /nowhere/config.yaml"
            ),
            "\(failing.stdout)")
        // cron ends the command at a `%` and makes `\%` a `%`: check reads the line so.
        let state = home.path + "/.local/state/roundup"
        try crontab("0 6 * * 1 roundup run --quiet --state-dir \(state)%ignored by cron\n")
        let cut = try await roundup(["check"], environment: plain)
        #expect(
            cut.stdout.contains("ok    cron: your crontab's line reads the same config and ledger"), "\(cut.stdout)")
        try crontab("0 6 * * 1 ROUNDUP_STATE_DIR=\(state)\\%2 roundup run --quiet\n")
        let escaped = try await roundup(["check"], environment: plain)
        #expect(escaped.stdout.contains("would read the ledger in \(state)%2 where"), "\(escaped.stdout)")
        // The lines `check --crontab` prints for that shell settle it.
        let printed = try await roundup(
            ["check", "--crontab"], environment: plain.merging(["XDG_STATE_HOME": home.path + "/st"]) { $1 })
        try crontab(printed.stdout)
        let settled = try await roundup(
            ["check"], environment: plain.merging(["XDG_STATE_HOME": home.path + "/st"]) { $1 })
        #expect(
            settled.stdout.contains("ok    cron: your crontab's line reads the same config and ledger"),
            "\(settled.stdout)")
        // check names where it looked.
        #expect(
            same.stdout.contains(
                "ok    config: \(home.path)/.config/roundup/config.yaml (the one default place, "
                    + "~/.config/roundup/config.yaml, as neither --config nor ROUNDUP_CONFIG is set)"), "\(same.stdout)"
        )
        #expect(
            same.stdout.contains(
                "state directory: \(home.path)/.local/state/roundup (the default, ~/.local/state/roundup)"))
    }

    /// `check --system` and `status --system` read the files `roundup.service` names:
    /// the paths `SystemService` holds are the unit's.
    @Test func theSystemServicesFilesAreTheUnitsOwn() throws {
        let service = try Self.text("roundup.service")
        #expect(service.contains("LoadCredential=starling-token:\(SystemService.tokenFile)"))
        #expect(SystemService.configFile == "/etc/roundup/config.yaml")
        #expect(service.contains("Environment=ROUNDUP_CONFIG=%E/roundup/config.yaml"))
        #expect(SystemService.stateDirectory == "/var/lib/roundup")
        #expect(
            service.contains("Environment=ROUNDUP_STATE_DIR=%S/roundup") && service.contains("StateDirectory=roundup\n")
        )
        #expect(service.contains("EnvironmentFile=-\(SystemService.environmentFile)"))
        #expect(URL(fileURLWithPath: SystemService.tokenFile).lastPathComponent == TokenSource.credentialName)
    }
}
