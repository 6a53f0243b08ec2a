public import CurlHTTP
import Foundation
import RoundUp

/// Decodes the settled feed (`{"feedItems":[…]}`) while it arrives, into the domain's
/// transactions, without keeping the body: a week of a busy business account is tens of
/// megabytes of JSON, of which the job needs a few fields per item.
///
/// The body is scanned once for its structure. Each feed item, once its closing brace has
/// arrived, is read by a strict parser (`JSONCursor.feedItem`) that takes the fields the
/// job uses and checks the rest is valid JSON; the item's bytes are then dropped. An item
/// that parser does not take as it is (an escape, a byte outside ASCII, a field of an
/// unexpected type, a number that is not a plain integer) is decoded by `JSONDecoder`
/// instead, so every item means exactly what `JSONDecoder` makes of it (both give a
/// `FeedItem`), and failures are described in the same words.
/// A body whose top level is not `{"feedItems":[`… in that order is kept whole and
/// decoded by `JSONDecoder` too.
///
/// A body is refused when `JSONDecoder` refuses it. When a body has several problems, the
/// one named is the first in this order: not valid JSON anywhere, the first item that does
/// not decode, no `feedItems`, the first settlement time that is not a timestamp.
///
/// `@unchecked Sendable`: the transport calls `consume` on one thread while the request is
/// in flight, and the caller reads the result only after `send` has returned, which orders
/// the two.
public final class FeedDecoder: ResponseBodyConsumer, @unchecked Sendable {
    private enum State {
        case start
        /// A key or the end of the object. A closing brace may follow a comma: Foundation's
        /// JSON reader takes `{"a":1,}` and `[1,]`, and so does this one.
        case memberStart
        case key
        case colon
        case value
        case otherValue
        case itemStart
        /// An item begun but not yet read: waiting for the rest of its bytes.
        case itemPending
        case item
        case notAnItem
        case afterItem
        case memberEnd
        case end
        /// The top level is not the usual shape: keep everything for `JSONDecoder`.
        case whole
    }

    /// What kind of value is being captured, known from its first byte.
    private enum CaptureKind {
        case none, string, container, scalar
    }

    private var buffer: [UInt8] = []
    /// The next byte of `buffer` to look at.
    private var scan = 0
    /// Where the value, key or item being captured starts in `buffer`.
    private var captureStart = 0
    private var state = State.start
    private var depth = 0
    /// The deepest nesting seen inside one value, to tell a body refused for its depth.
    private var deepest = 0
    private var capture = CaptureKind.none
    private var inString = false
    private var escaped = false
    private var key: [UInt8] = []
    private var seenFeedItems = false
    private var index = 0
    private var received = 0
    private var syntaxError = false
    private var decodeError: String?
    private var conversionError: BankError?
    private var transactions: [Transaction] = []
    /// What is kept of each item.
    private let keeping: Keeping
    /// The transfers into goals kept (`Keeping.transfersOut`).
    private var transfers: [FeedItem] = []

    /// What a decoder keeps of a feed.
    public enum Keeping: Sendable {
        /// Every item, as the domain's transaction (the settled feed).
        case transactions
        /// The OUT internal transfers alone, as the bank sent them: a search of a category's
        /// feed for transfers into goals, however many payments the same days hold.
        case transfersOut
    }

    public init(keeping: Keeping = .transactions) {
        self.keeping = keeping
    }
    /// The category uids seen so far, so that a hundred thousand items share one string.
    private var categories: [String] = []
    /// Set once the body has ended: a pending item cannot get more bytes.
    private var finishing = false

    public func consume(_ bytes: UnsafeRawBufferPointer) -> Bool {
        received += bytes.count
        buffer.append(contentsOf: bytes)
        if case .whole = state { return true }
        process()
        compact()
        // Not valid JSON: nothing that follows can change that, so stop the transfer.
        return !syntaxError
    }

