import Foundation
public import StarlingAPI

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
                        + "(see config/roundup.example.yaml), or pass the systemd credential "
                        + TokenSource.credentialName))
        }
        return Self.readFile(path).map { ($0, .file(path: path)) }
    }

    private static func readFile(_ path: String) -> Result<AccessToken, TokenError> {
        var info = stat()
        guard stat(path, &info) == 0 else {
            return .failure(
                TokenError(message: "cannot read the token file \(path): it does not exist or is not accessible"))
        }
        guard info.st_mode & 0o077 == 0 else {
            return .failure(
                TokenError(message: "the token file \(path) is readable by group or others; run: chmod 600 \(path)"))
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8),
            let token = AccessToken(text)
        else {
            return .failure(TokenError(message: "the token file \(path) does not hold an access token"))
        }
        return .success(token)
    }
}
