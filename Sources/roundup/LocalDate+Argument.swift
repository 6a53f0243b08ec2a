public import ArgumentParser
public import RoundUp

extension LocalDate: ExpressibleByArgument {
    /// A date on the command line: `YYYY-MM-DD`, a real calendar day.
    public init?(argument: String) { self.init(iso: argument) }
}
