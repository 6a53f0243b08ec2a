import Foundation
public import StarlingAPI

/// Writes reports into the report directory, each file atomically.
public enum ReportWriter {
    /// Writes `roundup-<end-date>.json` and `.md`, with any occurrence of `token` removed;
    /// returns the Markdown file's path.
    public static func write(_ report: RunReport, to directory: String, token: AccessToken?) throws -> String {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let base = "\(directory)/roundup-\(report.week.endDate)"
        let json = try ReportFile(path: base + ".json", token: token)
        do {
            try ReportJSON.write(report, to: json)
            try json.commit()
        } catch {
            json.abandon()
            throw error
        }
        let markdown = try ReportFile(path: base + ".md", token: token)
        do {
            try report.writeMarkdown(to: markdown)
            try markdown.commit()
        } catch {
            markdown.abandon()
            throw error
        }
        return base + ".md"
    }
}

/// A report file being written: into a temporary file beside it, a piece at a time, then
/// renamed over it, so that a reader never sees half a report. Every piece is searched for
/// the token before it is written; the last few bytes are held back until the next piece,
/// so that a token split across two pieces is found too.
final class ReportFile {
    /// How much is gathered before it is written.
    static let pieceSize = 1 << 20

    private let path: String
    private let temporary: String
    private let token: AccessToken?
    private var descriptor: Int32
    private var pending: [UInt8] = []

    init(path: String, token: AccessToken?) throws {
        self.path = path
        self.temporary = path + ".partial"
        self.token = token
        descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ReportError(path: path, code: errno) }
        pending.reserveCapacity(ReportFile.pieceSize + 4096)
    }

    deinit {
        if descriptor >= 0 { abandon() }
    }

    func append(_ bytes: [UInt8]) throws {
        pending.append(contentsOf: bytes)
        if pending.count >= ReportFile.pieceSize { try flush(all: false) }
    }

    func append(_ text: String) throws {
        pending.append(contentsOf: text.utf8)
        if pending.count >= ReportFile.pieceSize { try flush(all: false) }
    }

    /// Writes everything and puts the file in its place.
    func commit() throws {
        try flush(all: true)
        close(descriptor)
        descriptor = -1
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw ReportError(path: path, code: code)
        }
    }

    /// Gives up: the temporary file goes, and whatever was at `path` stays.
    func abandon() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(temporary)
    }

    private func flush(all: Bool) throws {
        if let token { pending = token.redacted(inUTF8: pending) }
        // Bytes that could be the start of a token completed by the next piece wait for it.
        let keep = all ? 0 : min(pending.count, token?.length ?? 0)
        let count = pending.count - keep
        var written = 0
        let failed = pending.withUnsafeBytes { buffer -> Bool in
            while written < count {
                let result = Glibc.write(descriptor, buffer.baseAddress! + written, count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                written += result
            }
            return false
        }
        if failed { throw ReportError(path: path, code: errno) }
        pending.removeFirst(count)
    }
}

/// A report file that could not be written.
struct ReportError: Error, CustomStringConvertible {
    let path: String
    let code: Int32
    var description: String { "cannot write \(path): \(String(cString: strerror(code)))" }
    var localizedDescription: String { description }
}
