import GRDB
public import RoundUp

/// The requests real runs sent to the bank per UTC day, for the daily allowance: the
/// `requests` table, a row per day for the last 31 days.
extension Ledger {
    /// Requests real runs with this ledger sent to the bank on `day` (a UTC date).
    public func requests(on day: LocalDate) throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT count FROM requests WHERE day = ?", arguments: [day.description]) ?? 0
        }
    }

    /// What the newest week a real run did cost in requests, if any run has counted one.
    public func lastWeekCost() throws -> Int? {
        try database.read { db in
            try Int.fetchOne(
                db, sql: "SELECT lastWeekCost FROM requests WHERE lastWeekCost IS NOT NULL ORDER BY day DESC LIMIT 1")
        }
    }

    /// Adds `count` requests, the cost of one week, to `day`'s; days more than 31 days
    /// before it are forgotten.
    public func addRequests(_ count: Int, on day: LocalDate) throws {
        guard count > 0 else { return }
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO requests (day, count, lastWeekCost) VALUES (?, ?, ?)
                    ON CONFLICT (day) DO UPDATE SET count = count + excluded.count, lastWeekCost = excluded.lastWeekCost
                    """, arguments: [day.description, count, count])
            try db.execute(sql: "DELETE FROM requests WHERE day < ?", arguments: [day.adding(days: -31).description])
        }
    }
}
