import GRDB
import RoundUp

/// Reading a ledger row column by column, strictly: text must be stored as text and a
/// number as a whole number, or the row is the ledger's damage, named by its table,
/// column and value. Never a crash, and never a guess (1.5 read as 1, bytes read as text):
/// the ledger is a file anyone with the account's login can edit with `sqlite3`.
struct LedgerRow {
    let row: Row
    let table: String

    /// `column`'s text, or nil when NULL.
    func text(_ column: some ColumnExpression) throws -> String? {
        switch stored(column).storage {
        case .null: return nil
        case .string(let text): return text
        default: throw corrupt(column)
        }
    }

    /// `column`'s text; NULL is damage too.
    func requiredText(_ column: some ColumnExpression) throws -> String {
        guard let text = try text(column) else { throw corrupt(column) }
        return text
    }

    /// `column`'s whole number, or nil when NULL.
    func integer(_ column: some ColumnExpression) throws -> Int64? {
        switch stored(column).storage {
        case .null: return nil
        case .int64(let number): return number
        default: throw corrupt(column)
        }
    }

    /// `column`'s whole number; NULL is damage too.
    func requiredInteger(_ column: some ColumnExpression) throws -> Int64 {
        guard let number = try integer(column) else { throw corrupt(column) }
        return number
    }

    /// `column`'s count: a whole number that fits an `Int`, not NULL.
    func count(_ column: some ColumnExpression) throws -> Int {
        guard let count = Int(exactly: try requiredInteger(column)) else { throw corrupt(column) }
        return count
    }

    /// An integer that must fit in 32 bits, such as an exit code, or nil when NULL.
    func int32(_ column: some ColumnExpression) throws -> Int32? {
        guard let wide = try integer(column) else { return nil }
        guard let narrow = Int32(exactly: wide) else { throw corrupt(column) }
        return narrow
    }

    /// A flag stored as 0 or 1.
    func flag(_ column: some ColumnExpression) throws -> Bool {
        switch try requiredInteger(column) {
        case 0: return false
        case 1: return true
        default: throw corrupt(column)
        }
    }

    /// `column`'s text read by `parse`, or nil when NULL.
    func parsed<Value>(_ column: some ColumnExpression, _ parse: (String) -> Value?) throws -> Value? {
        guard let text = try text(column) else { return nil }
        guard let value = parse(text) else { throw corrupt(column) }
        return value
    }

    /// `column`'s text read by `parse`; NULL is damage too.
    func required<Value>(_ column: some ColumnExpression, _ parse: (String) -> Value?) throws -> Value {
        guard let value = try parsed(column, parse) else { throw corrupt(column) }
        return value
    }

    private func stored(_ column: some ColumnExpression) -> DatabaseValue { row[column.name] }

    private func corrupt(_ column: some ColumnExpression) -> LedgerError {
        .corrupt("\(table).\(column.name) value \(LedgerRow.describe(stored(column)))")
    }

    /// A stored value as it reads in an error: quoted text, cut short and without control
    /// characters; numbers as stored.
    static func describe(_ stored: DatabaseValue) -> String {
        switch stored.storage {
        case .null: "NULL"
        case .int64(let number): "\(number)"
        case .double(let number): "\(number)"
        case .string(let text):
            "'\(printable(String(String.UnicodeScalarView(text.unicodeScalars.prefix(60)))))'"
        case .blob(let data): "a blob of \(data.count) bytes"
        }
    }

    init(row: Row, table: String) {
        self.row = row
        self.table = table
    }
}
