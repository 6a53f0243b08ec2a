import Foundation
import PropertyBased
import Testing

@testable import RoundUp

@Suite struct CurrencyTests {
    @Test func exponentsFollowISO4217() {
        #expect(Currency(code: "GBP")?.exponent == 2)
        #expect(Currency(code: "EUR")?.exponent == 2)
        #expect(Currency(code: "USD")?.exponent == 2)
        #expect(Currency(code: "JPY")?.exponent == 0)
        #expect(Currency(code: "KRW")?.exponent == 0)
        for code in ["KWD", "BHD", "OMR", "TND", "JOD", "IQD", "LYD"] {
            #expect(Currency(code: code)?.exponent == 3, "\(code)")
        }
        #expect(Currency(code: "CLF")?.exponent == 4)
    }

    @Test(arguments: ["XXX", "XAU", "UNDEFINED", "gbp", "", "GB", "ABC"])
    func codesWithoutMinorUnitsCannotBePlaced(code: String) {
        #expect(Currency(code: code) == nil)
    }
}

@Suite struct MoneyTests {
    let gbp = Currency(code: "GBP")!
    let jpy = Currency(code: "JPY")!
    let kwd = Currency(code: "KWD")!

    @Test func formatsWithTheCurrencysOwnDecimals() {
        #expect(Money(minorUnits: 607, currency: gbp).description == "6.07 GBP")
        #expect(Money(minorUnits: 5, currency: gbp).formattedAmount == "0.05")
        #expect(Money(minorUnits: 600, currency: gbp).formattedAmount == "6.00")
        #expect(Money(minorUnits: 1200, currency: jpy).formattedAmount == "1200")
        #expect(Money(minorUnits: 125, currency: kwd).formattedAmount == "0.125")
        #expect(Money(minorUnits: Int64.max, currency: gbp).formattedAmount == "92233720368547758.07")
    }

    @Test func convertsExactDecimalAmounts() throws {
        #expect(try Money(amount: Decimal(string: "6.07")!, currency: gbp).minorUnits == 607)
        #expect(try Money(amount: Decimal(string: "0.125")!, currency: kwd).minorUnits == 125)
        #expect(try Money(amount: Decimal(1200), currency: jpy).minorUnits == 1200)
    }

    @Test func refusesAmountsItCannotHoldExactly() {
        #expect(throws: MoneyError.tooPrecise(amount: Decimal(string: "6.075")!, currency: "GBP")) {
            try Money(amount: Decimal(string: "6.075")!, currency: gbp)
        }
        #expect(throws: MoneyError.overflow(currency: "GBP")) {
            try Money(amount: Decimal(string: "92233720368547758.08")!, currency: gbp)
        }
    }

    @Test func theExtremesConvertExactly() throws {
        for minor: Int64 in [Int64.min, Int64.min + 1, -1, 0, 1, Int64.max - 1, Int64.max, 9_007_199_254_740_993] {
            for currency in [gbp, jpy, kwd] {
                let money = Money(minorUnits: minor, currency: currency)
                #expect(try Money(amount: money.amount, currency: currency) == money, "\(minor)")
            }
        }
    }

    @Test func majorUnitsAreExact() async {
        await propertyCheck(count: 500, input: Gen.int64(in: Int64.min...Int64.max), Gen.int(in: 0...3)) {
            minor, pick in
            let currency = [jpy, gbp, kwd, Currency(code: "CLF")!][pick]
            let money = Money(minorUnits: minor, currency: currency)
            let back = try Money(amount: money.amount, currency: currency)
            #expect(back == money)
            #expect(Decimal(string: money.formattedAmount) == money.amount)
        }
    }
}

@Suite struct RoundUpArithmeticTests {
    /// The round-up in minor units, by integer arithmetic alone.
    func integerRoundUp(_ minor: Int64, exponent: Int) -> Int64 {
        let unit = Money.integerPowerOfTen(exponent)
        return (unit - minor % unit) % unit
    }

