import RoundUpHost
public import RoundUpVocabulary

/// The reference sections of `man roundup` that the command definitions do not give:
/// ENVIRONMENT, FILES, EXIT STATUS and the config file's keys, in mdoc. They are made from
/// the definitions the code uses (`ExitStatus`, `Locations`, `SystemService`,
/// `ConfigFile.keys`), and `roundup manual-sections` prints them for `scripts/install` and
/// `scripts/package` to add to the generated page. `ManualTests` holds the list of
/// variables to the names the code reads.
public enum Manual {
    /// Every environment variable roundup reads, with what it does.
    public static let environment: [(name: String, meaning: String)] = [
        (
            "STARLING_ACCESS_TOKEN",
            "The access token, first of the places a token is read from, as the bank gives it: one pasted with quotes "
                + "around it or the word Bearer before it is refused before any request, saying what to remove. "
                + "There is no token flag."
        ),
        (
            "CREDENTIALS_DIRECTORY",
            "Set by systemd: the token is read from its file \(TokenSource.credentialName) when STARLING_ACCESS_TOKEN "
                + "is not set (LoadCredential= in roundup.service)."
        ),
        ("ROUNDUP_CONFIG", "The config file, when --config is not given."),
        ("ROUNDUP_STATE_DIR", "The state directory (stateDir), when --state-dir is not given."),
        ("ROUNDUP_REPORT_DIR", "Where reports are written (reportDir), when --report-dir is not given."),
        ("ROUNDUP_API_BASE_URL", "The bank's API base URL (apiBaseURL)."),
        ("ROUNDUP_SAVINGS_GOAL", "The name of the goal to save into (savingsGoal)."),
        ("ROUNDUP_TIME_ZONE", "The zone of the week (timeZone)."),
        ("ROUNDUP_TOKEN_FILE", "The token file (tokenFile)."),
        ("ROUNDUP_CA_FILE", "Certificate authorities to trust for the bank (caFile)."),
        ("ROUNDUP_MAX_REQUESTS_PER_SECOND", "Requests per second to the bank at most."),
        ("ROUNDUP_RUN_TIMEOUT_SECONDS", "The whole run's time limit (runTimeoutSeconds)."),
        ("ROUNDUP_PING_URL", "The dead man's switch to ping (notify.pingURL): a secret, best kept out of the config."),
        (
            "ROUNDUP_NOTIFY_URLS",
            "Where the saver is told (notify.to, in Apprise's URL syntax, separated by spaces): secrets, best kept out "
                + "of the config; it replaces notify.to and notify.toFile."
        ),
        (
            "ROUNDUP_NOTIFY_FAILURES",
            "Who tells notify.to of a failed run (notify.failures): each-run, or on-failure-unit under roundup.service, "
                + "whose OnFailure= starts roundup tell."
        ),
        ("ROUNDUP_LOG_LEVEL", "The level of log lines on stderr, when --log-level is not given."),
        (
            "ROUNDUP_SCHEDULER",
            "external: something outside this machine runs the job, so check and status look for no crontab line or "
                + "timer (scheduler)."
        ),
        ("HOME", "The home directory, from which the default config file and state directory follow."),
        (
            "XDG_CONFIG_HOME",
            "Where the default config file is: $XDG_CONFIG_HOME/roundup/config.yaml (default ~/.config)."
        ),
        ("XDG_STATE_HOME", "Where the default state directory is: $XDG_STATE_HOME/roundup (default ~/.local/state)."),
        ("CURL_CA_BUNDLE", "Certificate authorities, as libcurl reads them, when caFile is not set."),
        ("SSL_CERT_FILE", "Certificate authorities, as OpenSSL reads them, when caFile is not set."),
        ("https_proxy", "The proxy to the bank (also HTTPS_PROXY, all_proxy, ALL_PROXY)."),
        ("NO_COLOR", "When set to anything, no colour, and ASCII instead of block characters."),
        ("TERM", "dumb: no colour."),
        ("SSLKEYLOGFILE", "Refused by a run that moves money: it would write the TLS secrets to a file."),
        ("PATH", "Where crontab and systemctl are found, for check and status."),
    ]

