/// The identifier of the one transfer an (account, goal, week) may ever make.
///
/// It is a name-based UUID (version 5, SHA-1), so every run, rerun or retry for the same
/// week computes the same identifier, and the bank's add-money endpoint, which is keyed on
/// it, can tell a repeat from a new transfer.
public enum TransferUID {
    /// The namespace of roundup's transfer identifiers.
    static let namespace: [UInt8] = [
        0x6b, 0x2e, 0x0f, 0x4c, 0x91, 0x3a, 0x4d, 0x57, 0xa8, 0x1e, 0x52, 0xc0, 0x7d, 0x93, 0x1f, 0x64,
    ]

    /// The transfer uid for moving `week`'s round-up of `accountUid` into `goalUid`: for the
    /// week's first leg (`leg` 0), from the account, the goal and the week alone, as for a
    /// week of one goal; a later leg's names its index too, so no two legs of a week share
    /// one, whatever goals they go to.
    public static func transferUid(accountUid: String, goalUid: String, weekEnd: LocalDate, leg: Int = 0) -> String {
        let name = "roundup/1 \(accountUid.lowercased()) \(goalUid.lowercased()) \(weekEnd)"
        return uuidV5(namespace: namespace, name: leg == 0 ? name : "\(name) leg \(leg)")
    }

    /// RFC 9562 version-5 UUID of `name` in `namespace`, lower-case and hyphenated.
    public static func uuidV5(namespace: [UInt8], name: String) -> String {
        var bytes = Array(SHA1.digest(namespace + Array(name.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]]
            .map { $0.joined() }.joined(separator: "-")
    }
}

/// SHA-1, used only to derive name-based UUIDs (RFC 9562 section 5.5), not for security.
enum SHA1 {
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var data = message
        let bitLength = UInt64(message.count) * 8
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            data.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        var w = [UInt32](repeating: 0, count: 80)
        for chunk in stride(from: 0, to: data.count, by: 64) {
            for i in 0..<16 {
                let b = chunk + i * 4
                w[i] =
                    UInt32(data[b]) << 24 | UInt32(data[b + 1]) << 16 | UInt32(data[b + 2]) << 8 | UInt32(data[b + 3])
            }
            for i in 16..<80 {
                let x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]
                w[i] = x << 1 | x >> 31
            }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32) =
                    switch i {
                    case 0..<20: ((b & c) | (~b & d), 0x5A82_7999)
                    case 20..<40: (b ^ c ^ d, 0x6ED9_EBA1)
                    case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                    default: (b ^ c ^ d, 0xCA62_C1D6)
                    }
                let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, b << 30 | b >> 2, a, temp)
            }
            h[0] = h[0] &+ a
            h[1] = h[1] &+ b
            h[2] = h[2] &+ c
            h[3] = h[3] &+ d
            h[4] = h[4] &+ e
        }
        return h.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - $0 * 8)) } }
    }
}
