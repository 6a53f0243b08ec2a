import Testing

@testable import StarlingAPI

/// Runs `body` on a cursor over `bytes`, which stay in place meanwhile.
func withCursor<T>(_ bytes: [UInt8], _ body: (inout JSONCursor) -> T) -> T {
    bytes.withUnsafeBufferPointer { buffer in
        var cursor = JSONCursor(buffer)
        return body(&cursor)
    }
}

func withCursor<T>(_ text: String, _ body: (inout JSONCursor) -> T) -> T {
    withCursor(Array(text.utf8), body)
}

/// Where a string's storage is, to tell one shared instance from an equal copy.
func storage(of text: String) -> UInt? {
    text.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) }
}

/// The strict JSON reader on its own. It need not take all of JSON (what it gives up on
/// goes to `JSONDecoder`), but what it takes must be JSON, read as JSON reads.
@Suite struct JSONCursorTests {
    /// Whether all of `text` is one valid JSON value, as the cursor sees it.
    static func isValue(_ text: String) -> Bool {
        withCursor(text) { $0.skipValue(depth: 0) && $0.position == $0.bytes.count }
    }

    /// The keys `members` hands over, as written (escapes and all), and its answer.
    static func keys(_ text: String, giveUpAt stop: String? = nil) -> (keys: [String], read: Bool) {
        var keys: [String] = []
        let read = withCursor(text) { cursor in
            cursor.members { cursor, start, end in
                let key = String(decoding: UnsafeBufferPointer(rebasing: cursor.bytes[start..<end]), as: UTF8.self)
                keys.append(key)
                return key != stop && cursor.skipValue(depth: 1)
            }
        }
        return (keys, read)
    }

    // MARK: - Strings

    @Test func aPlainStringEndsAtItsClosingQuote() throws {
        let text = #""abc" , 1"#
        let (string, position) = withCursor(text) { cursor in (cursor.skipString(), cursor.position) }
        let found = try #require(string)
        #expect(found.start == 1 && found.end == 4 && found.plain)
        #expect(position == 5, "just after the closing quote, before the whitespace")
        let empty = try #require(withCursor(#""""#) { $0.skipString() })
        #expect(empty.start == 1 && empty.end == 1 && empty.plain)
        #expect(withCursor("\"\u{7F} ~\"") { $0.skipString()?.plain } == true, "DEL and the rest of ASCII are plain")
    }

    @Test(arguments: [
        #""\"""#, #""\\""#, #""\/""#, #""\b\f\n\r\t""#, #""a\u00e9b""#, #""\uD83D\uDE00""#, #""\uABCD\uabcd""#,
        "\"café\"", "\"\u{1F600}\"",
    ])
    func escapesAndTextOutsideASCIIAreValidButNotPlain(text: String) throws {
        let (string, position) = withCursor(text) { cursor in (cursor.skipString(), cursor.position) }
        let found = try #require(string, "\(text)")
        #expect(!found.plain, "\(text)")
        #expect(position == text.utf8.count, "\(text)")
        #expect(found.end == text.utf8.count - 1, "\(text)")
    }

    /// UTF-8 is not the cursor's to check: a byte outside ASCII only makes the string not
    /// plain, and a reader then leaves it to `JSONDecoder`.
    @Test func bytesOutsideASCIIAreLeftForTheFallbackToCheck() {
        let invalidUTF8: [UInt8] = [0x22, 0xFF, 0xC3, 0x22]
        #expect(withCursor(invalidUTF8) { $0.skipString()?.plain } == false)
    }

    @Test(arguments: [
        #""abc"#, #""abc\""#, #""\"#, "\"a\u{01}b\"", "\"a\nb\"", "\"a\tb\"", "\"\u{1F}\"", #""\x""#, #""\u12""#,
        #""\u12G4""#, #""\U0041""#, #""\'""#, "abc", "", "'a'", " \"a\"",
    ])
    func invalidStringsAreRefused(text: String) {
        #expect(withCursor(text) { $0.skipString() } == nil, "\(text)")
    }

    // MARK: - Numbers

    @Test(
        arguments: [
            ("0", 0), ("7", 7), ("-12", -12), ("1234", 1234), ("9223372036854775807", Int64.max),
            ("-9223372036854775808", Int64.min),
        ] as [(String, Int64)])
    func integersThatFitIn64BitsAreGiven(text: String, value: Int64) {
        let (number, position) = withCursor(text) { cursor in (cursor.skipNumber(), cursor.position) }
        #expect(number.valid && number.integer == value, "\(text)")
        #expect(position == text.utf8.count, "\(text)")
    }

