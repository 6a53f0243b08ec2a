public import RoundUpHost

/// The scopes of the holder's token that roundup asks for, and which of them a run needs.
public enum TokenScopes {
    /// Scopes every run needs.
    public static let readScopes = ["account:read", "account-list:read", "transaction:read", "savings-goal:read"]
    /// Scopes a real run needs on top of the read scopes.
    public static let writeScopes = ["savings-goal-transfer:create"]
    /// Needed only when a goal has to be created.
    public static let createGoalScope = "savings-goal:create"
    /// Needed when a minimum balance is configured, and under `overdraft: avoid` without `fundsScope`.
    public static let balanceScope = "balance:read"
    /// Under `overdraft: avoid`, for asking the bank whether a transfer would overdraw the account.
    public static let fundsScope = "confirmation-of-funds:read"
    /// Under `saveInto: fill: app`, for the app's order of the account's goals.
    public static let spaceScope = "space:read"

    /// Under `overdraft: avoid`, the scope the token lacks to keep transfers out of
    /// overdraft (it needs `fundsScope` or `balanceScope`), or nil.
    public static func missingOverdraftScope(rules: RuleSettings, scopes: Set<String>) -> String? {
        guard rules.overdraft == .avoid, !scopes.contains(fundsScope), !scopes.contains(balanceScope) else {
            return nil
        }
        return fundsScope
    }

    /// The scopes a run under `rules` cannot do without.
    public static func neededScopes(rules: RuleSettings, dryRun: Bool) -> [String] {
        readScopes + (rules.minimumBalances.isEmpty ? [] : [balanceScope]) + (dryRun ? [] : writeScopes)
    }
}
