import PropertyBased
import RoundUp
import Testing

/// `printable`: every character that could drive a terminal is escaped, everything else
/// is kept as it is.
@Suite struct PrintableTests {
    @Test func controlsAreEscapedAndTheRestKept() {
        #expect(printable("Café £2 ☕️ 東京") == "Café £2 ☕️ 東京")
        #expect(printable("a\u{1B}[2Jb") == "a\\u001b[2Jb")
        #expect(printable("bell\u{07}\r\nline") == "bell\\u0007\\u000d\\u000aline")
        #expect(printable("\u{7F}\u{80}\u{9B}\u{9F}\u{A0}") == "\\u007f\\u0080\\u009b\\u009f\u{A0}")
        #expect(
            printable("\u{202E}evil\u{2066}\u{2069}\u{200F}\u{61C}\u{2028}")
                == "\\u202eevil\\u2066\\u2069\\u200f\\u061c\\u2028")
        #expect(printable("") == "")
        #expect(printable("\u{0}") == "\\u0000")
    }

    @Test func jsonKeepsItsMeaningWithoutRawControls() throws {
        let json = "{\n  \"name\" : \"a\u{9B}2J\u{202E}b\\n\"\n}"
        let shown = printableJSON(json)
        #expect(shown == "{\n  \"name\" : \"a\\u009b2J\\u202eb\\n\"\n}")
        #expect(printableJSON("{\"plain\": \"£ é\"}") == "{\"plain\": \"£ é\"}")
    }

    @Test func noControlCharacterSurvives() async {
        let scalars = Gen.oneOf(
            Gen.int(in: 0...0xA0), Gen.int(in: 0x2000...0x2070), Gen.int(in: 0x600...0x620), Gen.int(in: 0x20...0x7E)
        ).compactMap { Unicode.Scalar(UInt32($0)) }
        await propertyCheck(input: scalars.array(of: 0...40)) { list in
            let text = String(String.UnicodeScalarView(list))
            let shown = printable(text)
            #expect(!shown.unicodeScalars.contains(where: isControl))
            if !list.contains(where: isControl) { #expect(shown == text) }
        }
    }
}
