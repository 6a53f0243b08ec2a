import Foundation
package import RoundUp
package import RoundUpHost
import RoundUpLedger
import RoundUpOutput
package import RoundUpVocabulary
import StarlingAPI

/// Why one account's week did not complete.
package struct AccountFailure: Error {
    package let status: ExitStatus
    package let message: String
    /// The week waits for a person: the job could not tell what to do without guessing.
    package var held = false
    /// Why, for a held week (without the advice `message` adds).
    package var reason = ""
    /// For a week held because its goal did not become active: that goal.
    package var goal: GoalChoice?
    /// For a week into several goals held because one did not become active: every goal of
    /// the week, in order, so that the week is divided and recorded as held all the same.
    package var goals: [GoalChoice]?

    package init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The week is held for a person, for `reason`.
    package static func held(_ reason: String, goal: GoalChoice? = nil) -> AccountFailure {
        var failure = AccountFailure(.configuration, heldForAPerson(reason))
        failure.held = true
        failure.reason = reason
        failure.goal = goal
        return failure
    }

    /// What a week held for `reason` says, wherever it is reported.
    package static func heldForAPerson(_ reason: String) -> String {
        "held for a person: \(reason); `roundup resolve` lists it and settles it"
    }

    /// `body`'s result or failure, as a value (for `async let`, which keeps no typed throw).
    package static func result<T: Sendable>(_ body: () async throws(AccountFailure) -> T) async -> Result<
        T, AccountFailure
    > {
        do throws(AccountFailure) {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    /// `body`'s reading of the ledger. A damaged ledger (a row this code never writes) needs
    /// a person: 78, not a failure a scheduler would retry for ever. Anything else (a busy
    /// or unreadable file) may pass: 75.
    package static func ledgerRead<T>(_ body: () throws -> T) throws(AccountFailure) -> T {
        do {
            return try body()
        } catch let error as LedgerError {
            throw AccountFailure(.configuration, "the ledger is damaged: \(error.description); nothing was moved")
        } catch {
            throw AccountFailure(
                .temporaryFailure, "could not read the ledger: \(plainDescription(error)); nothing was moved")
        }
    }

    /// Runs a ledger write; a failure means nothing was moved.
    package static func ledgerWrite(_ what: String, _ body: () throws -> Void) throws(AccountFailure) {
        do {
            try body()
        } catch {
            throw AccountFailure(
                .temporaryFailure, "could not \(what) in the ledger (\(plainDescription(error))); nothing was moved")
        }
    }
}

extension AccountLock {
    /// The lock on `account` of the bank at `baseURL` for this machine, waiting up to `lockWaitSeconds`
    /// for another roundup process that works on it. Still held after that, the account is
    /// skipped (75) naming the holder; once taken, the feed is read first, as always, and
    /// shows what the other process moved.
    package static func hold(_ account: Account, at baseURL: String, waiting accountLockWait: Duration)
        async throws(AccountFailure)
        -> AccountLock
    {
        let name = AccountLock.name(baseURL: baseURL, accountUid: account.uid)
        let outcome: Result<AccountLock, AccountLock.Holder>
        do {
            outcome = try await acquire(name, wait: accountLockWait)
        } catch {
            throw AccountFailure(.configuration, "\(plainDescription(error)); nothing was moved")
        }
        switch outcome {
        case .success(let lock): return lock
        case .failure(let holder):
            throw AccountFailure(
                .temporaryFailure,
                "this account's lock is held by \(holder), and still was after "
                    + "\(accountLockWait.inSeconds) (lockWaitSeconds); nothing was moved, and the next run looks at "
                    + "the feed first")
        }
    }
}
