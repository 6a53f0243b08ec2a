import Foundation
import RoundUp
import RoundUpOutput
public import RoundUpVocabulary

#if canImport(Glibc)
import Glibc
public import RoundUpHost
#endif

/// Where a command's words go: what it says on standard error, then its output on standard
/// output. By the time a result is shown its ledger is committed, so a failed write loses
/// no money: a reader that went away (a closed pipe) is not a failure, and any other is
/// said on standard error with the system's reason and makes the command end with 74.
public struct Console: Sendable {
    let output: Int32
    let error: Int32

    /// The process's own standard output and standard error.
    public static let standard = Console(output: STDOUT_FILENO, error: STDERR_FILENO)

    /// Says `lines` on standard error, each line of each made printable: a diagnostic may
    /// carry the bank's text.
    public func say(_ lines: [String]) {
        for said in lines {
            let printed = said.split(separator: "\n", omittingEmptySubsequences: false).map { printable(String($0)) }
            _ = writeAll(error, printed.joined(separator: "\n") + "\n")
        }
    }

    /// Shows `result`: its diagnostics, then its output. Returns what was said of standard
    /// output when it could not be written (already said), else nil.
    public func show(_ result: CommandResult) -> Diagnostic? {
        say(result.diagnostics)
        guard let failure = writeAll(output, result.output), failure != EPIPE else { return nil }
        let said = Diagnostic(.failure, "cannot write to standard output: \(String(cString: strerror(failure)))")
        say([said.line])
        return said
    }

    /// `result` once shown: with 74, and the reason said, when its output could not be
    /// written; a status that needs a person (64, 65, 77, 78) stays, so that no schedule
    /// retries what will fail again.
    public func shown(_ result: CommandResult, as printed: CommandResult? = nil) -> CommandResult {
        guard let failure = show(printed ?? result) else { return result }
        var result = result
        if result.status == .ok || result.status.mayPass { result.status = .ioError }
        result.said.append(failure)
        return result
    }
}
