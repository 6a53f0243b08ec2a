import Foundation
import RoundUp
import Yams

/// The config file as written. Every key is optional; an unknown key is an error, so a
/// misspelt setting is never silently ignored.
package struct ConfigFile: Decodable {
    var apiBaseURL: String?
    var sandbox: Bool?
    var tokenFile: String?
    var timeZone: String?
    var weekEndsOn: String?
    var savingsGoal: String?
    var saveInto: SaveIntoFile?
    package var goals: [String: String]?
    var newGoalTarget: [String: ExactAmount]?
    var stateDir: String?
    var reportDir: String?
    var multiplier: WholeNumber?
    var weeklyCap: [String: ExactAmount]?
    var excludeSources: [String]?
    var excludeSpendingCategories: [String]?
    var wholeAmountsSaveAUnit: Bool?
    var minimumBalance: [String: ExactAmount]?
    var belowMinimumBalance: String?
    var concurrency: WholeNumber?
    var lockWaitSeconds: WholeNumber?
    var retryAttempts: WholeNumber?
    var retryFirstDelayMilliseconds: WholeNumber?
    var retryMaxDelaySeconds: WholeNumber?
    var retryAfterLimitSeconds: WholeNumber?
    var requestTimeoutSeconds: WholeNumber?
    var runTimeoutSeconds: WholeNumber?
    var clockSkewMarginSeconds: WholeNumber?
    var feedRecheckSeconds: WholeNumber?
    var feedSettleMinutes: WholeNumber?
    var goalWaitSeconds: WholeNumber?
    var caFile: String?
    var roundTo: WholeNumber?
    var spending: String?
    var accountTypes: [String]?
    package var nativeRoundUp: String?
    var overdraft: String?
    var payday: String?
    var upcomingPayments: String?
    var maxRequestsPerSecond: WholeNumber?
    var maxRequestsPerDay: WholeNumber?
    var notify: Notify?
    var metricsFile: String?
    var scheduler: String?

    /// `notify:`, how a saver is told of runs.
    package struct Notify: Decodable {
        var pingURL: String?
        var weekly: Bool?
        var to: [String]?
        var toFile: String?
        var failures: String?

        /// Its keys, read off its properties.
        package static let keys = propertyNames(of: Notify())
    }

    /// `saveInto:`, several goals for every account, as written: the goals in the order the
    /// file gives them, `fill` a list or the word `app`.
    package struct SaveIntoFile: Decodable {
        var fill: [String]?
        /// `fill: app`.
        var fillInAppOrder = false
        var shares: [(goal: String, percent: WholeNumber)]?
        var whenFull: String?
        var whenAllFull: String?

        package static let keys = ["fill", "shares", "whenFull", "whenAllFull"]

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            for key in container.allKeys where !Self.keys.contains(key.stringValue) {
                let hint =
                    ConfigFile.closest(to: key.stringValue, in: Set(Self.keys)).map { " (did you mean '\($0)'?)" } ?? ""
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container,
                    debugDescription: "unknown setting 'saveInto.\(printable(key.stringValue))'\(hint)")
            }
            let fill = Key(stringValue: "fill")
            if container.contains(fill) {
                if let word = try? container.decode(String.self, forKey: fill) {
                    guard word == "app" else {
                        throw DecodingError.dataCorruptedError(
                            forKey: fill, in: container,
                            debugDescription:
                                "is a list of goal names ([Emergency fund, Holiday]) or the word app, not "
                                + "'\(printable(word))'")
                    }
                    fillInAppOrder = true
                } else {
                    self.fill = try container.decode([String].self, forKey: fill)
                }
            }
            let shares = Key(stringValue: "shares")
            if container.contains(shares) {
                let mapping = try container.nestedContainer(keyedBy: Key.self, forKey: shares)
                // In the order written: ties between shares go to the earlier goal.
                self.shares = try mapping.allKeys.map { key in
                    (key.stringValue, try mapping.decode(WholeNumber.self, forKey: key))
                }
            }
            whenFull = try container.decodeIfPresent(String.self, forKey: Key(stringValue: "whenFull"))
            whenAllFull = try container.decodeIfPresent(String.self, forKey: Key(stringValue: "whenAllFull"))
        }
    }

    /// Every key the file may hold: the names of the properties above, and nowhere else.
    package static let keys = propertyNames(of: ConfigFile())

    init() {}

    /// The stored properties of `value`, every one optional so that each is listed.
    private static func propertyNames(of value: Any) -> [String] {
        Mirror(reflecting: value).children.compactMap(\.label)
    }

    static func parse(_ text: String, path: String) throws(SettingsError) -> ConfigFile {
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch {
            throw SettingsError(origin: .file, message: "\(path) is not valid YAML: \(error)")
        }
        guard let node else { return ConfigFile() }
        guard let mapping = node.mapping else {
            throw SettingsError(origin: .file, message: "\(path) must be a mapping of settings (key: value)")
        }
        try refuseUnknownKeys(in: mapping, known: Set(keys), path: path, prefix: "")
        if let notify = mapping["notify"]?.mapping {
            try refuseUnknownKeys(
                in: notify, known: Set(Notify.keys), path: path, prefix: "notify.")
        }
        do {
            return try YAMLDecoder().decode(ConfigFile.self, from: node)
        } catch let error as DecodingError {
            throw SettingsError(origin: .file, message: "\(path): \(describe(error))")
        } catch {
            throw SettingsError(origin: .file, message: "\(path): \(error)")
        }
    }

    /// A key the file does not define is an error, with the closest one it does.
    private static func refuseUnknownKeys(in mapping: Node.Mapping, known: Set<String>, path: String, prefix: String)
        throws(SettingsError)
    {
        for key in mapping.keys {
            let name = key.string ?? "\(key)"
            guard known.contains(name) else {
                let hint =
                    closest(to: name, in: known)
                    .flatMap { distance($0, name) <= 3 ? " (did you mean '\(prefix)\($0)'?)" : nil } ?? ""
                throw SettingsError(origin: .file, message: "\(path): unknown setting '\(prefix)\(name)'\(hint)")
            }
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func name(_ path: [any CodingKey]) -> String { path.map(\.stringValue).joined(separator: ".") }
        switch error {
        case .typeMismatch(let type, let context):
            return "'\(name(context.codingPath))' must be \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "'\(name(context.codingPath))' must be \(typeName(type)), not empty"
        case .dataCorrupted(let context):
            return "'\(name(context.codingPath))': \(context.debugDescription)"
        case .keyNotFound(let key, _):
            return "'\(key.stringValue)' is missing"
        @unknown default:
            return "\(error)"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is WholeNumber.Type: "a whole number"
        case is Bool.Type: "true or false"
        case is String.Type: "text"
        case is ExactAmount.Type: "an amount such as 20 or 12.50"
        case is [String].Type: "a list"
        default:
            if type == [String: String].self || type == [String: ExactAmount].self || "\(type)".hasSuffix("Mapping") {
                "a mapping (key: value on lines of their own)"
            } else if "\(type)".hasSuffix("Scalar") {
                "a single value, not a list or a mapping"
            } else if "\(type)".hasSuffix("Sequence") {
                "a list"
            } else {
                "a value of another kind"
            }
        }
    }

    /// The known word nearest `word`; of words as near, the first in alphabetical order, so
    /// that the hint is the same on every run (a set's order changes from run to run).
    static func closest(to word: String, in known: Set<String>) -> String? {
        known.min { (distance($0, word), $0) < (distance($1, word), $1) }
    }

    /// Edit distance, for suggesting the setting a typo meant.
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased())
        let b = Array(b.lowercased())
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}

