/// An ISO 4217 currency the job can place: its code and its exponent, the number of
/// decimal places between minor and major units (GBP 2, JPY 0, KWD 3).
public struct Currency: Hashable, Sendable, CustomStringConvertible {
    /// The three-letter ISO 4217 code.
    public let code: String
    /// Decimal places between minor and major units.
    public let exponent: Int

    /// The currency with this ISO 4217 code, or nil when the code is unknown or names
    /// something without minor units (gold, SDRs, the test code XXX).
    public init?(code: String) {
        guard let exponent = Currency.exponents[code] else { return nil }
        self.code = code
        self.exponent = exponent
    }

    public var description: String { code }

    /// Active and recently withdrawn ISO 4217 codes with their exponents. Codes whose
    /// exponent ISO gives as "N.A." are left out on purpose: there is no whole unit to
    /// round up to.
    static let exponents: [String: Int] = {
        var table: [String: Int] = [:]
        let zero = "BIF BYR CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF"
        let three = "BHD IQD JOD KWD LYD OMR TND"
        let four = "CLF UYW"
        let two = """
            AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN
            BWP BYN BZD CAD CDF CHE CHF CHW CNY COP COU CRC CUC CUP CVE CZK DKK DOP DZD EGP ERN
            ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IRR JMD
            KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL LTL MAD MDL MGA MKD MMK MNT MOP MRO MRU
            MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON
            RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STD STN SVC SYP SZL THB TJS
            TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VEF VES WST XCD XCG YER ZAR ZMW ZWG
            ZWL
            """
        for (codes, exponent) in [(zero, 0), (two, 2), (three, 3), (four, 4)] {
            for code in codes.split(whereSeparator: \.isWhitespace) {
                table[String(code)] = exponent
            }
        }
        return table
    }()
}
