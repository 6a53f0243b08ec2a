import ChildProcess
import Foundation
import RoundUp
public import RoundUpVocabulary

/// This user's crontab and the commands that tell of schedules. Commands are found on
/// `searchPath`, the environment's `PATH`.
public enum Crontab {
    /// This user's crontab (`crontab -l`), read once by each command that looks at it, and
    /// whether it did not answer in time; not read with `scheduler: external`.
    package static func crontab(scheduler: Scheduler, searchPath: String?) -> (text: String?, timedOut: Bool) {
        scheduler == .auto ? answer(of: "crontab", ["-l"], searchPath: searchPath) : (nil, false)
    }

    /// Said when `crontab -l` did not answer in time: its lines could not be read.
    static let crontabTimedOut =
        "crontab -l did not answer within 3 seconds (or said more than 1 MiB), so its lines could not be read"

    /// The settings `run` would load as cron runs it: with HOME (`home`) and the crontab's
    /// variables, no XDG variable, and the flags `settingFlags` reads among its words, a
    /// relative path taken from the directory the command starts in; and the state
    /// directory it would keep, even when the settings cannot be had.
    package static func settings(of run: CronRun, home: String?, settingFlags: ([String]) -> SettingFlags)
        -> (loaded: Result<LoadedSettings, SettingsError>, stateDirectory: String?)
    {
        var environment = run.variables
        environment["HOME"] = environment["HOME"] ?? home
        let start = run.directory ?? environment["HOME"] ?? "/"
        let whole = { (path: String) in path.hasPrefix("/") || path.isEmpty ? path : start + "/" + path }
        var flags = settingFlags(run.arguments)
        for value in SettingFlags.paths { flags[keyPath: value] = flags[keyPath: value].map(whole) }
        for name in ["ROUNDUP_CONFIG", "ROUNDUP_STATE_DIR", "ROUNDUP_REPORT_DIR"] {
            environment[name] = environment[name].map(whole)
        }
        let locations = Locations(environment: environment)
        do throws(SettingsError) {
            let loaded = try Settings.load(flags: flags, environment: environment, locations: locations)
            return (.success(loaded), whole(loaded.settings.state.directory))
        } catch {
            return (
                .failure(error),
                StateSettings.directory(flags: flags, environment: environment, locations: locations).map(whole)
            )
        }
    }

    /// How long a command that tells of schedules may take: `crontab -l` or `systemctl`
    /// that hangs (a stuck bus, a child holding the pipe) must not hang `status`.
    static let answerLimit: Int64 = 3_000
    /// The most of a command's answer read: a crontab is a few lines.
    static let answerSize = 1 << 20

    /// What `command` (found on PATH) prints, when it exits 0 within `answerLimit`; with
    /// `anyStatus`, whatever it exits with (`systemctl is-active` exits 3 for an inactive
    /// unit). Nil when it is not there, fails, or does not answer in time (it is killed).
    /// At most `answerSize` bytes are read. The command gets only its own standard streams,
    /// so a process it leaves behind holds nothing of this one's.
    static func output(of command: String, _ arguments: [String], searchPath: String?, anyStatus: Bool = false)
        -> String?
    {
        answer(of: command, arguments, searchPath: searchPath, anyStatus: anyStatus).text
    }

    /// What `command` printed, and whether it answered at all within `answerLimit`.
    static func answer(of command: String, _ arguments: [String], searchPath: String?, anyStatus: Bool = false)
        -> (text: String?, timedOut: Bool)
    {
        let paths = (searchPath ?? "/usr/bin:/bin").split(separator: ":")
        guard let executable = paths.map({ "\($0)/\(command)" }).first(where: FileManager.default.isExecutableFile),
            let (readEnd, writeEnd) = try? closeOnExecPipe()
        else { return (nil, false) }
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(readEnd) }
        let spawned = try? Child.spawn(
            executable, arguments, environment: ProcessInfo.processInfo.environment, stdout: writeEnd, stderr: null)
        close(writeEnd)
        close(null)
        guard let child = spawned else { return (nil, false) }
        let deadline = Instant.now.millisecondsSince1970 + answerLimit
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while data.count < answerSize {
            let left = deadline - Instant.now.millisecondsSince1970
            guard left > 0 else { break }
            var wait = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&wait, 1, Int32(left))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { break }
            let count = read(readEnd, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            data.append(contentsOf: buffer[..<count])
        }
        // Its end, within what is left of the time; else it is killed.
        // (One that has ended while a process it left behind holds the pipe is taken at its word.)
        var status: Int32 = 0
        var ended = false
        repeat {
            let reaped = waitpid(child.pid, &status, WNOHANG)
            if reaped == child.pid || reaped == -1 && errno != EINTR {
                ended = reaped == child.pid
                break
            }
            usleep(5_000)
        } while Instant.now.millisecondsSince1970 < deadline
        guard ended else {
            kill(child.pid, SIGKILL)
            _ = child.wait()
            return (nil, true)
        }
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited, code == 0 || anyStatus else { return (nil, false) }
        return (String(decoding: data, as: UTF8.self), false)
    }
}