/// A value of the file, checked: within its bounds, one of the words it takes, one the
/// bank defines, an amount its currency can hold. Each names the key and the bad value.
extension ConfigFile {
    /// `values`, each one of `known`; one that is not is refused with the closest that is.
    func checked(_ values: [String]?, _ key: String, _ known: Set<String>) throws(SettingsError) -> [String] {
        for value in values ?? [] where !known.contains(value) {
            let closest = ConfigFile.closest(to: value, in: known)
            let hint = closest.map { " (did you mean '\($0)'?)" } ?? ""
            throw SettingsError(origin: .file, message: "\(key): '\(value)' is not a value the bank uses\(hint)")
        }
        return values ?? []
    }

    /// The value of a setting that takes one of a few words, or `fallback` when unset.
    func choice<Value: RawRepresentable & CaseIterable>(_ text: String?, _ key: String, default fallback: Value)
        throws(SettingsError) -> Value where Value.RawValue == String
    {
        guard let text else { return fallback }
        guard let value = Value(rawValue: text) else {
            let words = Value.allCases.map { "'\($0.rawValue)'" }
            let list = words.dropLast().joined(separator: ", ") + " or " + words.last!
            throw SettingsError(origin: .file, message: "\(key) must be \(list), not '\(text)'")
        }
        return value
    }

