public import Foundation

/// An exact amount of one currency, held as integer minor units.
public struct Money: Hashable, Sendable, CustomStringConvertible {
    /// The amount in minor units (pence for GBP, yen for JPY, fils for KWD).
    public let minorUnits: Int64
    /// The currency the amount is in.
    public let currency: Currency

    public init(minorUnits: Int64, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// The exact money for a `Decimal` amount in major units. Fails when the amount has
    /// more decimal places than the currency allows, or does not fit in 64-bit minor units.
    public init(amount: Decimal, currency: Currency) throws(MoneyError) {
        var scaled = amount * Money.powerOfTen(currency.exponent)
        var whole = Decimal()
        NSDecimalRound(&whole, &scaled, 0, .plain)
        guard whole == scaled else { throw .tooPrecise(amount: amount, currency: currency.code) }
        guard whole <= Money.largest, whole >= Money.smallest else { throw .overflow(currency: currency.code) }
        // A whole number within Int64's range: NSDecimalNumber converts it exactly.
        self.init(minorUnits: NSDecimalNumber(decimal: whole).int64Value, currency: currency)
    }

    /// `minorUnits` of the currency `code` in words: `2.98 GBP`, or, for a code the job
    /// cannot place, `298 minor units of XYZ`.
    public static func describe(minorUnits: Int64, code: String) -> String {
        Currency(code: code).map { Money(minorUnits: minorUnits, currency: $0).description }
            ?? "\(minorUnits) minor units of \(code)"
    }

    private static let largest = Decimal(Int64.max)
    private static let smallest = Decimal(Int64.min)

    /// The amount in major units, exact.
    public var amount: Decimal {
        Decimal(
            sign: minorUnits < 0 ? .minus : .plus, exponent: -currency.exponent,
            significand: Decimal(minorUnits.magnitude))
    }

    /// The amount in major units with exactly the currency's decimals: `6.07`, `1200`, `0.125`.
    public var formattedAmount: String {
        let exponent = currency.exponent
        let magnitude = minorUnits.magnitude
        let sign = minorUnits < 0 ? "-" : ""
        guard exponent > 0 else { return sign + String(magnitude) }
        let unit = UInt64(Money.integerPowerOfTen(exponent))
        let fraction = String(magnitude % unit)
        let padded = String(repeating: "0", count: exponent - fraction.count) + fraction
        return "\(sign)\(magnitude / unit).\(padded)"
    }

    /// `6.07 GBP`.
    public var description: String { "\(formattedAmount) \(currency.code)" }

    static func powerOfTen(_ exponent: Int) -> Decimal {
        Decimal(sign: .plus, exponent: exponent, significand: 1)
    }

    static func integerPowerOfTen(_ exponent: Int) -> Int64 {
        var value: Int64 = 1
        for _ in 0..<exponent { value *= 10 }
        return value
    }
}

/// Why an amount could not be held as exact money.
public enum MoneyError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooPrecise(amount: Decimal, currency: String)
    case overflow(currency: String)

    public var description: String {
        switch self {
        case .tooPrecise(let amount, let currency):
            "\(amount) has more decimal places than \(currency) allows"
        case .overflow(let currency):
            "the amount in \(currency) is too large to hold in minor units"
        }
    }
}

/// The round-up arithmetic, in `Decimal` major units.
public enum RoundUpArithmetic {
    /// The next multiple of `step` whole units minus `amount` (`step` 1: the next whole
    /// unit); an amount already a multiple gives 0, or a whole step when `wholeSavesAUnit`
    /// (zero still gives 0). `amount` is not negative (the bank's feed amounts never are; the
    /// sign is the direction). Exact: dividing a decimal by 1, 2, 5 or 10 leaves no remainder
    /// to round.
    public static func roundUp(of amount: Decimal, step: Int = 1, wholeSavesAUnit: Bool = false) -> Decimal {
        let stepValue = Decimal(step)
        // Dividing and multiplying a Decimal is slow; a step of 1, the usual one, needs neither.
        var steps = step == 1 ? amount : amount / stepValue
        var ceiling = Decimal()
        NSDecimalRound(&ceiling, &steps, 0, .up)
        let difference = (step == 1 ? ceiling : ceiling * stepValue) - amount
        return difference == 0 && wholeSavesAUnit && amount > 0 ? stepValue : difference
    }
}
