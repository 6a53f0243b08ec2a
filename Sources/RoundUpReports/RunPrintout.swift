/// What `roundup run` prints on standard output: each week's summary dressed in a style,
/// or the weeks' reports as JSON. The program's root chooses the form; the run hands it
/// each week as the week ends and takes the text once all are done, so that how a run is
/// shown never reaches the job's decisions.
public struct RunPrintout: Sendable {
    public enum Form: Sendable, Equatable {
        /// Each week's table and sentences (`WeekReport.summary`), in `style`.
        case summaries(TextStyle)
        /// The report as JSON: an array of the weeks' reports when `array`, else the
        /// first week's report alone.
        case json(array: Bool)
    }

    public let form: Form
    private var summaries: [String] = []
    /// Kept for JSON only: a busy week's report is large.
    private var reports: [WeekReport] = []

    public init(_ form: Form) { self.form = form }

    /// Adds a finished week: its report, where it was written, and, for a week whose
    /// report stayed as an earlier run left it, the sentence that says so.
    package mutating func add(_ report: WeekReport, reportPath: String?, unchangedNote: String?) {
        switch form {
        case .json:
            reports.append(report)
        case .summaries(let style):
            var summary = report.summary(reportPath: reportPath, style: style)
            if let unchangedNote { summary += style.dim(unchangedNote) + "\n" }
            summaries.append(summary)
        }
    }

    /// The text for standard output, ending with `savingsNews` for summaries when given.
    package func text(savingsNews: String?) -> String {
        switch form {
        case .json(let array):
            let bytes = array ? ReportJSON.encode(reports) : reports.first.map(ReportJSON.encode) ?? []
            return bytes.isEmpty ? "" : String(decoding: bytes, as: UTF8.self) + "\n"
        case .summaries:
            var text = summaries.joined(separator: "\n")
            if let savingsNews { text += "\n\(savingsNews)\n" }
            return text
        }
    }
}