    /// Every file roundup reads or writes, with what it is.
    public static var files: [(path: String, meaning: String)] {
        [
            (
                "~/.config/roundup/config.yaml",
                "The config file: $XDG_CONFIG_HOME/roundup/config.yaml, the one default place. Refused (78) when "
                    + "another user owns it (root may), or others could rewrite it or a directory on the way to it."
            ),
            (
                "~/.local/state/roundup/",
                "The state directory: $XDG_STATE_HOME/roundup. It holds the ledger, the lock and the reports."
            ),
            ("~/.local/state/roundup/ledger.sqlite", "The ledger: every week, transfer and run. Back it up."),
            ("~/.local/state/roundup/roundup.lock", "Held while a run works, so that two runs never overlap."),
            (
                "~/.local/state/roundup/reports/",
                "Each run's report pair (.md and .json), roundup-<end>.md pointing at the week's, and savings.svg and "
                    + "savings.html."
            ),
            ("~/.local/state/roundup/demo/", "roundup demo's own state, apart from real runs."),
            (SystemService.configFile, "The system service's config file."),
            (SystemService.tokenFile, "The system service's token, read by systemd (root, mode 600)."),
            (SystemService.environmentFile, "The system service's other secrets, such as ROUNDUP_PING_URL (mode 600)."),
            (SystemService.stateDirectory + "/", "The system service's state directory, kept by its dynamic user."),
        ]
    }

