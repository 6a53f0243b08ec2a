import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// The files a run trusts, held to the rule the state directory is held to: a config file
/// or a token file that another user owns, or that others could rewrite or swap, is refused
/// before the first request (78), by `run`, `--dry-run` and `check`, so that no one else
/// can point `apiBaseURL` at a listener of theirs and be sent the token. Each runs the
/// built binary against the emulator, which counts every request it is sent.
@Suite struct GuardedInputsTests {
    static let week = "2026-11-15"
    /// Another user: only root can give a file to them.
    static let someoneElse: uid_t = 65534

    let home: TemporaryDirectory
    let token = "guarded-inputs-" + UUID().uuidString

    init() throws { home = try TemporaryDirectory() }

    func bank() -> TestBank {
        var bank = TestBank(token: token)
        let gbp = bank.account("GBP", name: "Personal")
        bank.goal(gbp, name: "Round-ups", uid: "90c00000-0000-4000-8000-0000000000f1")
        bank.spend(gbp, 1_50, settled: Instant(iso8601: "2026-11-12T12:00:00Z")!)
        return bank
    }

    /// A config at `path` (its directory made first, of `directoryMode` when given) that
    /// sends the bank's requests to `server`, of `mode`.
    func config(at path: String, for server: EmulatorServer, mode: mode_t, directoryMode: mode_t? = nil) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if let directoryMode { chmod(directory, directoryMode) }
        try "apiBaseURL: \(server.baseURL)\nstateDir: \(home.path)/state\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        chmod(path, mode)
    }

    /// `run`, `run --dry-run` and `check` with the config at `path`; their executions.
    func everyCommand(_ path: String, environment: [String: String]? = nil) async throws -> [Execution] {
        let environment = environment ?? binaryEnvironment(home, token: token)
        var executions: [Execution] = []
        for arguments in [
            ["run", "--end-date", Self.week], ["run", "--end-date", Self.week, "--dry-run"], ["check"],
        ] {
            executions.append(try await roundup(arguments + ["--config", path], environment: environment))
        }
        return executions
    }

    /// A config file another user owns, one anyone may write to, one a group not the user's
    /// own may write to, and one in a directory anyone may write to (not sticky): each is
    /// refused by every command before the first request, naming the file and the fix.
    @Test func aConfigOthersCouldRewriteIsRefusedBeforeTheBankIsAsked() async throws {
        let asRoot = geteuid() == 0
        try await withEmulator(bank().state) { server in
            var cases: [(name: String, path: String, words: String)] = []
            var hops: [String] = []
            defer {
                for hop in hops where unlink(hop) != 0 { rmdir(hop) }
            }
            let writable = home.path + "/writable/config.yaml"
            try config(at: writable, for: server, mode: 0o666)
            cases.append(
                (
                    "mode 666", writable,
                    "can be written by anyone (mode 666), who could rewrite it; run: chmod go-w \(writable)"
                ))
            let open = home.path + "/open/config.yaml"
            try config(at: open, for: server, mode: 0o600, directoryMode: 0o777)
            cases.append(
                (
                    "in a directory of mode 777", open,
                    "\(home.path)/open can be written by anyone (mode 777), who could replace \(open); run: chmod go-w \(home.path)/open"
                ))
            if asRoot {
                let theirs = home.path + "/theirs/config.yaml"
                try config(at: theirs, for: server, mode: 0o644)
                chown(theirs, Self.someoneElse, Self.someoneElse)
                cases.append(
                    (
                        "another user's", theirs,
                        "belongs to another user (uid \(Self.someoneElse)), who could rewrite it"
                    ))
                let group = home.path + "/group/config.yaml"
                try config(at: group, for: server, mode: 0o664)
                chown(group, 0, Self.someoneElse)
                cases.append(
                    ("writable by another group", group, "can be written by its group (gid \(Self.someoneElse)"))
                let foreignOpen = home.path + "/foreign-open/config.yaml"
                try config(at: foreignOpen, for: server, mode: 0o600, directoryMode: 0o777)
                chown(home.path + "/foreign-open", 0, Self.someoneElse)
                cases.append(
                    (
                        "in a directory of mode 777 of another group", foreignOpen,
                        "\(home.path)/foreign-open can be written by anyone (mode 777)"
                    ))
                // A link of the saver's, to a link in another user's directory, to a config of
                // the saver's: the other user could point their link anywhere.
                let theirHop = home.path + "/their-hop"
                try FileManager.default.createDirectory(atPath: theirHop, withIntermediateDirectories: true)
                let good = home.path + "/mine/config.yaml"
                try config(at: good, for: server, mode: 0o600)
                try FileManager.default.createSymbolicLink(atPath: theirHop + "/hop", withDestinationPath: good)
                lchown(theirHop + "/hop", Self.someoneElse, Self.someoneElse)
                chown(theirHop, Self.someoneElse, Self.someoneElse)
                try FileManager.default.createSymbolicLink(
                    atPath: home.path + "/mine/linked.yaml", withDestinationPath: theirHop + "/hop")
                cases.append(
                    (
                        "through another user's link in the middle of the way", home.path + "/mine/linked.yaml",
                        "\(theirHop) belongs to another user (uid \(Self.someoneElse))"
                    ))
                // The same, with the other user's link in /tmp, where anyone may make one.
                let tmpHop = "/tmp/roundup-hop-\(UUID().uuidString)"
                try FileManager.default.createSymbolicLink(atPath: tmpHop, withDestinationPath: good)
                lchown(tmpHop, Self.someoneElse, Self.someoneElse)
                hops.append(tmpHop)
                try FileManager.default.createSymbolicLink(
                    atPath: home.path + "/mine/via-tmp.yaml", withDestinationPath: tmpHop)
                cases.append(
                    (
                        "through another user's link in /tmp", home.path + "/mine/via-tmp.yaml",
                        "\(tmpHop) belongs to another user (uid \(Self.someoneElse))"
                    ))
                // The same link of theirs, reached through a link of the saver's whose target
                // is longer than a thousand bytes: every link on the way is read whole.
                let padded = theirHop + String(repeating: "/.", count: 600) + "/hop"
                try FileManager.default.createSymbolicLink(
                    atPath: home.path + "/mine/long.yaml", withDestinationPath: padded)
                cases.append(
                    (
                        "through a link with a long target, to another user's link", home.path + "/mine/long.yaml",
                        "\(theirHop) belongs to another user (uid \(Self.someoneElse))"
                    ))
                // An access control list too long to read in one go (tmpfs keeps such lists).
                let shm = "/dev/shm/roundup-guarded-\(UUID().uuidString)"
                if (try? FileManager.default.createDirectory(atPath: shm, withIntermediateDirectories: false)) != nil {
                    hops.append(shm + "/config.yaml")
                    hops.append(shm)
                    try config(at: shm + "/config.yaml", for: server, mode: 0o600)
                    if Self.grantWrite(to: Self.someoneElse, on: shm + "/config.yaml", fillers: 600) {
                        cases.append(
                            (
                                "with an access control list of 600 entries", shm + "/config.yaml",
                                "has an access control list that lets user \(Self.someoneElse) write to it"
                            ))
                    } else {
                        print("GuardedInputsTests: /dev/shm keeps no long access control lists, so none is tried")
                    }
                }
                let listed = home.path + "/listed/config.yaml"
                try config(at: listed, for: server, mode: 0o600)
                if Self.grantWrite(to: Self.someoneElse, on: listed) {
                    cases.append(
                        (
                            "with an access control list that lets another user write", listed,
                            "has an access control list that lets user \(Self.someoneElse) write to it"
                        ))
                } else {
                    print("GuardedInputsTests: this file system keeps no access control lists, so none is tried")
                }
                let theirDirectory = home.path + "/their-directory/config.yaml"
                try config(at: theirDirectory, for: server, mode: 0o644)
                chown(home.path + "/their-directory", Self.someoneElse, Self.someoneElse)
                cases.append(("in another user's directory", theirDirectory, "their-directory belongs to another user"))
            } else {
                print("GuardedInputsTests: not root, so files of another user's are not tried")
            }
            var exits: [Int32] = []
            for (name, path, words) in cases {
                for execution in try await everyCommand(path) {
                    #expect(execution.status == 78, "\(name): \(execution.stdout) \(execution.stderr)")
                    #expect(
                        (execution.stdout + execution.stderr).contains(words),
                        "\(name): \(execution.stdout) \(execution.stderr)")
                    #expect(!(execution.stdout + execution.stderr).contains(token), "the token is never said")
                    exits.append(execution.status)
                }
            }
            #expect(await server.bank.arrivals == 0, "refused before the first request")
            #expect(!FileManager.default.fileExists(atPath: home.path + "/state"), "nothing created")
            robustnessLine(
                "a config another user owns, or that others could rewrite (mode 666, a group's, in a 777 directory), by run, --dry-run and check",
                "exits \(Set(exits).sorted().map(String.init).joined(separator: ", ")) for \(cases.count) files × 3 commands, before any request: the token went nowhere",
                moneyExactlyOnce: await server.bank.transfers.isEmpty)
        }
    }

    /// Gives `user` write access to `path` through a POSIX access control list, as
    /// `setfacl -m u:USER:rw` does (written with Python's standard library: the attribute's
    /// own format); false when the file system keeps none.
    /// With `fillers`, so many read-only entries for other users come first, to make the
    /// list long.
    static func grantWrite(to user: uid_t, on path: String, fillers: Int = 0) -> Bool {
        let script = """
            import os, struct, sys
            fillers = [(2, 4, 100000 + n) for n in range(int(sys.argv[3]))]
            entries = [(1, 6, 0xFFFFFFFF)] + fillers + [(2, 6, int(sys.argv[2])), (4, 4, 0xFFFFFFFF),
                (0x10, 6, 0xFFFFFFFF), (0x20, 0, 0xFFFFFFFF)]
            value = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *entry) for entry in entries)
            os.setxattr(sys.argv[1], "system.posix_acl_access", value)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, path, String(user), String(fillers)]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// A config in a sticky directory anyone may write to, as /tmp, is the user's own to
    /// keep there: taken, in /tmp itself and in a sticky directory of the test's.
    @Test func aConfigInAStickyDirectoryIsTaken() async throws {
        try await withEmulator(bank().state) { server in
            let sticky = home.path + "/sticky/config.yaml"
            try config(at: sticky, for: server, mode: 0o600, directoryMode: 0o1777)
            let inTmp = "/tmp/roundup-guarded-\(UUID().uuidString).yaml"
            try config(at: inTmp, for: server, mode: 0o600)
            defer { unlink(inTmp) }
            var tmp = stat()
            #expect(stat("/tmp", &tmp) == 0 && tmp.st_mode & S_ISVTX != 0 && tmp.st_uid == 0, "/tmp is root's, sticky")
            let dryRun = try await roundup(
                ["run", "--end-date", Self.week, "--dry-run", "--config", inTmp],
                environment: binaryEnvironment(home, token: token))
            #expect(dryRun.status == 0, "\(dryRun.stderr)")
            let run = try await roundup(
                ["run", "--end-date", Self.week, "--config", sticky], environment: binaryEnvironment(home, token: token)
            )
            #expect(run.status == 0, "\(run.stderr)")
            #expect(await server.bank.transfers.map(\.amount.minorUnits) == [50])
        }
    }

    /// The token file's directories are held to the config's rule: one in a directory
    /// anyone may write to (not sticky) could be swapped for another, and is refused.
    @Test func aTokenFileInADirectoryOthersCanWriteToIsRefused() async throws {
        try await withEmulator(bank().state) { server in
            let directory = home.path + "/open-token"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            chmod(directory, 0o777)
            let tokenFile = directory + "/token"
            try token.write(toFile: tokenFile, atomically: true, encoding: .utf8)
            chmod(tokenFile, 0o600)
            let path = home.path + "/config.yaml"
            try "apiBaseURL: \(server.baseURL)\nstateDir: \(home.path)/state\ntokenFile: \(tokenFile)\n".write(
                toFile: path, atomically: true, encoding: .utf8)
            var environment = binaryEnvironment(home, token: token)
            environment["STARLING_ACCESS_TOKEN"] = nil
            for execution in try await everyCommand(path, environment: environment) {
                #expect(execution.status == 78, "\(execution.stdout) \(execution.stderr)")
                #expect(
                    (execution.stdout + execution.stderr).contains(
                        "the token file \(tokenFile): \(directory) can be written by anyone (mode 777)"),
                    "\(execution.stdout) \(execution.stderr)")
            }
            #expect(await server.bank.arrivals == 0, "refused before the first request")
            chmod(directory, 0o700)
            let fine = try await roundup(
                ["run", "--end-date", Self.week, "--config", path], environment: environment)
            #expect(fine.status == 0, "once the directory is the user's alone: \(fine.stderr)")
        }
    }
}
