import RoundUp
package import RoundUpVocabulary
import StarlingAPI

extension AccountWeek {
    /// When the week was first recorded: for a transfer, before its first request went
    /// out, so a search of the feed for it starts here.
    var recordedAt: Instant? { createdAt.flatMap(Instant.init(iso8601:)) }

    /// The entry's account as text output names it.
    package var label: String { Account.label(name: accountName, uid: accountUid, currencyCode: currency) }

    /// The entry's amount in words.
    package var amountText: String {
        Money.describe(minorUnits: minorUnits, code: currency)
    }

    /// `leg`'s amount in words, in the week's currency.
    package func amountText(of leg: TransferLeg) -> String {
        Money.describe(minorUnits: leg.minorUnits, code: currency)
    }
}
