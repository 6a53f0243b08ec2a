import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes all of `bytes` to `descriptor`, again after a signal cuts a write short; the
/// `errno` of a failed write, or nil. Every file and stream roundup writes goes through it.
public func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    guard let base = bytes.baseAddress else { return nil }
    var written = 0
    while written < bytes.count {
        let result = write(descriptor, base + written, bytes.count - written)
        if result < 0 {
            if errno == EINTR { continue }
            return errno
        }
        // A write that takes nothing would never finish.
        guard result > 0 else { return EIO }
        written += result
    }
    return nil
}

/// Writes all of `text` to `descriptor`; the `errno` of a failed write, or nil.
public func writeAll(_ descriptor: Int32, _ text: String) -> Int32? {
    Array(text.utf8).withUnsafeBytes { writeAll(descriptor, $0) }
}
