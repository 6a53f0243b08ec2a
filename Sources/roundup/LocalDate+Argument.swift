public import ArgumentParser
public import RoundUp

extension LocalDate: ExpressibleByArgument {
    /// A date on the command line: `YYYY-MM-DD`, a real calendar day.
    public init?(argument: String) { self.init(iso: argument) }

    /// The years a date on the command line may be in: anything else is a typing mistake.
    static let arguableYears = 2000...2100

    /// A date on the command line, or what is wrong with it in words: not `YYYY-MM-DD`,
    /// a day that does not exist, or a year out of `arguableYears`.
    static func fromArgument(_ text: String) throws -> LocalDate {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.map(\.count) == [4, 2, 2], let year = Int(parts[0]), let month = Int(parts[1]),
            let day = Int(parts[2]), parts.joined().allSatisfy(\.isASCII)
        else { throw ValidationError("write the date as YYYY-MM-DD, for example 2026-11-15") }
        guard (1...12).contains(month) else { throw ValidationError("there is no month \(parts[1])") }
        guard arguableYears.contains(year) else {
            throw ValidationError(
                "the year must be from \(arguableYears.lowerBound) to \(arguableYears.upperBound), not \(parts[0])")
        }
        guard let date = LocalDate(year: year, month: month, day: day) else {
            let days = LocalDate.daysIn(month: month, year: year)
            throw ValidationError("that day does not exist: \(parts[0])-\(parts[1]) has \(days) days")
        }
        return date
    }
}
