import Foundation
public import RoundUp
import RoundUpVocabulary

/// `roundup export`: every transfer whose money arrived in a goal, for the books savers
/// keep: a journal hledger and ledger-cli read, a Beancount file, or an OFX statement.
/// Each moves the amount from the account's main balance to the goal, on the local date
/// the money moved, described by the transfer's reference. Text from the bank (account
/// and goal names) is made safe for each format, so that no name can write an entry of
/// its own. Pure: it takes the history's rows and the time of the export.
public enum BookExport {
    public enum Format: String, Sendable, CaseIterable {
        case ledger, beancount, ofx
    }

    /// One transfer into a goal, as the books take it.
    public struct Transfer: Sendable, Equatable {
        public var movedOn: LocalDate
        public var weekEnd: LocalDate
        public var accountUid: String
        public var accountName: String?
        public var goalUid: String?
        public var goalName: String?
        public var currency: Currency
        public var minorUnits: Int64
        /// The reference the transfer carried: `Round-up w/e 22 Nov 2026`.
        public var reference: String
        public var transferUid: String

        var amount: String { Money(minorUnits: minorUnits, currency: currency).formattedAmount }
        var accountLabel: String { accountName ?? accountUid }
        var goalLabel: String { goalName ?? goalUid ?? "savings goal" }
    }

    /// The transfers of `rows` whose money arrived in the goal (not held back, held,
    /// unconfirmed or abandoned), oldest first: a week into several goals books each of its
    /// transfers that moved money to its own goal. And, in words, each such week that cannot
    /// be booked, as the ledger gives it no date the money moved, no transfer uid or a
    /// currency roundup does not know.
    public static func book(_ rows: [SavingsHistory.Row]) -> (transfers: [Transfer], leftOut: [String]) {
        var transfers: [Transfer] = []
        var leftOut: [String] = []
        for row in rows where row.status == .transferred && row.minorUnits > 0 {
            let moved = row.movedOn.flatMap(LocalDate.init(iso:))
            let currency = Currency(code: row.currency)
            // A week's one transfer, or each of its legs that moved money.
            let parts =
                row.legs?.filter { $0.status == WeekState.done.transferWord && $0.minorUnits > 0 }.map {
                    (goalUid: $0.goalUid, goalName: $0.goalName, minorUnits: $0.minorUnits, transferUid: $0.transferUid)
                } ?? [(row.goalUid, row.goalName, row.minorUnits, row.transferUid)]
            let unnamed = parts.contains { $0.transferUid == nil }
            guard let moved, let weekEnd = LocalDate(iso: row.weekEnd), !unnamed, let currency else {
                let missing = [
                    moved == nil ? "no date the money moved" : nil, unnamed ? "no transfer uid" : nil,
                    currency == nil ? "the unknown currency '\(oneLine(row.currency))'" : nil,
                ].compactMap { $0 }
                leftOut.append(
                    "the week ending \(row.weekEnd) of \(oneLine(row.accountName ?? row.accountUid)) is left out: the "
                        + "ledger gives it \(missing.joined(separator: ", "))")
                continue
            }
            for part in parts {
                transfers.append(
                    Transfer(
                        movedOn: moved, weekEnd: weekEnd, accountUid: row.accountUid, accountName: row.accountName,
                        goalUid: part.goalUid, goalName: part.goalName, currency: currency, minorUnits: part.minorUnits,
                        reference: row.reference ?? TransferReference.forWeek(endingOn: weekEnd),
                        transferUid: part.transferUid ?? ""))
            }
        }
        transfers.sort { ($0.movedOn, $0.weekEnd, $0.accountLabel) < ($1.movedOn, $1.weekEnd, $1.accountLabel) }
        return (transfers, leftOut)
    }

    /// The export of `transfers` in `format`; `now` dates an OFX statement.
    public static func text(_ transfers: [Transfer], format: Format, now: Instant) -> String {
        switch format {
        case .ledger: ledger(transfers)
        case .beancount: beancount(transfers)
        case .ofx: ofx(transfers, now: now)
        }
    }

    /// Each account and goal's name in the books: `Assets:Starling:Personal` and
    /// `Assets:Starling:Personal:Round-ups`, made unique where two names come out alike.
    struct Names {
        var accounts: [String: String] = [:]
        var goals: [String: String] = [:]

        init(_ transfers: [Transfer], component: (String) -> String) {
            var taken = Set<String>()
            // A name made unique by its uid (itself made safe), then by a counter, however
            // many come out alike; each part kept short, as ledger-cli reads 4096 bytes a line.
            func unique(_ name: String, uid: String, under parent: String) -> String {
                let short = String(name.prefix(BookExport.longestName)).trimmingCharacters(in: .whitespaces)
                let base = parent + ":" + (short.isEmpty ? name : short)
                let byUid = [base, base + "-" + component(String(uid.prefix(8))), base + "-" + component(uid)]
                let full =
                    byUid.first { !taken.contains($0) }
                    ?? (2...).lazy.map { byUid[2] + "-\($0)" }.first { !taken.contains($0) }!
                taken.insert(full)
                return full
            }
            for transfer in transfers where accounts[transfer.accountUid] == nil {
                accounts[transfer.accountUid] = unique(
                    component(transfer.accountLabel), uid: transfer.accountUid, under: "Assets:Starling")
            }
            for transfer in transfers {
                let key = transfer.accountUid + "/" + (transfer.goalUid ?? transfer.goalLabel)
                guard goals[key] == nil, let parent = accounts[transfer.accountUid] else { continue }
                goals[key] = unique(
                    component(transfer.goalLabel), uid: transfer.goalUid ?? transfer.transferUid, under: parent)
            }
        }

