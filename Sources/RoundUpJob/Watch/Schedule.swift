import Foundation
import RoundUp
public import RoundUpVocabulary

/// This user's crontab and the commands that tell of schedules. Commands are found on
/// `searchPath`, the environment's `PATH`.
public enum Schedule {
    /// This user's crontab (`crontab -l`), read once by each command that looks at it.
    static func crontab(searchPath: String?) -> String? { output(of: "crontab", ["-l"], searchPath: searchPath) }

    /// The settings `run` would load as cron runs it: with HOME (`home`) and the crontab's
    /// variables, no XDG variable, and the flags `settingFlags` reads among its words; and
    /// the state directory it would keep, even when the settings cannot be had.
    static func settings(of run: CronRun, home: String?, settingFlags: ([String]) -> SettingFlags)
        -> (loaded: Result<LoadedSettings, SettingsError>, stateDirectory: String?)
    {
        var environment = run.variables
        environment["HOME"] = environment["HOME"] ?? home
        let flags = settingFlags(run.arguments)
        let locations = Locations(environment: environment)
        do throws(SettingsError) {
            let loaded = try Settings.load(flags: flags, environment: environment, locations: locations)
            return (.success(loaded), loaded.settings.state.directory)
        } catch {
            return (
                .failure(error), StateSettings.directory(flags: flags, environment: environment, locations: locations)
            )
        }
    }

    /// What `command` (found on PATH) prints, when it exits 0; with `anyStatus`, whatever
    /// it exits with (`systemctl is-active` exits 3 for an inactive unit).
    static func output(of command: String, _ arguments: [String], searchPath: String?, anyStatus: Bool = false)
        -> String?
    {
        let paths = (searchPath ?? "/usr/bin:/bin").split(separator: ":")
        guard let executable = paths.map({ "\($0)/\(command)" }).first(where: FileManager.default.isExecutableFile)
        else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 || anyStatus ? String(decoding: data, as: UTF8.self) : nil
    }
}

extension Schedule {
    /// The lines for this user's crontab that run roundup every Monday at 06:00, in the
    /// system's time zone: `executable` by its full path, and the config file and state
    /// directory of `loaded` named whole (cron starts in HOME, not `workingDirectory`), so
    /// that cron (which sets only HOME, and no XDG variable) reads the same config and ledger
    /// as the shell that printed them. A path cron would cut (a line break, a backslash) is
    /// refused; a config with no `tokenFile` is said, since cron sets no token.
    public static func crontabEntry(executable: String, loaded: LoadedSettings, workingDirectory: String)
        throws(CommandFailure) -> String
    {
        let whole = { (path: String) in path.hasPrefix("/") ? path : workingDirectory + "/" + path }
        let (program, config, state) = (
            whole(executable), loaded.configPath.map(whole), whole(loaded.settings.state.directory)
        )
        if let cut = [program, config, state].compactMap({ $0 }).first(where: { $0.contains { "\n\r\\".contains($0) } })
        {
            throw CommandFailure(
                .configuration,
                "a crontab line cannot name \(printable(cut)): cron would cut it at its line break or backslash; "
                    + "choose a config file and state directory without them")
        }
        var command = "umask 077 && \(cronWord(program)) run --catch-up --quiet"
        if let config { command += " --config \(cronWord(config))" }
        command += " --state-dir \(cronWord(state))"
        let noToken =
            loaded.settings.bank.tokenFile == nil
            ? "# cron sets no STARLING_ACCESS_TOKEN: set tokenFile in the config, or the run finds no token.\n" : ""
        return noToken + """
            # roundup: every Monday at 06:00 in the system's time zone (cron ignores CRON_TZ), for the
            # week that ended on weekEndsOn in roundup's timeZone; --quiet prints only what needs you.
            0 6 * * 1 \(command)

            """
    }

    /// `word` as /bin/sh reads it in a crontab line: quoted when it needs to be, with `%`
    /// (a newline to cron) escaped.
    static func cronWord(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) && $0.isASCII || "/._-+:,@".unicodeScalars.contains($0)
        }
        let quoted = plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        return quoted.replacingOccurrences(of: "%", with: "\\%")
    }

    /// A line of a crontab that runs roundup, as cron would run it.
    struct CronRun {
        /// Its time fields as written: five words, or one `@` word.
        var schedule: String
        /// The words after `roundup` (quotes removed; `$HOME`, `${HOME}` and a leading `~`
        /// expanded; cut at an unescaped `%`, which cron makes a line break).
        var arguments: [String]
        /// The variables the crontab and the line set before it.
        var variables: [String: String]
    }

    /// The lines of `crontab` that run roundup (`roundup run`), in order, with `home` for
    /// `$HOME` and `~`.
    static func cronRuns(in crontab: String?, home: String?) -> [CronRun] {
        guard let crontab else { return [] }
        var variables: [String: String] = [:]
        var runs: [CronRun] = []
        for raw in crontab.split(separator: "\n") {
            let line = cronCommand(raw.trimmingCharacters(in: .whitespaces))
            guard !line.hasPrefix("#"), !line.isEmpty else { continue }
            let words = shellWords(line, home: home)
            if words.count == 1, let equals = words[0].firstIndex(of: "="),
                words[0][..<equals].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
            {
                variables[String(words[0][..<equals])] = String(words[0][words[0].index(after: equals)...])
                continue
            }
            guard line.contains("roundup run"),
                let index = words.firstIndex(where: { $0 == "roundup" || $0.hasSuffix("/roundup") }),
                words.dropFirst(index + 1).first == "run"
            else { continue }
            // NAME=value words just before the command are its environment too.
            var own = variables
            for word in words[..<index].reversed() {
                guard let equals = word.firstIndex(of: "="), word.first?.isLetter == true else { break }
                own[String(word[..<equals])] = String(word[word.index(after: equals)...])
            }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            let schedule = fields.first?.hasPrefix("@") == true ? fields.prefix(1) : fields.prefix(5)
            runs.append(
                CronRun(
                    schedule: schedule.joined(separator: " "), arguments: Array(words[(index + 2)...]),
                    variables: own))
        }
        return runs
    }

    /// `line` as cron hands it to /bin/sh: up to its first `%` not escaped by a backslash,
    /// with `\%` made `%`.
    static func cronCommand(_ line: String) -> String {
        var command = ""
        var escaped = false
        for character in line {
            if character == "%", !escaped { break }
            if escaped, character != "%" { command.append("\\") }
            escaped = character == "\\" && !escaped
            if !escaped { command.append(character) }
        }
        return command
    }

    /// `line` split into words as /bin/sh would, near enough for a crontab line: quotes
    /// group and go, `&&` and `;` end a word, `$HOME` and a leading `~` are expanded.
    static func shellWords(_ line: String, home: String?) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var characters = Array(line)
        if let home {
            characters = Array(
                line.replacingOccurrences(of: "${HOME}", with: home).replacingOccurrences(of: "$HOME", with: home))
        }
        var index = 0
        func end() {
            if inWord { words.append(word) }
            word = ""
            inWord = false
        }
        while index < characters.count {
            let character = characters[index]
            index += 1
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                inWord = true
            case "\\" where index < characters.count:
                word.append(characters[index])
                index += 1
                inWord = true
            case " ", "\t":
                end()
            case ";", "&", "|":
                end()
                words.append(String(character))
            case "~" where !inWord && home != nil:
                word += home!
                inWord = true
            default:
                word.append(character)
                inWord = true
            }
        }
        end()
        return words
    }
}
