import Foundation
import GRDB

/// An error as a person reads it: the system's reason, with the file it concerns
/// ("Permission denied: /var/lib/roundup/reports"), or the database's own words ("attempt
/// to write a readonly database"); never a type name, an error number or an SQL statement.
public func plainDescription(_ error: any Error) -> String {
    if let database = error as? DatabaseError {
        return database.message ?? "SQLite error \(database.resultCode.rawValue)"
    }
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