    /// After the whole body: throws if it is not a usable feed (not JSON, an item that
    /// does not decode, no `feedItems`), as `JSONDecoder` would have.
    func checkStructure(endpoint: String) throws(BankError) {
        if case .whole = state {
            try decodeWhole(endpoint: endpoint)
            return
        }
        if received == 0 { throw .malformedResponse(endpoint: endpoint, detail: "the body is empty") }
        if case .itemPending = state {
            // The body ended inside an item: follow it as far as it goes.
            finishing = true
            scan = captureStart
            process()
        }
        if deepest >= JSONDepth.limit, syntaxError || decodeError != nil {
            throw .malformedResponse(endpoint: endpoint, detail: BankError.nestedTooDeeplyDetail)
        }
        guard !syntaxError, case .end = state else {
            throw .malformedResponse(endpoint: endpoint, detail: "the body is not valid JSON")
        }
        if let decodeError { throw .malformedResponse(endpoint: endpoint, detail: decodeError) }
        guard seenFeedItems else { throw .malformedResponse(endpoint: endpoint, detail: "feedItems is missing") }
    }

    /// The OUT internal transfers of a feed that passed `checkStructure` (`Keeping.transfersOut`).
    func transfersOut() -> [FeedItem] { transfers }

    /// The transactions of a feed that passed `checkStructure`, or the first settlement
    /// time that is not a timestamp.
    func transactionsOrConversionError() throws(BankError) -> [Transaction] {
        if let conversionError { throw conversionError }
        return transactions
    }

    // MARK: - Structure

    private static let quote = UInt8(ascii: "\"")
    private static let backslash = UInt8(ascii: "\\")
    private static let feedItemsKey = Array("feedItems".utf8)

    private func process() {
        while scan < buffer.count, !syntaxError {
            switch state {
            case .itemPending:
                let before = scan
                parsePendingItem()
                // Still waiting: the rest of the item has not arrived.
                if case .itemPending = state, scan == before { return }
            case .item:
                scanCapture(endsItem: true)
            case .otherValue, .notAnItem:
                scanCapture(endsItem: false)
            case .key:
                scanKey()
            case .whole:
                return
            default:
                let byte = buffer[scan]
                if byte.isJSONWhitespace {
                    scan += 1
                    continue
                }
                structural(byte)
            }
        }
    }

    /// A byte outside any string or captured value: where the top level goes next.
    private func structural(_ byte: UInt8) {
        switch state {
        case .start:
            if byte == UInt8(ascii: "{") {
                state = .memberStart
                scan += 1
            } else {
                state = .whole
            }
        case .memberStart:
            if byte == FeedDecoder.quote {
                state = .key
                captureStart = scan
                scan += 1
                escaped = false
            } else if byte == UInt8(ascii: "}") {
                state = .end
                scan += 1
            } else {
                syntaxError = true
            }
        case .colon:
            if byte == UInt8(ascii: ":") {
                state = .value
                scan += 1
            } else {
                syntaxError = true
            }
        case .value:
            if key == FeedDecoder.feedItemsKey && !seenFeedItems {
                guard byte == UInt8(ascii: "[") else {
                    // feedItems is null, or not a list: JSONDecoder says which, in its words.
                    state = .whole
                    return
                }
                seenFeedItems = true
                state = .itemStart
                scan += 1
            } else {
                beginCapture(.otherValue)
            }
        case .itemStart:
            if byte == UInt8(ascii: "{") {
                captureStart = scan
                state = .itemPending
                parsePendingItem()
            } else if byte == UInt8(ascii: "]") {
                state = .memberEnd
                scan += 1
            } else if byte == UInt8(ascii: ",") {
                syntaxError = true
            } else {
                beginCapture(.notAnItem)
            }
        case .afterItem:
            if byte == UInt8(ascii: ",") {
                state = .itemStart
                scan += 1
            } else if byte == UInt8(ascii: "]") {
                state = .memberEnd
                scan += 1
            } else {
                syntaxError = true
            }
        case .memberEnd:
            if byte == UInt8(ascii: ",") {
                state = .memberStart
                scan += 1
            } else if byte == UInt8(ascii: "}") {
                state = .end
                scan += 1
            } else {
                syntaxError = true
            }
        case .end:
            syntaxError = true
        case .key, .item, .itemPending, .otherValue, .notAnItem, .whole:
            break
        }
    }

    private func beginCapture(_ next: State) {
        state = next
        captureStart = scan
        capture = .none
        depth = 0
        inString = false
        escaped = false
    }