extension Crontab {
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

    /// A command of a crontab line that runs roundup, as cron would run it.
    package struct CronRun {
        /// Its time fields as written: five words, or one `@` word.
        var schedule: String
        /// The words after `roundup run` (quotes removed; `$HOME`, `${HOME}` and a leading
        /// `~` expanded outside single quotes; cut at an unescaped `%`, which cron makes a
        /// line break).
        var arguments: [String]
        /// The variables the crontab and the line set before it, as cron and /bin/sh set them.
        package var variables: [String: String]
        /// The program as the line names it (`roundup`, `/usr/local/bin/roundup`), and the
        /// directory the command starts in: HOME, or where a `cd` before it went.
        var executable = "roundup"
        var directory: String?
    }

    /// Words that run the next ones as a command: `env A=b roundup run`, `nice roundup run`.
    static let wrappers: Set<String> = ["env", "/usr/bin/env", "nice", "nohup", "chronic", "exec"]

    /// The commands of `crontab` that run roundup (`roundup run` at the start of a command
    /// of the line, after assignments, `export`, `cd` or a wrapper), in order, with `home`
    /// for `$HOME` and `~` unless the crontab sets its own HOME.
    package static func cronRuns(in crontab: String?, home: String?) -> [CronRun] {
        guard let crontab else { return [] }
        var variables: [String: String] = [:]
        var runs: [CronRun] = []
        for raw in crontab.split(separator: "\n") {
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            guard !trimmed.hasPrefix("#"), !trimmed.isEmpty else { continue }
            if let (name, value) = cronVariable(trimmed) {
                variables[name] = value
                continue
            }
            let fields = trimmed.split(maxSplits: 5, whereSeparator: { $0 == " " || $0 == "\t" })
            let count = fields.first?.hasPrefix("@") == true ? 1 : 5
            guard fields.count > count, trimmed.contains("roundup") else { continue }
            let rest = trimmed.split(maxSplits: count, whereSeparator: { $0 == " " || $0 == "\t" })[count]
            let lineHome = variables.nonEmpty("HOME") ?? home
            var own = variables
            var directory = lineHome
            let schedule = fields.prefix(count).joined(separator: " ")
            // Whether the command before failed: `false`, or a `cd` to no directory; `&&`
            // runs the next only after success, `||` only after failure.
            var failed = false
            commands: for (command, separator) in commands(shellWords(cronCommand(String(rest)), home: lineHome)) {
                if separator == "&&" && failed || separator == "||" && !failed { continue }
                failed = false
                var words = command[...]
                var local: [String: String] = [:]
                while let word = words.first {
                    if let equals = word.firstIndex(of: "="), word.first?.isLetter == true || word.first == "_",
                        word[..<equals].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
                    {
                        local[String(word[..<equals])] = String(word[word.index(after: equals)...])
                    } else if !wrappers.contains(word) {
                        break
                    }
                    words = words.dropFirst()
                }
                guard let program = words.first else {
                    own.merge(local) { $1 }
                    continue
                }
                switch program {
                case "export":
                    for word in words.dropFirst() {
                        guard let equals = word.firstIndex(of: "=") else { continue }
                        own[String(word[..<equals])] = String(word[word.index(after: equals)...])
                    }
                case "cd":
                    let target = words.dropFirst().first ?? lineHome ?? "/"
                    let place = target.hasPrefix("/") ? target : (directory ?? "") + "/" + target
                    var isDirectory: ObjCBool = false
                    if FileManager.default.fileExists(atPath: place, isDirectory: &isDirectory), isDirectory.boolValue {
                        directory = place
                    } else {
                        failed = true
                    }
                case "false": failed = true
                case "exit": break commands
                default:
                    if program == "roundup" || program.hasSuffix("/roundup"), words.dropFirst().first == "run" {
                        runs.append(
                            CronRun(
                                schedule: schedule, arguments: Array(words.dropFirst(2)),
                                variables: own.merging(local) { $1 }, executable: program, directory: directory))
                    }
                }
            }
        }
        return runs
    }

