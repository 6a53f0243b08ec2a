public import StarlingEmulator

/// Makes one random change to `bytes`, the way a fuzzer does: a byte becomes any byte, a
/// range goes or is repeated, one of `tokens` appears, the text is cut short, or the value
/// after a colon is swapped for a token while the text around it stays.
public func mutate(_ bytes: inout [UInt8], tokens: [String], _ random: inout SeededRandom) {
    func position() -> Int { Int(random.next() % UInt64(bytes.count + 1)) }
    func token() -> [UInt8] { Array(tokens[Int(random.next() % UInt64(tokens.count))].utf8) }
    switch random.next() % 6 {
    case 0 where !bytes.isEmpty:
        bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
    case 1 where !bytes.isEmpty:
        let start = Int(random.next() % UInt64(bytes.count))
        bytes.removeSubrange(start..<min(bytes.count, start + 1 + Int(random.next() % 40)))
    case 2:
        bytes.insert(contentsOf: token(), at: position())
    case 3:
        bytes.removeSubrange(position()..<bytes.count)
    case 4 where !bytes.isEmpty:
        let start = Int(random.next() % UInt64(bytes.count))
        let end = min(bytes.count, start + 1 + Int(random.next() % 60))
        bytes.insert(contentsOf: Array(bytes[start..<end]), at: position())
    default:
        let colons = bytes.indices.filter { bytes[$0] == UInt8(ascii: ":") }
        guard !colons.isEmpty else { return }
        let colon = colons[Int(random.next() % UInt64(colons.count))]
        var end = colon + 1
        let stops: Set<UInt8> = [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "\n")]
        while end < bytes.count, !stops.contains(bytes[end]) { end += 1 }
        bytes.replaceSubrange((colon + 1)..<end, with: token())
    }
}
