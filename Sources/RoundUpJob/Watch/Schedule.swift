import Foundation
import RoundUp
public import RoundUpVocabulary

/// This user's schedule for roundup, as the systemd timer and the crontab say. Commands are
/// found on `searchPath`, the environment's `PATH`.
public enum Schedule {
    /// When the next scheduled run is: the systemd timer's next elapse (system, then user),
    /// else the crontab line's schedule; nil when neither is found.
    public static func nextRun(searchPath: String?) -> String? {
        nextRun(searchPath: searchPath, crontab: crontab(searchPath: searchPath))
    }

    /// The next scheduled run, with this user's crontab as read (`crontab(searchPath:)`).
    static func nextRun(searchPath: String?, crontab: String?) -> String? {
        for scope in [[], ["--user"]] {
            let next = output(
                of: "systemctl", scope + ["show", "roundup.timer", "--property=NextElapseUSecRealtime", "--value"],
                searchPath: searchPath)?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if let next, !next.isEmpty, next != "n/a", !next.hasPrefix("0") { return "\(next) (roundup.timer)" }
        }
        guard let line = crontabLine(in: crontab) else { return nil }
        let schedule = line.split(separator: " ").prefix(5).joined(separator: " ")
        // cron runs in the system's zone: Debian's and Ubuntu's ignore CRON_TZ, so no other
        // zone is claimed.
        return "crontab: \(schedule), in the system's time zone"
    }

    /// This user's crontab (`crontab -l`), read once by each command that looks at it.
    static func crontab(searchPath: String?) -> String? { output(of: "crontab", ["-l"], searchPath: searchPath) }

    /// The line of `crontab` that runs roundup.
    static func crontabLine(in crontab: String?) -> String? {
        guard let crontab else { return nil }
        let lines = crontab.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        return lines.first { !$0.hasPrefix("#") && $0.contains("roundup run") }
    }

    /// What `command` (found on PATH) prints, when it exits 0.
    static func output(of command: String, _ arguments: [String], searchPath: String?) -> String? {
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
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
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

    /// The line of `crontab` that runs roundup, as cron would run it: the words after
    /// `roundup` (quotes removed; `$HOME`, `${HOME}` and a leading `~` expanded with `home`;
    /// cut at an unescaped `%`, which cron makes a line break), and the variables the crontab
    /// and the line set before it. Nil when there is none.
    static func cronRun(in crontab: String?, home: String?) -> (arguments: [String], variables: [String: String])? {
        guard let crontab else { return nil }
        var variables: [String: String] = [:]
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
            for word in words[..<index].reversed() {
                guard let equals = word.firstIndex(of: "="), word.first?.isLetter == true else { break }
                variables[String(word[..<equals])] = String(word[word.index(after: equals)...])
            }
            return (Array(words[(index + 2)...]), variables)
        }
        return nil
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