    @Test func examples() {
        #expect(RoundUpArithmetic.roundUp(of: Decimal(string: "4.35")!) == Decimal(string: "0.65")!)
        #expect(RoundUpArithmetic.roundUp(of: Decimal(string: "5.20")!) == Decimal(string: "0.80")!)
        #expect(RoundUpArithmetic.roundUp(of: Decimal(string: "0.87")!) == Decimal(string: "0.13")!)
        #expect(RoundUpArithmetic.roundUp(of: Decimal(string: "45.00")!) == 0)
        #expect(RoundUpArithmetic.roundUp(of: 0) == 0)
        #expect(RoundUpArithmetic.roundUp(of: Decimal(string: "0.001")!) == Decimal(string: "0.999")!)
    }

    @Test func decimalAgreesWithIntegerMinorUnits() async {
        await propertyCheck(count: 2000, input: Gen.int64(in: 0...1_000_000_000_000_000), Gen.int(in: 0...3)) {
            minor, pick in
            let exponent = [0, 2, 3, 4][pick]
            let currency = Currency(code: ["JPY", "GBP", "KWD", "CLF"][pick])!
            let amount = Money(minorUnits: minor, currency: currency).amount
            let roundUp = RoundUpArithmetic.roundUp(of: amount)
            let inMinor = try Money(amount: roundUp, currency: currency).minorUnits
            #expect(inMinor == integerRoundUp(minor, exponent: exponent), "\(minor) at exponent \(exponent)")
        }
    }

    /// `roundTo`: the next multiple of 1, 2, 5 or 10 major units, in every currency's own
    /// decimals, against integer arithmetic on minor units; a multiple saves nothing, or a
    /// whole step when asked.
    @Test func roundingToAStepAgreesWithIntegerMinorUnits() async {
        await propertyCheck(
            count: 2000, input: Gen.int64(in: 0...1_000_000_000_000), Gen.int(in: 0...3), Gen.int(in: 0...3),
            Gen.bool
        ) { minor, pick, stepPick, whole in
            let exponent = [0, 2, 3, 4][pick]
            let currency = Currency(code: ["JPY", "GBP", "KWD", "CLF"][pick])!
            let step = RoundUpPolicy.steps[stepPick]
            let amount = Money(minorUnits: minor, currency: currency).amount
            let roundUp = RoundUpArithmetic.roundUp(of: amount, step: step, wholeSavesAUnit: whole)
            let inMinor = try Money(amount: roundUp, currency: currency).minorUnits
            let stepMinor = Int64(step) * Money.integerPowerOfTen(exponent)
            var expected = (stepMinor - minor % stepMinor) % stepMinor
            if expected == 0 && whole && minor > 0 { expected = stepMinor }
            #expect(inMinor == expected, "\(minor) at exponent \(exponent), step \(step), whole \(whole)")
        }
    }

    @Test func roundingToFiveExamples() {
        let five = { (text: String) in RoundUpArithmetic.roundUp(of: Decimal(string: text)!, step: 5) }
        #expect(five("3.20") == Decimal(string: "1.80")!, "£3.20 saves £1.80")
        #expect(five("10.00") == 0)
        #expect(RoundUpArithmetic.roundUp(of: 10, step: 5, wholeSavesAUnit: true) == 5, "a whole step")
        #expect(five("1203") == 2, "yen")
        #expect(five("3.200") == Decimal(string: "1.800")!, "dinars")
        #expect(RoundUpArithmetic.roundUp(of: Decimal(string: "12.01")!, step: 10) == Decimal(string: "7.99")!)
        #expect(throws: PolicyError.roundToNotAStep(3)) { try RoundUpPolicy(roundTo: 3) }
    }

    @Test func smallAmountsNearWholeUnits() async {
        await propertyCheck(count: 2000, input: Gen.int64(in: 0...100_000)) { minor in
            let gbp = Currency(code: "GBP")!
            let roundUp = RoundUpArithmetic.roundUp(of: Money(minorUnits: minor, currency: gbp).amount)
            let inMinor = try Money(amount: roundUp, currency: gbp).minorUnits
            #expect(inMinor == integerRoundUp(minor, exponent: 2))
        }
    }