        func account(_ transfer: Transfer) -> String { accounts[transfer.accountUid]! }
        func goal(_ transfer: Transfer) -> String {
            goals[transfer.accountUid + "/" + (transfer.goalUid ?? transfer.goalLabel)]!
        }
    }

    /// The most characters of a name one part of an account takes.
    static let longestName = 64

    /// The first `limit` Unicode scalars of `text`, never splitting a character.
    static func prefix(_ text: String, scalars limit: Int) -> String {
        var count = 0
        return String(
            text.prefix { character in
                count += character.unicodeScalars.count
                return count <= limit
            })
    }

    /// One line of bank text, with control characters and line breaks made spaces.
    static func oneLine(_ text: String) -> String {
        String(
            text.unicodeScalars.map { scalar -> Character in
                scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
                    || scalar == "\u{2028}" || scalar == "\u{2029}" ? " " : Character(scalar)
            }
        ).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}

// MARK: - Plain-text double entry

extension BookExport {
    /// A transfer as hledger, ledger-cli and Beancount write a transaction: its date and
    /// `description`, its `tags` (each already in the format's words), the goal's posting
    /// and the main balance's, each line after the first indented by `indent`.
    static func entry(_ transfer: Transfer, names: Names, indent: String, description: String, tags: [String])
        -> [String]
    {
        let (amount, code) = (transfer.amount, transfer.currency.code)
        return ["\(transfer.movedOn) * \(description)"] + tags.map { indent + $0 } + [
            "\(indent)\(names.goal(transfer))  \(amount) \(code)",
            "\(indent)\(names.account(transfer))  -\(amount) \(code)", "",
        ]
    }
}

// MARK: - hledger and ledger-cli

extension BookExport {
    /// A name as one part of a ledger account: letters, digits, single spaces and a few
    /// marks; `:` (the separator), `;` (a comment), brackets and parentheses (virtual
    /// postings) and the rest become `-`.
    static func ledgerComponent(_ name: String) -> String {
        let kept = oneLine(name).map { character -> Character in
            character.isLetter || character.isNumber || " -_.&'/".contains(character) ? character : "-"
        }
        let text = String(kept).trimmingCharacters(in: .init(charactersIn: " -"))
        return text.isEmpty ? "Unnamed" : text
    }

    static func ledger(_ transfers: [Transfer]) -> String {
        let names = Names(transfers, component: ledgerComponent)
        var lines = [
            "; roundup export: each transfer from an account's main balance into a savings goal.",
            "; Each account's goals are its sub-accounts, so the account's total does not change.", "",
        ]
        // Each amount carries its currency's own decimals, so a commodity needs no format.
        for code in Set(transfers.map(\.currency.code)).sorted() { lines.append("commodity \(code)") }
        for name in Set(names.accounts.values).union(names.goals.values).sorted() { lines.append("account \(name)") }
        lines += ["tag transfer", "tag week", ""]
        for transfer in transfers {
            lines += entry(
                transfer, names: names, indent: "    ", description: oneLine(transfer.reference),
                tags: ["; transfer: \(oneLine(transfer.transferUid))", "; week: \(transfer.weekEnd)"])
        }
        return lines.joined(separator: "\n")
    }
}

// MARK: - Beancount

extension BookExport {
    /// A name as one part of a Beancount account: ASCII letters, digits and dashes, starting
    /// with a capital letter or a digit; the original name is kept in the `open`'s metadata.
    static func beancountComponent(_ name: String) -> String {
        let latin = oneLine(name).applyingTransform(.toLatin, reverse: false) ?? name
        let plain = latin.applyingTransform(.stripDiacritics, reverse: false) ?? latin
        var text = ""
        for scalar in plain.unicodeScalars {
            let ascii = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar))
            text += ascii ? String(scalar) : (text.hasSuffix("-") || text.isEmpty ? "" : "-")
        }
        while text.hasSuffix("-") { text.removeLast() }
        guard let first = text.first else { return "Unnamed" }
        return first.uppercased() + text.dropFirst()
    }

    /// `text` as a Beancount string: quoted, with `"` and `\` escaped, on one line.
    static func beancountString(_ text: String) -> String {
        "\"" + oneLine(text).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            + "\""
    }

    static func beancount(_ transfers: [Transfer]) -> String {
        let names = Names(transfers, component: beancountComponent)
        var lines = [
            "; roundup export: each transfer from an account's main balance into a savings goal.",
            "; Each account's goals are its sub-accounts, so the account's total does not change.", "",
        ]
        var opened = Set<String>()
        for transfer in transfers {
            for (name, original, uid) in [
                (names.account(transfer), transfer.accountLabel, transfer.accountUid),
                (names.goal(transfer), transfer.goalLabel, transfer.goalUid ?? ""),
            ] where !opened.contains(name) {
                opened.insert(name)
                lines.append("\(transfer.movedOn) open \(name) \(transfer.currency.code)")
                lines.append("  name: \(beancountString(original))")
                if !uid.isEmpty { lines.append("  uid: \(beancountString(uid))") }
            }
        }
        lines.append("")
        for transfer in transfers {
            lines += entry(
                transfer, names: names, indent: "  ", description: beancountString(transfer.reference),
                tags: ["transfer: \(beancountString(transfer.transferUid))", "week: \(transfer.weekEnd)"])
        }
        return lines.joined(separator: "\n")
    }
}

