import CurlHTTP
import Foundation
import Testing

@Suite struct HTTPDateTests {
    @Test func theFormServersSendIsRead() {
        #expect(HTTPDate.seconds("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.seconds("  Sat, 28 Nov 2026 02:20:48 GMT ") == 1_795_832_448)
        // Leap days, the first and last days the header can name.
        #expect(HTTPDate.seconds("Thu, 29 Feb 2024 00:00:00 GMT") == 1_709_164_800)
        #expect(HTTPDate.seconds("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
    }

    @Test(arguments: [
        "", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994", "Sun, 31 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Xyz 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 0000 08:49:37 GMT", "Sun, +6 Nov 1994 08:49:37 GMT",
    ])
    func anythingElseIsNoDate(text: String) {
        #expect(HTTPDate.seconds(text) == nil)
    }

    @Test func whatIsWrittenReadsBackToTheSecond() {
        for seconds: Int64 in [0, 784_111_777, 1_795_832_448, 1_709_164_799, -86_400, 253_402_300_799, -1] {
            let text = HTTPDate.format(seconds: seconds)
            #expect(text.utf8.count == 29, "\(text)")
            #expect(HTTPDate.seconds(text) == seconds, "\(text)")
        }
        #expect(HTTPDate.format(seconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 784_111_777.9)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}