    /// Valid numbers that are not a plain integer, or do not fit: no integer, so a reader
    /// that needs one leaves them to `JSONDecoder`.
    @Test(arguments: [
        "-0", "9223372036854775808", "-9223372036854775809", "99999999999999999999", "12.0", "1.5", "0.0", "-0.5",
        "1e3", "1E3", "1e+3", "1e-3", "12.50e2", "-0e0", "0E-0",
    ])
    func otherValidNumbersGiveNoInteger(text: String) {
        let (number, position) = withCursor(text) { cursor in (cursor.skipNumber(), cursor.position) }
        #expect(number.valid, "\(text)")
        #expect(number.integer == nil, "\(text)")
        #expect(position == text.utf8.count, "\(text)")
        #expect(Self.isValue(text), "\(text)")
    }

    @Test(arguments: [
        "01", "-01", "00", "0123", "-", "+1", ".5", "1.", "1.e3", "1e", "1e+", "--1", "0x10", "1_000", "Infinity",
        "-Infinity", "NaN", "- 1",
    ])
    func malformedNumbersAreRefused(text: String) {
        #expect(!Self.isValue(text), "\(text)")
        #expect(!Self.isValue("[\(text)]"), "[\(text)]")
        #expect(!Self.isValue(#"{"a":\#(text)}"#), #"{"a":\#(text)}"#)
    }

    /// A leading zero ends the number: what follows it is not part of any value.
    @Test func aLeadingZeroIsANumberOfItsOwn() {
        let (number, position) = withCursor("0123") { cursor in (cursor.skipNumber(), cursor.position) }
        #expect(number.valid && number.integer == 0)
        #expect(position == 1)
    }

    // MARK: - Literals and containers

    @Test func literals() {
        for text in ["true", "false", "null", " null ", "[true,false,null]"] {
            #expect(Self.isValue(text), "\(text)")
        }
        for text in ["tru", "nul", "t", "True", "NULL", "nulll", "truefalse", "fals e", "nil", "undefined"] {
            #expect(!Self.isValue(text), "\(text)")
        }
    }