// MARK: - OFX 2.2

extension BookExport {
    /// Bank text as an OFX element's content: one line, printable as everywhere a person
    /// reads it, at most `limit` code points of it (as OFX counts them), then escaped.
    static func xml(_ text: String, limit: Int = .max) -> String {
        XMLText.escape(prefix(printable(oneLine(text)), scalars: limit))
    }

    /// An OFX date: `20261123` for a day, `20261126070000.000[0:GMT]` for an instant.
    static func ofxDate(_ date: LocalDate) -> String {
        String(format: "%04d%02d%02d", date.year, date.month, date.day)
    }

    /// An account's OFX id, at most 22 characters: the last 22 of its uid without dashes,
    /// where a uid's own characters differ (uids may share a beginning).
    static func ofxAccountID(_ uid: String) -> String {
        String(uid.filter { $0 != "-" }.suffix(22))
    }

    static func ofx(_ transfers: [Transfer], now: Instant) -> String {
        let stamp = now.iso8601.filter(\.isNumber).prefix(14) + ".000[0:GMT]"
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>",
            "<?OFX OFXHEADER=\"200\" VERSION=\"220\" SECURITY=\"NONE\" OLDFILEUID=\"NONE\" NEWFILEUID=\"NONE\"?>",
            "<OFX>",
            "<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0</CODE><SEVERITY>INFO</SEVERITY></STATUS>"
                + "<DTSERVER>\(stamp)</DTSERVER><LANGUAGE>ENG</LANGUAGE></SONRS></SIGNONMSGSRSV1>",
            "<BANKMSGSRSV1>",
        ]
        // One statement per account and currency, for the account's main balance.
        let accounts = Dictionary(grouping: transfers) { $0.accountUid + "/" + $0.currency.code }
        for key in accounts.keys.sorted() {
            let statement = accounts[key]!
            let first = statement[0]
            let total = statement.reduce(Int64(0)) { Savings.add($0, $1.minorUnits) }
            let moved = Money(minorUnits: total, currency: first.currency).formattedAmount
            lines += [
                "<STMTTRNRS><TRNUID>\(xml(first.accountUid))</TRNUID>"
                    + "<STATUS><CODE>0</CODE><SEVERITY>INFO</SEVERITY></STATUS>",
                "<STMTRS><CURDEF>\(first.currency.code)</CURDEF>",
                "<BANKACCTFROM><BANKID>STARLING</BANKID><ACCTID>\(xml(ofxAccountID(first.accountUid)))</ACCTID>"
                    + "<ACCTTYPE>CHECKING</ACCTTYPE></BANKACCTFROM>",
                "<BANKTRANLIST><DTSTART>\(ofxDate(statement.map(\.movedOn).min()!))</DTSTART>"
                    + "<DTEND>\(ofxDate(statement.map(\.movedOn).max()!))</DTEND>",
            ]
            for transfer in statement {
                lines.append(
                    "<STMTTRN><TRNTYPE>XFER</TRNTYPE><DTPOSTED>\(ofxDate(transfer.movedOn))</DTPOSTED>"
                        + "<TRNAMT>-\(transfer.amount)</TRNAMT><FITID>\(xml(transfer.transferUid))</FITID>"
                        + "<NAME>\(xml(transfer.goalLabel, limit: 32))</NAME>"
                        + "<MEMO>\(xml(transfer.reference, limit: 255))</MEMO></STMTTRN>")
            }
            // OFX requires a balance; roundup keeps none, so it gives what left the main
            // balance for these transfers, as of the statement's end (docs/exports.md).
            lines += [
                "</BANKTRANLIST>",
                "<LEDGERBAL><BALAMT>-\(moved)</BALAMT><DTASOF>\(ofxDate(statement.map(\.movedOn).max()!))</DTASOF>"
                    + "</LEDGERBAL>",
                "</STMTRS></STMTTRNRS>",
            ]
        }
        lines += ["</BANKMSGSRSV1>", "</OFX>", ""]
        return lines.joined(separator: "\n")
    }
}
