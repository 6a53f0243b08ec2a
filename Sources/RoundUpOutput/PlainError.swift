import Foundation

/// An error that has plain words of its own for a person: the database's message, say. The
/// module that knows such an error gives it this conformance (the ledger gives SQLite's).
package protocol PlainlyWorded: Error {
    var plainWords: String { get }
}

/// An error as a person reads it: the system's reason, with the file it concerns
/// ("Permission denied: /var/lib/roundup/reports"), or the database's own words ("attempt
/// to write a readonly database"); never a type name, an error number or an SQL statement.
public func plainDescription(_ error: any Error) -> String {
    if let worded = error as? any PlainlyWorded { return worded.plainWords }
    let bridged = error as NSError
    if let inner = bridged.userInfo[NSUnderlyingErrorKey] as? any Error {
        let underlying = inner as NSError
        if underlying.domain == NSPOSIXErrorDomain {
            let path = bridged.userInfo[NSFilePathErrorKey] as? String
            return String(cString: strerror(Int32(underlying.code))) + (path.map { ": \($0)" } ?? "")
        }
    }
    if bridged.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(bridged.code))) }
    return "\(error)"
}
