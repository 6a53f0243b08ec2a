import ArgumentParser
import Foundation
import RoundUp
import RoundUpCommands

extension Roundup {
    struct Resolve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resolve",
            abstract: "List the account-weeks that are held for a person or unconfirmed, and settle one.",
            discussion: """
                A week is held when the job cannot tell what to do without guessing (the feed shows a transfer it \
                cannot place, the goal is gone, the bank refused the transfer), and unconfirmed when its transfer \
                is not known to have arrived. Runs leave held weeks be and go on with every other account and week. With no \
                options, resolve lists them with the reason. To settle one, name the account and the week and say \
                one of --check, --retry, --redirect or --abandon. It takes the run lock, records the decision in \
                the ledger (roundup history shows it) and prints what it did. Before --retry or --redirect \
                sends, the feed is read for every goal the week was ever sent to, from its first attempt until now: \
                a transfer of its amount that settled or is pending is recorded and nothing is sent, and one that \
                may still move the money (upcoming, retrying) sends nothing until it settles or is cancelled in the \
                app. A week held before it was ever sent has no transfer of its own in the feed: one that looks like \
                it is another week's or another ledger's, and is recorded as this week's only when named with \
                --check --accept.

                Examples:
                  roundup resolve
                  roundup resolve --account UID --end-date 2026-11-15 --check
                  roundup resolve --account UID --end-date 2026-11-15 --check --accept FEEDITEM
                  roundup resolve --account UID --end-date 2026-11-15 --redirect "Holiday"
                  roundup resolve --account UID --end-date 2026-11-15 --leg 1 --retry
                  roundup resolve --account UID --end-date 2026-11-15 --abandon "moved by hand"
                """
        )

        @Option(help: ArgumentHelp("The account whose week to settle.", valueName: "uid"))
        var account: String?

        @Option(
            help: ArgumentHelp("The last day of the week to settle.", valueName: "YYYY-MM-DD"),
            transform: LocalDate.fromArgument)
        var endDate: LocalDate?

        @Flag(help: "Look in the account's feed again; record the week as arrived if the transfer is there.")
        var check = false

        @Option(
            help: ArgumentHelp(
                "With --check: record this feed item as the week's transfer (a week held over a transfer it did not "
                    + "send shows its uid), once the feed shows it moved into the week's goal, of its amount, and no "
                    + "other week accounts for it.", valueName: "feed-item-uid"))
        var accept: String?

        @Flag(
            help: """
                Send the transfer again now, with the same transfer uid, amount and goal, once the feed shows \
                that it did not move and is not under way.
                """)
        var retry = false

        @Option(
            help: ArgumentHelp(
                "Send the week to this other goal (name or uid) instead, with a transfer uid of that goal's, once the "
                    + "feed shows that it did not move and is not under way.", valueName: "goal"))
        var redirect: String?

        @Option(help: ArgumentHelp("Give the week up: its money stays in the account.", valueName: "reason"))
        var abandon: String?

        @Option(
            help: ArgumentHelp(
                "For a week into several goals (saveInto): which of its transfers to check, retry or redirect, as "
                    + "`roundup resolve` lists them; not needed when only one is open.", valueName: "n"))
        var leg: Int?

        @OptionGroup var settings: SettingOptions

        @OptionGroup var logging: LoggingOptions

        var resolution: Resolution? {
            if check, let accept { return .accept(feedItem: Uid.uuid(accept) ?? accept) }
            if check { return .check }
            if retry { return .retry }
            if let redirect { return .redirect(goal: redirect) }
            if let abandon { return .abandon(reason: abandon) }
            return nil
        }

        func validate() throws {
            let actions = [check, retry, redirect != nil, abandon != nil].filter { $0 }.count
            guard actions <= 1 else {
                throw ValidationError("say one of --check, --retry, --redirect and --abandon, not several")
            }
            if let accept {
                guard check else { throw ValidationError("--accept goes with --check: --check --accept FEEDITEM") }
                guard Uid.uuid(accept) != nil else {
                    throw ValidationError(
                        "--accept \(Uid.shown(accept)) is not a feed item uid (a UUID, as the held week's reason shows it)"
                    )
                }
            }
            if let redirect, redirect.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("--redirect needs a goal name or uid")
            }
            if let abandon, abandon.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("--abandon needs a reason, for the history")
            }
            if actions == 1 && (account == nil || endDate == nil) {
                throw ValidationError("name the week to settle with --account and --end-date")
            }
            if actions == 0 && (account != nil || endDate != nil) {
                throw ValidationError(
                    "say what to do with the week: --check, --retry, --redirect GOAL or --abandon REASON")
            }
            if let leg, leg < 0 {
                throw ValidationError("--leg takes a leg's number, 0 or more, as `roundup resolve` lists them")
            }
            if leg != nil && actions == 0 {
                throw ValidationError("--leg goes with --check, --retry or --redirect")
            }
            if let account, Uid.uuid(account) == nil {
                throw ValidationError(
                    "--account \(Uid.shown(account)) is not an account uid (a UUID, as `roundup resolve` lists them)")
            }
        }

        func run() async throws {
            let composition = Composition.live
            guard let resolution, let account, let endDate else {
                try finish(composition.resolveList(settings.flags()))
            }
            let result = await composition.resolve(
                resolution, accountUid: Uid.uuid(account) ?? account, weekEnd: endDate, leg: leg,
                flags: settings.flags(), logger: logging.logger)
            try finish(result)
        }
    }
}
