import Foundation
public import RoundUp
import RoundUpOutput
import StarlingAPI

/// Where the access token came from, in words for `roundup check`.
public enum TokenSource: Equatable, Sendable {
    case environment
    case credential(path: String)
    case file(path: String)

    /// The name of the systemd credential that holds the token (`LoadCredential=starling-token:…`).
    public static let credentialName = "starling-token"

    public var description: String {
        switch self {
        case .environment: "STARLING_ACCESS_TOKEN"
        case .credential(let path): "the systemd credential \(TokenSource.credentialName) (\(path))"
        case .file(let path): path
        }
    }
}

/// Why no token could be had, in words that say what to do.
public struct TokenError: Error, Sendable {
    public let message: String
}

/// Reads the access token from the places a run looks in, in order: `STARLING_ACCESS_TOKEN`;
/// else the systemd credential `starling-token` when systemd passed one in
/// `$CREDENTIALS_DIRECTORY`; else the config's `tokenFile`. A file must be readable by its
/// owner only.
public struct TokenLoader: Sendable {
    private let environment: [String: String]

    public init(environment: [String: String]) { self.environment = environment }

    /// The token, and where it came from; `tokenFile` is the configured file, if any.
    public func load(tokenFile: String?) -> Result<(AccessToken, TokenSource), TokenError> {
        if let value = environment["STARLING_ACCESS_TOKEN"], !value.isEmpty {
            guard let token = AccessToken(value) else {
                return .failure(
                    TokenError(message: "STARLING_ACCESS_TOKEN holds characters an access token cannot have"))
            }
            return .success((token, .environment))
        }
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty {
            let path = directory + "/" + TokenSource.credentialName
            if FileManager.default.fileExists(atPath: path) {
                return Self.readFile(path).map { ($0, .credential(path: path)) }
            }
        }
        guard let path = tokenFile else {
            return .failure(
                TokenError(
                    message: "no access token: set STARLING_ACCESS_TOKEN, or tokenFile in the config file "
                        + "(see roundup.example.yaml in config/ or /usr/share/doc/roundup/), or pass the systemd credential "
                        + TokenSource.credentialName))
        }
        return Self.readFile(path).map { ($0, .file(path: path)) }
    }

    /// The most of a token file that is read: an access token is a few hundred bytes.
    public static let tokenFileLimit = 64 * 1024

    /// What works in a container instead of a secret file, which is a link its runtime owns.
    static let containerAdvice =
        "in a container, pass the token in STARLING_ACCESS_TOKEN (a Kubernetes secretKeyRef, Docker's "
        + "--env-file), or mount a Podman secret with uid= and mode=0400"

    /// Why the token file open as `descriptor` (`path`, whose file is `file`) is refused:
    /// one another user owns, or one group or others can read. The advice to `chmod` is
    /// given only for a plain path to a file with one name: through a link, or with another
    /// name (a hard link), it would change the file for its other names too (`/etc/shadow`).
    /// The file is named as opened (`/proc/self/fd`), so a link changed meanwhile is not
    /// misnamed.
    private static func refusal(_ path: String, descriptor: Int32, file: stat) -> TokenError? {
        let opened = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let throughLink = opened.map { $0 != absolute } ?? true
        let named = throughLink ? "\(path) leads to \(opened ?? "another file"), which" : "\(path) is a file that"
        if file.st_uid != geteuid() {
            return TokenError(
                message: "the token file \(named) user \(file.st_uid) owns, not this user (\(geteuid())): roundup "
                    + "reads a token only from a file of its own user; \(containerAdvice)")
        }
        guard file.st_mode & 0o077 != 0 else { return nil }
        if throughLink || file.st_nlink != 1 {
            let other = throughLink ? "" : " (it has \(file.st_nlink) names)"
            return TokenError(
                message: "the token file \(named) group or others can read\(other): point "
                    + "tokenFile at a file of your own with mode 600 (roundup does not advise changing the mode of a file "
                    + "with other names, which would change it for them too); \(containerAdvice)")
        }
        return TokenError(message: "the token file \(path) is readable by group or others; run: chmod 600 \(path)")
    }

    private static func readFile(_ path: String) -> Result<AccessToken, TokenError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            return .failure(
                TokenError(message: "cannot read the token file \(path): it does not exist or is not accessible"))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            return .failure(TokenError(message: "the token file \(path) is not a plain file"))
        }
        if let refusal = refusal(path, descriptor: descriptor, file: info) { return .failure(refusal) }
        // The directories on the way to it, as for the config: no one else may swap the file.
        if let problem = SafePath.readProblem("the token file", at: path, descriptor: descriptor) {
            return .failure(TokenError(message: problem))
        }
        guard info.st_size <= tokenFileLimit else {
            return .failure(
                TokenError(
                    message:
                        "the token file \(path) holds \(info.st_size) bytes, more than the \(tokenFileLimit / 1024) KiB "
                        + "a token file may: an access token is a few hundred bytes; is it the right file?"))
        }
        // Read no more than the limit, even if the file grows meanwhile.
        var bytes = [UInt8](repeating: 0, count: tokenFileLimit + 1)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes {
                Glibc.read(descriptor, $0.baseAddress! + count, $0.count - count)
            }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { break }
            count += read
        }
        guard count <= tokenFileLimit, let text = String(bytes: bytes[..<count], encoding: .utf8),
            let token = AccessToken(text)
        else {
            return .failure(TokenError(message: "the token file \(path) does not hold an access token"))
        }
        return .success(token)
    }
}