    @Test func nestedValues() {
        let valid = [
            #"{"a":[1,{"b":null}],"c":"d"}"#, "[]", "{}", "[[],[{}]]", #"{"a":{"b":{"c":[true,false,-1.5e3]}}}"#,
            #"[{"":""}]"#,
        ]
        for text in valid { #expect(Self.isValue(text), "\(text)") }
        let invalid = [
            "[1}", #"{"a":1]"#, #"{"a"}"#, #"{"a" 1}"#, "{1:2}", "{a:1}", "[1 2]", #"{"a":1 "b":2}"#, "[", "{",
            #"{"a":"#, "]", "}", "[1,2", #"{"a":1"#, #"{"a":1}}"#, "[]]", #"{"a";1}"#,
        ]
        for text in invalid { #expect(!Self.isValue(text), "\(text)") }
    }

    /// A value inside 256 containers is refused; one inside 255 is read.
    @Test func nestingIsFollowedTo255Levels() {
        func arrays(_ levels: Int, around inner: String) -> String {
            String(repeating: "[", count: levels) + inner + String(repeating: "]", count: levels)
        }
        func objects(_ levels: Int, around inner: String) -> String {
            String(repeating: #"{"a":"#, count: levels) + inner + String(repeating: "}", count: levels)
        }
        #expect(Self.isValue(arrays(255, around: "1")))
        #expect(!Self.isValue(arrays(256, around: "1")))
        #expect(Self.isValue(arrays(256, around: "")), "the innermost (empty) array is 255 deep")
        #expect(!Self.isValue(arrays(257, around: "")))
        #expect(Self.isValue(objects(255, around: "1")))
        #expect(!Self.isValue(objects(256, around: "1")))
        #expect(!Self.isValue(arrays(100_000, around: "")), "refused, not a stack overflow")
    }

    /// As Foundation's reader: `{"a":1,}` and `[1,]` are taken. A comma with nothing
    /// before it is not.
    @Test func aTrailingCommaIsAccepted() {
        #expect(Self.isValue(#"{"a":1,}"#))
        #expect(Self.isValue(#"{"a":1 , }"#))
        #expect(Self.isValue("[1,]"))
        #expect(Self.isValue("[1 ,\n]"))
        let trailing = Self.keys(#"{"a":1,}"#)
        #expect(trailing.read && trailing.keys == ["a"])
        for text in [#"{"a":1,,}"#, "{,}", #"{,"a":1}"#, "[,]", "[1,,]", "[,1]", "{,", "[1,"] {
            #expect(!Self.isValue(text), "\(text)")
        }
    }

    // MARK: - Members

    @Test func membersHandsOverEachKeyAsWritten() {
        let all = Self.keys(#"{ "a" : 1, "b":[2], "a":"x", "\u0063":null }"#)
        #expect(all.read)
        #expect(all.keys == ["a", "b", "a", #"\u0063"#], "duplicates and escapes are the reader's to judge")
        let empty = Self.keys(" { } ")
        #expect(empty.read && empty.keys.isEmpty)
        let stopped = Self.keys(#"{"a":1,"b":2,"c":3}"#, giveUpAt: "b")
        #expect(!stopped.read && stopped.keys == ["a", "b"], "a member that gives up ends the object")
        for text in ["[1]", #""a""#, "1", "", #"{"a":1"#, #"{"a":1 "b":2}"#, #"{"a" 1}"#, "{1:1}"] {
            #expect(!Self.keys(text).read, "\(text)")
        }
    }

    @Test func keysAreComparedByteForByte() {
        func check(_ text: String) -> (matches: Bool, escaped: Bool) {
            var result = (matches: false, escaped: false)
            _ = withCursor(text) { cursor in
                cursor.members { cursor, start, end in
                    result = (cursor.key(start, end, is: "status"), cursor.hasEscape(start, end))
                    return cursor.skipValue(depth: 1)
                }
            }
            return result
        }
        #expect(check(#"{"status":1}"#) == (true, false))
        #expect(check(#"{"statu":1}"#) == (false, false))
        #expect(check(#"{"statuss":1}"#) == (false, false))
        #expect(check(#"{"Status":1}"#) == (false, false))
        #expect(check(#"{"st\u0061tus":1}"#) == (false, true), "spelled with an escape: not matched, but flagged")
        #expect(check("{\"stätus\":1}") == (false, true), "outside ASCII: flagged")
    }

    // MARK: - Whitespace

    @Test func onlyJSONsFourWhitespaceBytesAreSkipped() {
        #expect(Self.isValue(" \t\n\r[ 1 ,\t2 ,\r\n{ \"a\" :\n3 } ]\r\n \t"))
        for space in ["\u{0C}", "\u{0B}", "\u{A0}", "\u{2028}", "\u{FEFF}"] {
            #expect(!Self.isValue(space + "1"), "U+\(String(space.unicodeScalars.first!.value, radix: 16))")
            #expect(!Self.isValue("[1," + space + "2]"))
        }
        let skipped = withCursor(" \t\n\r\u{0C} ") { cursor -> Int in
            cursor.skipWhitespace()
            return cursor.position
        }
        #expect(skipped == 4, "up to the form feed")
    }

    // MARK: - Strings for readers

    @Test func plainAndOptionalStrings() {
        #expect(withCursor("  \"abc\"") { $0.plainString() } == "abc")
        #expect(withCursor(#""""#) { $0.plainString() } == "")
        for text in [#""a\nb""#, "\"é\"", "1", "null", "\"abc", "[]"] {
            #expect(withCursor(text) { $0.plainString() } == nil, "\(text)")
        }
        #expect(withCursor(" null") { $0.optionalPlainString() } == .some(nil))
        #expect(withCursor(#" "x""#) { $0.optionalPlainString() } == .some("x"))
        for text in ["nul", "nulx", "1", #""\u0041""#, "true", "{}"] {
            #expect(withCursor(text) { $0.optionalPlainString() } == nil, "\(text)")
        }
    }

    @Test func internedStringsAreOneInstance() throws {
        var known: [String] = []
        let uid = "22222222-2222-4222-8222-000000000001"
        let first = try #require(withCursor("\"\(uid)\"") { $0.internedString(&known) })
        let second = try #require(withCursor(" \"\(uid)\"") { $0.internedString(&known) })
        #expect(first == uid && second == uid)
        #expect(storage(of: first) != nil && storage(of: first) == storage(of: second), "the same instance")
        let other = try #require(withCursor("\"\(uid.dropLast())2\"") { $0.internedString(&known) })
        #expect(other == String(uid.dropLast()) + "2", "the same length, another string")
        #expect(known.count == 2)
        #expect(withCursor(#""""#) { $0.internedString(&known) } == "")
        #expect(withCursor(#""a\/b""#) { $0.internedString(&known) } == nil)
        // No more than 16 are kept, so a feed of all-different uids does not search a long list.
        for index in 0..<20 {
            #expect(withCursor("\"category-\(index)\"") { $0.internedString(&known) } == "category-\(index)")
        }
        #expect(known.count == 16)
    }
}
