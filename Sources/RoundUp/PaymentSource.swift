/// Where a payment came from, in the saver's words, read off the feed item's `source` (and
/// its `sourceSubType`): what the reports show beside each payment. The bank's feed does not
/// tell a standing order from another transfer it sent, so both are a "bank transfer".
public enum PaymentSource: String, Sendable, CaseIterable {
    case card
    case cashWithdrawal = "cash withdrawal"
    case directDebit = "direct debit"
    case bankTransfer = "bank transfer"
    case ownTransfer = "transfer between your accounts"
    case cheque
    case cash = "cash deposit"
    case fee = "bank fee"
    case interest
    case loan = "loan payment"
    case tax
    /// A source the bank has added since, or none given.
    case other

    /// The source of a feed item with `source` and `sourceSubType` as the bank wrote them.
    public init(source: String?, subType: String?) {
        switch source ?? "" {
        case "MASTER_CARD", "MASTERCARD_MONEYSEND", "MASTERCARD_CHARGEBACK":
            self = subType == "ATM" ? .cashWithdrawal : .card
        case "CASH_WITHDRAWAL": self = .cashWithdrawal
        case "DIRECT_DEBIT", "DIRECT_DEBIT_DISPUTE", "SEPA_DIRECT_DEBIT": self = .directDebit
        case "FASTER_PAYMENTS_OUT", "FASTER_PAYMENTS_IN", "FASTER_PAYMENTS_REVERSAL", "FASTER_PAYMENTS_REFUND", "CHAPS",
            "SEPA_CREDIT_TRANSFER", "TARGET2_CUSTOMER_PAYMENT", "DIRECT_CREDIT", "STARLING_PAYMENT", "ON_US_PAY_ME",
            "ISS_PAYMENT", "STRIPE_FUNDING", "STARLING_PAY_STRIPE", "CURRENCY_CLOUD", "NOSTRO_DEPOSIT":
            self = .bankTransfer
        case "INTERNAL_TRANSFER", "FX_TRANSFER": self = .ownTransfer
        case "CHEQUE", "CICS_CHEQUE": self = .cheque
        case "CASH_DEPOSIT": self = .cash
        case "CARD_FEE_CHARGE", "CASH_WITHDRAWAL_CHARGE", "CASH_DEPOSIT_CHARGE", "MISSED_PAYMENT_FEE", "OVERDRAFT_FEE",
            "SUBSCRIPTION_CHARGE", "BRITISH_BUSINESS_BANK_FEES", "ERRORS_AND_OMISSIONS":
            self = .fee
        case "INTEREST_PAYMENT", "INTEREST_V2_PAYMENT", "OVERDRAFT", "OVERDRAFT_INTEREST_WAIVED",
            "LOAN_INTEREST_CHARGE":
            self = .interest
        case "LOAN_PRINCIPAL_PAYMENT", "LOAN_REPAYMENT", "LOAN_OVERPAYMENT", "LOAN_LATE_PAYMENT", "LOAN_FEE_PAYMENT":
            self = .loan
        case "WITHHELD_TAX": self = .tax
        case let other where other.hasSuffix("_CARD"):
            // Another card network's, as the selection rule reads it.
            self = subType == "ATM" ? .cashWithdrawal : .card
        default: self = .other
        }
    }
}

extension Transaction {
    /// Where it came from, in the saver's words.
    public var paymentSource: PaymentSource { PaymentSource(source: source, subType: sourceSubType) }
}
