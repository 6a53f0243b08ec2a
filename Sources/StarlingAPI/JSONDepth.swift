/// How deeply a JSON text nests its arrays and objects, measured without parsing it, so
/// that a body refused for its depth is called that rather than "not valid JSON".
enum JSONDepth {
    /// The deepest nesting the decoders follow; deeper is refused, never retried.
    static let limit = 256

    /// Whether `bytes` nest arrays and objects more than `limit` deep (strings skipped).
    static func exceedsLimit(_ bytes: some Sequence<UInt8>) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                depth += 1
                if depth > limit { return true }
            } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                depth -= 1
            }
        }
        return false
    }
}
