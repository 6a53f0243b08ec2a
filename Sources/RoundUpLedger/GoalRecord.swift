import GRDB
package import RoundUp
package import RoundUpVocabulary

extension Ledger {
    /// Records what each goal in `goals` (by uid) holds and its target, as a real run last
    /// learnt them: the savings chart shows them in runs that do not ask the bank.
    package func record(goals: [String: GoalProgress], at time: Instant) throws {
        guard !goals.isEmpty else { return }
        try database.write { db in
            for (uid, goal) in goals {
                try db.execute(
                    sql: """
                        INSERT INTO goal (goalUid, name, currency, saved, target, updatedAt) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT (goalUid) DO UPDATE SET name = excluded.name, currency = excluded.currency,
                            saved = excluded.saved, target = excluded.target, updatedAt = excluded.updatedAt
                        """,
                    arguments: [uid, Ledger.clip(goal.name), goal.currency, goal.saved, goal.target, time.iso8601])
            }
        }
    }

    /// Each goal's progress as last recorded, by currency and name.
    package func goals() throws -> [GoalProgress] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT name, currency, saved, target, updatedAt FROM goal ORDER BY currency, name, goalUid"
            )
            .map { row in
                let updatedAt: String = row["updatedAt"]
                return GoalProgress(
                    name: row["name"], currency: row["currency"], saved: row["saved"], target: row["target"],
                    asOf: String(updatedAt.prefix(10)))
            }
        }
    }
}
