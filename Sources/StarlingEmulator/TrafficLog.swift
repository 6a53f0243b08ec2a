import Foundation
import Synchronization

/// Writes every exchange the emulator serves to a file, one JSON object a line, so that
/// a checker can hold each request and answer against the bank's published description.
///
/// The token never reaches the file: the `Authorization` header is written as its scheme
/// and `<redacted>`. An answer made to differ from the bank's on purpose, by a fault or by
/// a bank state that serves what the description forbids, is marked `altered`, so the
/// checker holds only the request to the description.
public final class TrafficLog: Sendable {
    private let file: Mutex<FileHandle?>
    /// Where the exchanges go.
    public let path: String
    /// Whether every answer is off the description on purpose: a test that serves values
    /// the bank does not define, to see the job tolerate or refuse them.
    public let answersOffSpec: Bool

    /// A new file, readable by its owner only, named for this process and a fresh uuid
    /// inside `directory`: each emulator has its own file, so writers never interleave.
    public init(directory: String, answersOffSpec: Bool = false) throws {
        self.answersOffSpec = answersOffSpec
        let path = directory + "/traffic-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString).jsonl"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        self.path = path
        file = Mutex(FileHandle(fileDescriptor: descriptor, closeOnDealloc: true))
    }

    /// One exchange as the file holds it.
    struct Exchange: Encodable {
        var method: String
        var path: String
        /// Query items in the order they came, as `[name, value]` pairs.
        var query: [[String]]
        /// Header fields with lower-cased names; `authorization` redacted.
        var headers: [String: String]
        var body: String?
        var status: Int?
        var responseHeaders: [String: String]
        var responseBody: String?
        /// The fault injected, if any.
        var fault: String?
        /// Whether the fault changed the answer from what the bank would give: a garbled
        /// body, an error the bank did not choose, a dropped connection.
        var altered: Bool
    }

    func record(_ request: EmulatorRequest, queryItems: [[String]], answer: EmulatorResponse) {
        var headers = request.headers
        if let authorization = headers["authorization"] {
            // The scheme is kept only when it is exactly the one the job sends: anything
            // else could be a token itself, and is written as nothing but the mark.
            headers["authorization"] = authorization.hasPrefix("Bearer ") ? "Bearer <redacted>" : "<redacted>"
        }
        let exchange = Exchange(
            method: request.method, path: request.path, query: queryItems, headers: headers,
            body: request.body.isEmpty ? nil : String(decoding: request.body, as: UTF8.self),
            status: answer.dropConnection ? nil : answer.status, responseHeaders: answer.headers,
            responseBody: answer.dropConnection ? nil : String(decoding: answer.body, as: UTF8.self),
            fault: answer.fault.map { "\($0)" }, altered: answersOffSpec || answer.fault?.altersAnswer == true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(exchange) else { return }
        line.append(UInt8(ascii: "\n"))
        file.withLock { handle in try? handle?.write(contentsOf: line) }
    }
}

extension Fault {
    /// Whether the answer differs from the one the bank would give without the fault.
    /// Latency and a stall only delay it.
    var altersAnswer: Bool {
        switch self {
        case .latency, .stall: false
        default: true
        }
    }
}