    @Test func aWholeAmountSavesAFullUnitOnlyWhenAskedAndZeroNever() {
        #expect(RoundUpArithmetic.roundUp(of: Decimal(string: "45.00")!, wholeSavesAUnit: true) == 1)
        #expect(RoundUpArithmetic.roundUp(of: Decimal(1200), wholeSavesAUnit: true) == 1, "every yen amount is whole")
        #expect(RoundUpArithmetic.roundUp(of: 0, wholeSavesAUnit: true) == 0)
        #expect(
            RoundUpArithmetic.roundUp(of: Decimal(string: "4.35")!, wholeSavesAUnit: true) == Decimal(string: "0.65")!)
    }

    @Test func wholeAmountsAgreeWithIntegerMinorUnits() async {
        await propertyCheck(count: 1000, input: Gen.int64(in: 0...1_000_000_000), Gen.int(in: 0...3)) { minor, pick in
            let exponent = [0, 2, 3, 4][pick]
            let currency = Currency(code: ["JPY", "GBP", "KWD", "CLF"][pick])!
            let unit = Money.integerPowerOfTen(exponent)
            let roundUp = RoundUpArithmetic.roundUp(
                of: Money(minorUnits: minor, currency: currency).amount, wholeSavesAUnit: true)
            let expected = minor > 0 && minor % unit == 0 ? unit : integerRoundUp(minor, exponent: exponent)
            let inMinor = try Money(amount: roundUp, currency: currency).minorUnits
            #expect(inMinor == expected)
        }
    }
}

@Suite struct MinimumBalanceTests {
    let gbp = Currency(code: "GBP")!
    func money(_ minor: Int64) -> Money { Money(minorUnits: minor, currency: gbp) }

    @Test func examples() {
        let reduce = MinimumBalance(minimum: money(100_00), whenBelow: .reduce)
        let skip = MinimumBalance(minimum: money(100_00), whenBelow: .skip)
        // Plenty of room: everything moves.
        #expect(reduce.apply(total: money(607), balance: money(500_00)) == (money(607), money(0)))
        // Exactly down to the minimum is allowed.
        #expect(reduce.apply(total: money(607), balance: money(106_07)) == (money(607), money(0)))
        // 2.00 of room: reduce moves 2.00, skip moves nothing.
        #expect(reduce.apply(total: money(607), balance: money(102_00)) == (money(200), money(407)))
        #expect(skip.apply(total: money(607), balance: money(102_00)) == (money(0), money(607)))
        // At, below or far below the minimum, and overdrawn: nothing moves.
        for balance: Int64 in [100_00, 50_00, -2_000_00, Int64.min] {
            #expect(reduce.apply(total: money(607), balance: money(balance)) == (money(0), money(607)))
        }
        #expect(reduce.apply(total: money(607), balance: money(Int64.max)) == (money(607), money(0)))
    }

    @Test func neverCutsIntoTheMinimumAndNeverMovesMoreThanTheTotal() async {
        await propertyCheck(
            count: 2000, input: Gen.int64(in: 0...1_000_00), Gen.int64(in: -1_000_00...1_000_00),
            Gen.int64(in: -50_00...1_000_00), Gen.bool
        ) { total, balance, minimum, skips in
            let rule = MinimumBalance(minimum: money(minimum), whenBelow: skips ? .skip : .reduce)
            let (move, heldBack) = rule.apply(total: money(total), balance: money(balance))
            #expect(move.minorUnits + heldBack.minorUnits == total)
            #expect(move.minorUnits >= 0 && move.minorUnits <= total)
            if move.minorUnits > 0 { #expect(balance - move.minorUnits >= minimum) }
            if balance - total >= minimum { #expect(move.minorUnits == total, "room enough: all of it") }
            if skips { #expect(move.minorUnits == 0 || move.minorUnits == total) }
            if !skips, balance - total < minimum { #expect(move.minorUnits == max(0, balance - minimum)) }
        }
    }
}
