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
                let why = AccessToken.problem(with: value) ?? "is no access token"
                return .failure(TokenError(message: "STARLING_ACCESS_TOKEN \(why)"))
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

    /// Why the token file open as `descriptor` (`path`, whose file is `file`) is refused
    /// (`OwnSecretFile.refusal`).
    private static func refusal(_ path: String, descriptor: Int32, file: stat) -> TokenError? {
        OwnSecretFile.refusal(
            "the token file", holding: "a token", setting: "tokenFile", at: path, descriptor: descriptor, file: file,
            advice: containerAdvice
        ).map { TokenError(message: $0) }
    }

    private static func readFile(_ path: String) -> Result<AccessToken, TokenError> {
        // Its own rule first (this user's alone), then the config's: no one else may swap it.
        let read = TrustedFile.read("the token file", at: path, limit: tokenFileLimit) { descriptor, file in
            refusal(path, descriptor: descriptor, file: file)?.message
        }
        switch read {
        case .failure(.unopenable):
            return .failure(
                TokenError(message: "cannot read the token file \(path): it does not exist or is not accessible"))
        case .failure(.notPlain):
            return .failure(TokenError(message: "the token file \(path) is not a plain file"))
        case .failure(.refused(let why)):
            return .failure(TokenError(message: why))
        case .failure(.tooLarge(let size)):
            return .failure(
                TokenError(
                    message: "the token file \(path) holds \(size) bytes, more than the \(tokenFileLimit / 1024) KiB "
                        + "a token file may: an access token is a few hundred bytes; is it the right file?"))
        case .failure(.unreadable(let why)):
            return .failure(TokenError(message: "cannot read the token file \(path): \(why)"))
        case .success(let bytes):
            guard let text = String(bytes: bytes, encoding: .utf8) else {
                return .failure(
                    TokenError(message: "the token file \(path) is not UTF-8 text: it holds no access token"))
            }
            guard let token = AccessToken(text) else {
                let why = AccessToken.problem(with: text) ?? "does not hold an access token"
                return .failure(TokenError(message: "the token file \(path) \(why)"))
            }
            return .success(token)
        }
    }
}

/// A file of secrets roundup reads beside its config: the token file, `notify.toFile`, a
/// `notify.to` URL's `tokenFile=`. It must be this user's, and readable by no one else.
enum OwnSecretFile {
    /// Why `what` (`path`, open as `descriptor`, whose file is `file`) is refused, holding
    /// `holding`; nil when it is this user's alone. The advice to `chmod` is given only for
    /// a plain path to a file with one name: through a link, or with another name (a hard
    /// link), it would change the file for its other names too (`/etc/shadow`), and the
    /// saver is told to point `setting` at a file of their own instead. The file is named as
    /// opened (`/proc/self/fd`), so a link changed meanwhile is not misnamed. `advice` says
    /// what works where the file cannot be this user's.
    static func refusal(
        _ what: String, holding: String, setting: String, at path: String, descriptor: Int32, file: stat,
        advice: String
    ) -> String? {
        let opened = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let throughLink = opened.map { $0 != absolute } ?? true
        let named = throughLink ? "\(path) leads to \(opened ?? "another file"), which" : "\(path) is a file that"
        if file.st_uid != geteuid() {
            return "\(what) \(named) user \(file.st_uid) owns, not this user (\(geteuid())): roundup reads "
                + "\(holding) only from a file of its own user; \(advice)"
        }
        guard file.st_mode & 0o077 != 0 else { return nil }
        if throughLink || file.st_nlink != 1 {
            let other = throughLink ? "" : " (it has \(file.st_nlink) names)"
            return "\(what) \(named) group or others can read\(other): point \(setting) at a file of your own with "
                + "mode 600 (roundup does not advise changing the mode of a file with other names, which would change "
                + "it for them too); \(advice)"
        }
        return "\(what) \(path) is readable by group or others; run: chmod 600 \(path)"
    }
}