    /// Reads a key up to its closing quote.
    private func scanKey() {
        buffer.withUnsafeBufferPointer { bytes in
            while scan < bytes.count {
                let byte = bytes[scan]
                scan += 1
                if escaped {
                    escaped = false
                } else if byte == FeedDecoder.backslash {
                    escaped = true
                } else if byte == FeedDecoder.quote {
                    // Checked as a JSON string; a key with escapes never equals "feedItems" here,
                    // which only matters to a bank that spells it with escapes.
                    let token = UnsafeBufferPointer(rebasing: bytes[captureStart..<scan])
                    var cursor = JSONCursor(token)
                    if cursor.skipString() == nil || cursor.position != token.count { syntaxError = true }
                    key = Array(bytes[(captureStart + 1)..<(scan - 1)])
                    state = .colon
                    return
                }
            }
        }
    }

    /// Follows a captured value (an item, or another value) to its end: strings are
    /// skipped, brackets counted. A scalar ends at the first byte that cannot be part of it.
    private func scanCapture(endsItem: Bool) {
        var finished: Int?
        buffer.withUnsafeBufferPointer { bytes in
            let count = bytes.count
            var position = scan
            if capture == .none {
                // The value's first byte decides its kind.
                let first = bytes[position]
                if first == FeedDecoder.quote {
                    capture = .string
                    inString = true
                    position += 1
                } else if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
                    capture = .container
                    depth = 1
                    position += 1
                } else {
                    capture = .scalar
                }
            }
            if capture == .scalar {
                // A number or a literal: up to the next delimiter.
                while position < count {
                    let byte = bytes[position]
                    if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
                        || byte.isJSONWhitespace
                    {
                        finished = position
                        break
                    }
                    position += 1
                }
                scan = position
                return
            }
            while position < count {
                let byte = bytes[position]
                position += 1
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == FeedDecoder.backslash {
                        escaped = true
                    } else if byte == FeedDecoder.quote {
                        inString = false
                        if depth == 0 {
                            finished = position
                            break
                        }
                    }
                } else if byte == FeedDecoder.quote {
                    inString = true
                } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    depth += 1
                    deepest = max(deepest, depth)
                } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    depth -= 1
                    if depth == 0 {
                        finished = position
                        break
                    }
                }
            }
            scan = position
        }
        guard let end = finished else { return }
        scan = end
        let start = captureStart
        switch state {
        case .item:
            item(from: start, to: end)
            state = .afterItem
        case .notAnItem:
            notAnItem(from: start, to: end)
            state = .afterItem
        default:
            if !isValidJSON(from: start, to: end) { syntaxError = true }
            state = .memberEnd
        }
    }

    private func isValidJSON(from start: Int, to end: Int) -> Bool {
        buffer.withUnsafeBufferPointer { bytes in
            var cursor = JSONCursor(UnsafeBufferPointer(rebasing: bytes[start..<end]))
            return cursor.skipValue(depth: 0) && cursor.position == end - start
        }
    }

    /// Drops bytes no longer needed: everything before what is being captured.
    private func compact() {
        let keep: Int
        switch state {
        case .key, .item, .itemPending, .otherValue, .notAnItem: keep = seenFeedItems ? captureStart : 0
        case .whole: return
        case .start, .memberStart, .colon, .value, .itemStart, .afterItem, .memberEnd, .end:
            // Nothing is dropped before the items begin: a top level that turns out unusual
            // is then still whole for JSONDecoder.
            keep = seenFeedItems ? scan : 0
        }
        guard keep > 0 else { return }
        buffer.removeSubrange(0..<keep)
        scan -= keep
        captureStart -= min(captureStart, keep)
    }

    // MARK: - Items

    /// An item this long is followed to its end before it is parsed, rather than parsed
    /// again from its start as each piece arrives.
    static let largeItem = 1 << 16

    /// Reads the item that starts at `captureStart` straight from the buffer, when all of
    /// it is there and the strict parser takes it; one that it does not take is followed
    /// to its end and handed to `item(from:to:)`.
    private func parsePendingItem() {
        // A search for transfers finds each item's end first, and reads only what may be one.
        if case .transfersOut = keeping {
            scan = captureStart
            beginCapture(.item)
            return
        }
        let (parsed, length, ranOut) = buffer.withUnsafeBufferPointer { bytes in
            var cursor = JSONCursor(UnsafeBufferPointer(rebasing: bytes[captureStart...]))
            let parsed = cursor.feedItem(requireEnd: false, categories: &categories)
            return (parsed, cursor.position, cursor.position >= cursor.bytes.count)
        }
        if let parsed {
            accept(parsed)
            index += 1
            scan = captureStart + length
            state = .afterItem
        } else if ranOut && !finishing && buffer.count - captureStart < FeedDecoder.largeItem {
            // Perhaps only cut off by the end of what has arrived: try again with more.
            scan = buffer.count
        } else {
            scan = captureStart
            beginCapture(.item)
        }
    }

    private func item(from start: Int, to end: Int) {
        defer { index += 1 }
        // A search for transfers passes over a payment without reading it: an item with no
        // escape anywhere that does not spell INTERNAL_TRANSFER cannot be one.
        if case .transfersOut = keeping, !FeedDecoder.mayBeATransfer(buffer, from: start, to: end) { return }
        let fast: FeedItem? = buffer.withUnsafeBufferPointer { bytes in
            var cursor = JSONCursor(UnsafeBufferPointer(rebasing: bytes[start..<end]))
            return cursor.feedItem(requireEnd: true, categories: &categories)
        }
        if let fast {
            accept(fast)
            return
        }
        // The strict parser left it to JSONDecoder: an escape, non-ASCII text, a field of
        // another type, an unusual number, or invalid JSON.
        let slice = Array(buffer[start..<end])
        do {
            accept(try JSONDecoder().decode(FeedItem.self, from: Data(slice)))
        } catch {
            if (try? JSONSerialization.jsonObject(with: Data(slice), options: [.fragmentsAllowed])) == nil {
                syntaxError = true
            } else if decodeError == nil {
                decodeError = describe(error, body: slice, under: [FeedItemsKey.items, FeedItemsKey(intValue: index)])
            }
        }
    }

    /// An element of `feedItems` that is not an object: JSONDecoder's words for it, if the
    /// element is valid JSON at all.
    private func notAnItem(from start: Int, to end: Int) {
        defer { index += 1 }
        guard isValidJSON(from: start, to: end) else {
            syntaxError = true
            return
        }
        if decodeError == nil {
            let isNull = end - start == 4 && buffer[start] == UInt8(ascii: "n")
            decodeError = "feedItems[\(index)] " + (isNull ? "is null, expected an object" : "is not an object")
        }
    }

    private static let transferSource = Array("INTERNAL_TRANSFER".utf8)

    /// Whether `bytes[start..<end]` holds a backslash or spells `INTERNAL_TRANSFER`.
    static func mayBeATransfer(_ bytes: [UInt8], from start: Int, to end: Int) -> Bool {
        guard start < end else { return false }
        return bytes.withUnsafeBufferPointer { all in
            let base = all.baseAddress! + start
            if memchr(base, Int32(backslash), end - start) != nil { return true }
            return transferSource.withUnsafeBufferPointer { needle in
                var at = UnsafeRawPointer(base)
                let stop = UnsafeRawPointer(base + (end - start))
                while stop - at >= needle.count, let found = memchr(at, Int32(needle[0]), stop - at) {
                    let candidate = UnsafeRawPointer(found)
                    if stop - candidate >= needle.count, memcmp(candidate, needle.baseAddress!, needle.count) == 0 {
                        return true
                    }
                    at = candidate + 1
                }
                return false
            }
        }
    }

    private func accept(_ item: FeedItem) {
        guard decodeError == nil, conversionError == nil else { return }
        if case .transfersOut = keeping {
            if item.direction == "OUT", item.source == "INTERNAL_TRANSFER" { transfers.append(item) }
            return
        }
        do throws(BankError) {
            transactions.append(try item.transaction())
        } catch {
            conversionError = error
        }
    }

    /// A body that is not `{"feedItems":[…` at its top: decoded whole, as before streaming.
    private func decodeWhole(endpoint: String) throws(BankError) {
        let list: FeedItemList
        do {
            list = try JSONDecoder().decode(FeedItemList.self, from: Data(buffer))
        } catch {
            throw .malformedResponse(endpoint: endpoint, detail: describe(error, body: buffer))
        }
        buffer = []
        transactions = []
        transfers = []
        for item in list.feedItems {
            if case .transfersOut = keeping {
                accept(item)
                continue
            }
            do throws(BankError) {
                transactions.append(try item.transaction())
            } catch {
                conversionError = error
                return
            }
        }
    }
}