    /// The sections in mdoc, for the end of the page generated from the commands.
    public static func sections() -> String {
        var lines = [".Sh ENVIRONMENT", ".Bl -tag -width Ds"]
        for (name, meaning) in environment { lines += [".It Ev \(name)", escaped(meaning)] }
        lines += [".El", ".Sh FILES", ".Bl -tag -width Ds"]
        for (path, meaning) in files { lines += [".It Pa \(path)", escaped(meaning)] }
        lines += [
            ".El", ".Sh CONFIGURATION",
            "The config file is YAML; an unknown key is an error. Its keys, each described in the example config "
                + "(/usr/share/doc/roundup/roundup.example.yaml) and its JSON schema:",
            ".Pp",
            ConfigFile.keys.sorted().map { key in
                let nested = ["notify": ConfigFile.Notify.keys.sorted(), "saveInto": ConfigFile.SaveIntoFile.keys][key]
                return nested.map { "\(key) (\($0.joined(separator: ", ")))" } ?? key
            }
            .joined(separator: ", ") + ".",
            ".Pp",
            escaped(
                "spending: all (the default) counts every settled payment out of an account's main balance: card "
                    + "payments, cash withdrawals, direct debits, transfers to others and bank fees; spending: cards "
                    + "counts card payments only. Each report says where each payment came from (card, direct debit, "
                    + "bank transfer, ...)."),
            ".Pp",
            escaped(
                "notify.to lists where the saver is told, in Apprise's URL syntax: ntfy:// and ntfys:// (a topic), "
                    + "gotify:// and gotifys:// (an application), json:// and jsons:// (a small JSON object), built in; "
                    + "any other scheme through the apprise command, when it is installed. Each is told the week's news "
                    + "after a real run that moved money (with notify.weekly: true), a failed run (under systemd, by "
                    + "roundup tell once the service has failed for good), and each held week once. notify.toFile names "
                    + "a file of more URLs (mode 600); ROUNDUP_NOTIFY_URLS replaces both. The URLs are secrets, shown "
                    + "only as scheme://host/***. A notify.pingURL whose path ends /api/push/<token> is an Uptime Kuma "
                    + "push monitor, told ?status=up&msg=...&ping=<ms> or ?status=down&msg=...; roundup check "
                    + "--notify-test sends one test message to each place."),
            ".Pp",
            escaped(
                "payday says when pay arrives: a day of the month (25; a shorter month's last day stands in), a "
                    + "weekday (friday), or every 2 weeks from 2026-11-27 (1 to 8 weeks). Under overdraft: avoid or a "
                    + "minimumBalance, and upcomingPayments: count (the default), each week is measured against the "
                    + "lowest the balance goes before the first payday after today (through the next working day when "
                    + "payday falls on a weekend or bank holiday; without payday, the next 7 days): the balance less the standing orders, direct debits "
                    + "and goals' recurring transfers due from the main balance, less what the run's earlier weeks "
                    + "moved. A token without standing-order:read, mandate:read or savings-goal-transfer:read saves as "
                    + "before and says what it could not see; one with them never saves on a forecast it could not "
                    + "complete. upcomingPayments: ignore measures against today's balance only."),
            ".Pp",
            escaped(
                "A direct debit falls due on its next date and again at its cadence, reckoned from the days between "
                    + "its last payment and its next date, either perhaps moved by a weekend or bank holiday: the "
                    + "fastest of weekly, every 2, 3 or 4 weeks and monthly that the gap allows, else 7 or fewer "
                    + "weekly, 8 to 27 that many whole weeks, more monthly; a never-paid mandate is monthly. Later "
                    + "dates are about; a missed collection makes a "
                    + "weekly debit look fortnightly. An item whose next date lies after the horizon never holds a "
                    + "week back, whatever else about it cannot be read. A list of a standing order's next dates "
                    + "counts only when it reaches past the horizon or the order's own end. A week whose transfer is "
                    + "sent again (a run finishing an unconfirmed week, resolve --retry or --redirect) is measured "
                    + "again first, as a fresh week would be; its recorded amount is sent in full or not at all, and "
                    + "when it no longer fits the week ends held back (exit 0). resolve --check says which."),
            ".Sh WEEK STATES",
            escaped(
                "Each account's week ends in one of these states. The run's summary, the Markdown report, history "
                    + "(its table and CSV), status and resolve give it the same word; held back (settled) is never "
                    + "held (waiting for a person). The JSON report keeps the words of its schema 1: nothing to do for "
                    + "nothing to move and held back, failed for unconfirmed; history --json gives the words above."),
            ".Bl -tag -width Ds",
        ]
        for fate in WeekFate.allCases {
            lines += [".It \(fate.word)", escaped(fate.meaning.replacingOccurrences(of: "`", with: "") + ".")]
        }
        lines += [
            ".El",
            ".Sh STATUS",
            escaped(
                "roundup status exits 0 OK, 1 WARNING, 2 CRITICAL or 3 UNKNOWN: the worst of these rows. The last "
                    + "run's failure does not count when a later run succeeded, nor when it ended 78 only for held "
                    + "weeks that a person has since settled; roundup resolve ends with the line status then gives."),
            ".Bl -tag -width Ds",
        ]
        for (finding, level) in JobHealth.table {
            lines += [".It \(level)", escaped(finding.replacingOccurrences(of: "`", with: "") + ".")]
        }
        lines += [
            ".El",
            escaped(
                "What schedules the state directory: a line of this user's crontab that runs roundup run with it, "
                    + "read as cron runs it, which fires only while a cron daemon runs (systemctl is-active "
                    + "cron.service crond.service, else a cron, crond or fcron process); or roundup.timer, the "
                    + "system's for /var/lib/roundup or this user's, which fires only when enabled and active. Lines "
                    + "and timers for other state directories are not looked at. The next run is given in the "
                    + "system's time zone; time fields roundup cannot read are shown as written, with "
                    + "cannot compute; a line only at @reboot is not a weekly run. scheduler: external silences all of this."
            ),
            ".Sh EXIT STATUS", ".Bl -tag -width Ds",
        ]
        for status in ExitStatus.allCases {
            lines += [".It \(status.rawValue)", escaped("\(status.meaning). \(status.remedy)")]
        }
        lines.append(".El")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` as an mdoc text line: backslashes escaped, and a leading dot or quote kept as text.
    static func escaped(_ text: String) -> String {
        let line = text.replacingOccurrences(of: "\\", with: "\\e")
        return line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : line
    }
}

extension ExitStatus {
    /// What the status means, for the man page and the help.
    public var meaning: String {
        switch self {
        case .ok:
            "Every account-week ended well: transferred, already transferred, nothing to move, held back, dry run, "
                + "abandoned or skipped"
        case .usage: "A usage mistake: a bad flag or argument, or a week that has not ended"
        case .dataError: "The bank sent data the job cannot use"
        case .unavailable: "The bank could not be reached, or kept failing"
        case .ioError: "Output could not be written (a full disk, a closed terminal); the ledger was already committed"
        case .temporaryFailure:
            "Try again later: another run holds the lock, the bank asked to slow down, or the run's time ran out"
        case .permissionDenied: "The token was rejected, or lacks a scope the run needs"
        case .configuration:
            "The configuration cannot be used, the time zone data is missing (install tzdata), or a week is held until "
                + "a person decides"
        }
    }

    /// What to do about it.
    public var remedy: String {
        switch self {
        case .ok: "The week's reports and roundup history say what moved."
        case .usage:
            "Read the message, fix the command line (roundup help), and run it again. A person's typo at a terminal is not recorded as a run."
        case .dataError: "Nothing moved for the week; the report names the answer. Run again later, or report it."
        case .unavailable:
            "It may pass by itself: the scheduler tries again, and the next --catch-up run finishes the week."
        case .ioError: "Free space or fix the output, then roundup history shows what the run did."
        case .temporaryFailure: "It may pass by itself: the next run carries on where this one stopped."
        case .permissionDenied: "Create a token with the scopes roundup check names."
        case .configuration: "Run roundup check and fix each FIX line; for a held week, roundup resolve."
        }
    }
}
