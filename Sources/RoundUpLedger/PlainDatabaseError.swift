package import GRDB
import RoundUpOutput

/// SQLite's own words for what went wrong ("attempt to write a readonly database"), never
/// an SQL statement, for `plainDescription`.
extension DatabaseError: PlainlyWorded {
    package var plainWords: String { message ?? "SQLite error \(resultCode.rawValue)" }
}
