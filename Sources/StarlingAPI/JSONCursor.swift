import Foundation

/// A strict reader of JSON bytes that are all present: checks the grammar as it goes, and
/// gives up (nil or false) on anything it does not take as it is.
///
/// It knows JSON, not what a body means: readers of particular objects (the feed item, in
/// FeedItemParser.swift) are built on `members`, and leave what the cursor gives up on to
/// `JSONDecoder`. So the cursor only has to be right where it answers; it need not handle
/// everything.
struct JSONCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var atEnd: Bool { position >= bytes.count }

    mutating func skipWhitespace() {
        while position < bytes.count {
            let byte = bytes[position]
            guard byte.isJSONWhitespace else { return }
            position += 1
        }
    }

    /// A string at `position`: the range of its contents, and whether it is plain (ASCII,
    /// no escapes). Nil when it is not a valid JSON string.
    mutating func skipString() -> (start: Int, end: Int, plain: Bool)? {
        guard !atEnd, bytes[position] == UInt8(ascii: "\"") else { return nil }
        position += 1
        let start = position
        var plain = true
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return (start, position - 1, plain)
            }
            if byte < 0x20 { return nil }
            if byte >= 0x80 {
                // Checked by the caller's fallback (JSONDecoder), which knows UTF-8.
                plain = false
            } else if byte == UInt8(ascii: "\\") {
                plain = false
                position += 1
                guard !atEnd else { return nil }
                switch bytes[position] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    break
                case UInt8(ascii: "u"):
                    for _ in 0..<4 {
                        position += 1
                        guard !atEnd, bytes[position].isHexDigit else { return nil }
                    }
                default:
                    return nil
                }
            }
            position += 1
        }
        return nil
    }

    /// A number at `position`, by JSON's grammar; its value when it is a plain integer that
    /// fits in 64 bits.
    mutating func skipNumber() -> (valid: Bool, integer: Int64?) {
        let start = position
        var negative = false
        if !atEnd, bytes[position] == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        guard !atEnd, bytes[position].isDigit else { return (false, nil) }
        var value: Int64? = 0
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while !atEnd, bytes[position].isDigit {
                let digit = Int64(bytes[position] - UInt8(ascii: "0"))
                if let current = value {
                    let (times, overflow1) = current.multipliedReportingOverflow(by: 10)
                    let (next, overflow2) =
                        negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
                    value = overflow1 || overflow2 ? nil : next
                }
                position += 1
            }
        }
        var integral = true
        if !atEnd, bytes[position] == UInt8(ascii: ".") {
            integral = false
            position += 1
            guard !atEnd, bytes[position].isDigit else { return (false, nil) }
            while !atEnd, bytes[position].isDigit { position += 1 }
        }
        if !atEnd, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            integral = false
            position += 1
            if !atEnd, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard !atEnd, bytes[position].isDigit else { return (false, nil) }
            while !atEnd, bytes[position].isDigit { position += 1 }
        }
        // "-0" is a valid number but not one the fast path hands out.
        let isNegativeZero = negative && position - start == 2
        return (true, integral && !isNegativeZero ? value : nil)
    }

    private mutating func skipLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        for offset in 0..<count where bytes[position + offset] != literal.utf8Start[offset] { return false }
        position += count
        return true
    }

    /// Any JSON value, checked; false if it is not valid (or nested too deeply to follow).
    /// `depth` is how many containers this value is in: one 256 deep is refused, so that a
    /// hostile body cannot exhaust the stack.
    mutating func skipValue(depth: Int) -> Bool {
        skipWhitespace()
        guard !atEnd, depth < JSONDepth.limit else { return false }
        switch bytes[position] {
        case UInt8(ascii: "\""):
            guard skipString() != nil else { return false }
        case UInt8(ascii: "{"):
            guard members({ cursor, _, _ in cursor.skipValue(depth: depth + 1) }) else { return false }
        case UInt8(ascii: "["):
            position += 1
            skipWhitespace()
            if !atEnd, bytes[position] == UInt8(ascii: "]") {
                position += 1
                break
            }
            while true {
                skipWhitespace()
                if !atEnd, bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    break
                }
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                guard !atEnd else { return false }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                } else if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    break
                } else {
                    return false
                }
            }
        case UInt8(ascii: "t"):
            guard skipLiteral("true") else { return false }
        case UInt8(ascii: "f"):
            guard skipLiteral("false") else { return false }
        case UInt8(ascii: "n"):
            guard skipLiteral("null") else { return false }
        default:
            guard skipNumber().valid else { return false }
        }
        skipWhitespace()
        return true
    }

    /// A plain string value (ASCII, no escapes); nil when the value is anything else, which
    /// is left to a decoder that knows escapes and UTF-8.
    mutating func plainString() -> String? {
        skipWhitespace()
        guard let (start, end, plain) = skipString(), plain else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// A plain string, the same instance as an equal one in `known` (which it joins if new).
    mutating func internedString(_ known: inout [String]) -> String? {
        skipWhitespace()
        guard let (start, end, plain) = skipString(), plain else { return nil }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<end])
        guard !text.isEmpty else { return "" }
        for candidate in known where candidate.utf8.count == text.count {
            let same = candidate.utf8.withContiguousStorageIfAvailable {
                memcmp($0.baseAddress!, text.baseAddress!, text.count) == 0
            }
            if same == true { return candidate }
        }
        let value = String(decoding: text, as: UTF8.self)
        if known.count < 16 { known.append(value) }
        return value
    }

    /// An optional plain string field: `.some(nil)` for null, nil when it is something else.
    mutating func optionalPlainString() -> String?? {
        skipWhitespace()
        if !atEnd, bytes[position] == UInt8(ascii: "n") {
            return skipLiteral("null") ? .some(nil) : nil
        }
        return plainString().map { .some($0) }
    }

    /// Whether the string contents in `start..<end` have an escape or a byte outside ASCII.
    func hasEscape(_ start: Int, _ end: Int) -> Bool {
        UnsafeBufferPointer(rebasing: bytes[start..<end]).contains { $0 == UInt8(ascii: "\\") || $0 >= 0x80 }
    }

    /// Whether the key whose contents are `start..<end` is `name`, byte for byte: a key
    /// spelled with escapes never matches, so a reader must give up on those (`hasEscape`)
    /// rather than take them for an unknown key.
    func key(_ start: Int, _ end: Int, is name: StaticString) -> Bool {
        let count = name.utf8CodeUnitCount
        guard end - start == count else { return false }
        return memcmp(bytes.baseAddress! + start, name.utf8Start, count) == 0
    }

    /// Reads the object at `position`: for each member, its key's range goes to `member`,
    /// which reads the value (false gives up). False when this is not a valid object, or
    /// `member` gave up.
    mutating func members(_ member: (inout JSONCursor, _ start: Int, _ end: Int) -> Bool) -> Bool {
        skipWhitespace()
        guard !atEnd, bytes[position] == UInt8(ascii: "{") else { return false }
        position += 1
        while true {
            skipWhitespace()
            if !atEnd, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return true
            }
            guard let (start, end, _) = skipString() else { return false }
            skipWhitespace()
            guard !atEnd, bytes[position] == UInt8(ascii: ":") else { return false }
            position += 1
            guard member(&self, start, end) else { return false }
            skipWhitespace()
            guard !atEnd else { return false }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
            } else if bytes[position] == UInt8(ascii: "}") {
                position += 1
                return true
            } else {
                return false
            }
        }
    }
}

extension UInt8 {
    /// Space, line feed, carriage return, tab: JSON allows no other whitespace between tokens.
    var isJSONWhitespace: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    fileprivate var isHexDigit: Bool {
        isDigit || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f"))
            || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}