    /// Amounts by currency code, each an ISO 4217 code and an amount that currency can hold.
    func amounts(_ key: String, _ written: [String: ExactAmount]?) throws(SettingsError) -> [String: Money] {
        var result: [String: Money] = [:]
        for (code, amount) in (written ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let currency = Currency(code: code) else {
                throw SettingsError(origin: .file, message: "\(key): '\(code)' is not an ISO 4217 currency code")
            }
            do {
                result[code] = try Money(amount: amount.value, currency: currency)
            } catch {
                throw SettingsError(origin: .file, message: "\(key) for \(code): \(error.description)")
            }
        }
        return result
    }

    func bounded(_ number: WholeNumber?, _ key: String, _ range: ClosedRange<Int>) throws(SettingsError) -> Int? {
        guard let value = number?.value else { return nil }
        guard range.contains(value) else {
            throw SettingsError(
                origin: .file, message: "\(key) must be from \(range.lowerBound) to \(range.upperBound), not \(value)")
        }
        return value
    }
}

/// An amount of money written in a config file, read from its text so that `12.10` is
/// exactly 12.10 and never a binary fraction near it.
struct ExactAmount: Decodable {
    let value: Decimal

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self).trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count),
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not an amount such as 20 or 12.50")
        }
        self.value = value
    }
}

/// A whole number written in a config file: decimal digits only, with a `-` before them
/// for a negative one. YAML 1.1 reads `010` as octal 8 and takes `0x5`, `0b11` and `1_0`;
/// the config's schema, and YAML 1.2 editors, read them otherwise or not at all, so each is
/// refused with the number meant, written as it should be.
struct WholeNumber: Decodable, Equatable {
    let value: Int

    init(_ value: Int) { self.value = value }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text: String
        do {
            text = try container.decode(String.self).trimmingCharacters(in: .whitespaces)
        } catch DecodingError.typeMismatch(_, let context) {
            // A list or a mapping where the number should be.
            throw DecodingError.typeMismatch(WholeNumber.self, context)
        }
        if let value = WholeNumber.decimal(text) {
            self.value = value
            return
        }
        let shown = printable(text.count > 40 ? String(text.prefix(40)) + "…" : text)
        let why =
            WholeNumber.isDecimal(text)
            ? "is too large"
            : "is not a whole number in decimal digits" + (WholeNumber.meant(text).map { ": write \($0)" } ?? "")
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(shown)' \(why)")
    }

    /// Whether `text` is decimal digits with no leading zero, after an optional `-` (not
    /// before 0).
    static func isDecimal(_ text: String) -> Bool {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text[...]
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
            && (digits == "0" ? text == "0" : !digits.hasPrefix("0"))
    }

    /// `text` as a whole number written in decimal digits (`isDecimal`), or nil.
    static func decimal(_ text: String) -> Int? {
        isDecimal(text) ? Int(text) : nil
    }

    /// The number another notation gives `text`, when it is one a reader may have meant:
    /// leading zeros, `0x`, `0o`, `0b`, or `_` between digits.
    static func meant(_ text: String) -> Int? {
        let negative = text.hasPrefix("-")
        var body = (negative || text.hasPrefix("+") ? text.dropFirst() : text[...])
            .replacingOccurrences(of: "_", with: "")
        var radix = 10
        for (prefix, base) in [("0x", 16), ("0o", 8), ("0b", 2)] where body.lowercased().hasPrefix(prefix) {
            radix = base
            body = String(body.dropFirst(2))
        }
        guard !body.isEmpty, body.first?.isHexDigit == true, let value = Int(body, radix: radix) else { return nil }
        return negative ? -value : value
    }
}