    /// `NAME = value` as cron reads a line that sets a variable: spaces around `=` allowed,
    /// a value in matching quotes taken without them, nothing expanded. Nil for a line that is not one.
    static func cronVariable(_ line: String) -> (String, String)? {
        guard let equals = line.firstIndex(of: "=") else { return nil }
        let name = line[..<equals].trimmingCharacters(in: .whitespaces)
        guard let first = name.first, first.isLetter || first == "_",
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
        else { return nil }
        var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        if value.count >= 2, let quote = value.first, quote == "'" || quote == "\"", value.last == quote {
            value = String(value.dropFirst().dropLast())
        }
        return (name, value)
    }

    /// `words` cut into the commands a shell runs one after another, at `;`, `&&`, `||`,
    /// `|` and `&`, each with the separator before it.
    static func commands(_ words: [String]) -> [(words: [String], separator: String?)] {
        var commands: [(words: [String], separator: String?)] = [([], nil)]
        for word in words {
            if [";", "&", "|", "&&", "||"].contains(word) {
                commands.append(([], word))
            } else {
                commands[commands.count - 1].words.append(word)
            }
        }
        return commands.filter { !$0.words.isEmpty }
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

    /// Where the redirection whose first operator character is just before `index` ends:
    /// after the rest of its operator (`>>`, `>&`, `>|`) and its target (`file`, `&1`).
    static func redirectionEnd(_ characters: [Character], from start: Int) -> Int {
        var index = start
        while index < characters.count, ">&|".contains(characters[index]) { index += 1 }
        while index < characters.count, characters[index] == " " || characters[index] == "\t" { index += 1 }
        var quote: Character?
        while index < characters.count {
            let character = characters[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if " \t;&|<>".contains(character) {
                break
            }
            index += 1
        }
        return index
    }

    /// `line` split into words as /bin/sh would, near enough for a crontab line: quotes
    /// group and go, `&&`, `||`, `;`, `|` and `&` are words of their own, an unquoted `#`
    /// starting a word begins a comment, and `$HOME`, `${HOME}` and a leading `~` are
    /// expanded with `home` outside single quotes.
    static func shellWords(_ line: String, home: String?) -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        let characters = Array(line)
        var index = 0
        func end() {
            if inWord { words.append(word) }
            word = ""
            inWord = false
        }
        /// `$HOME` or `${HOME}` at `index`, expanded: how many characters it took.
        func expandHome(at index: Int) -> Int? {
            guard let home, characters[index] == "$" else { return nil }
            for form in ["${HOME}", "$HOME"] where characters[index...].starts(with: form) {
                let after = index + form.count
                if form == "$HOME", after < characters.count,
                    characters[after].isLetter || characters[after].isNumber || characters[after] == "_"
                {
                    return nil
                }
                word += home
                return form.count
            }
            return nil
        }
        while index < characters.count {
            let character = characters[index]
            if let open = quote {
                index += 1
                if character == open {
                    quote = nil
                } else if open == "\"", let taken = expandHome(at: index - 1) {
                    index += taken - 1
                } else {
                    word.append(character)
                }
                continue
            }
            if let taken = expandHome(at: index) {
                index += taken
                inWord = true
                continue
            }
            index += 1
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
            case "#" where !inWord:
                end()
                return words
            case ">", "<":
                // A redirection: its descriptor, operator and target are not the command's words.
                if inWord, !word.isEmpty, word.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    (word, inWord) = ("", false)
                } else {
                    end()
                }
                index = redirectionEnd(characters, from: index)
            case "&" where index < characters.count && characters[index] == ">":
                end()
                index = redirectionEnd(characters, from: index + 1)
            case ";", "&", "|":
                end()
                if index < characters.count, characters[index] == character, character != ";" {
                    words.append(String([character, character]))
                    index += 1
                } else {
                    words.append(String(character))
                }
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
