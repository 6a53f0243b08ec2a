import Foundation
import RoundUpLedger
import RoundUpOutput

/// Where `roundup.service`, as shipped, has the job find its files: the config in
/// `/etc/roundup`, the token handed over as the credential `starling-token` from
/// `/etc/roundup/starling-token`, the ledger and reports in `/var/lib/roundup`, and any
/// other secrets in `/etc/roundup/environment`. `check --system` and `status --system`
/// read these as the service does, and write nothing: a file root made in the state
/// directory would be one the service's dynamic user could not write.
public enum SystemService {
    /// `Environment=ROUNDUP_CONFIG=%E/roundup/config.yaml`.
    public static let configFile = "/etc/roundup/config.yaml"
    /// `LoadCredential=starling-token:/etc/roundup/starling-token`.
    public static let tokenFile = "/etc/roundup/starling-token"
    /// `StateDirectory=roundup` and `Environment=ROUNDUP_STATE_DIR=%S/roundup`.
    public static let stateDirectory = "/var/lib/roundup"
    /// `EnvironmentFile=-/etc/roundup/environment`.
    public static let environmentFile = "/etc/roundup/environment"

    /// The environment the service's run sees: the unit's variables, the environment
    /// file's (when this user can read it), the credential's directory, and `searchPath`
    /// to find commands with; nothing of this user's own environment, and no HOME.
    public static func environment(searchPath: String?) -> [String: String] {
        var environment = [
            "ROUNDUP_CONFIG": configFile, "ROUNDUP_STATE_DIR": stateDirectory, "PATH": searchPath ?? "/usr/bin:/bin",
        ]
        // EnvironmentFile= is read after Environment=: what it sets wins, as in the service
        // (a STARLING_ACCESS_TOKEN there is used before the credential).
        environment.merge(environmentFileVariables()) { _, file in file }
        // systemd sets the credentials' directory itself; the credential's file is the token
        // file, named starling-token.
        environment["CREDENTIALS_DIRECTORY"] = (tokenFile as NSString).deletingLastPathComponent
        return environment
    }

    /// The environment file's text, when it is there and no other user than root could
    /// have written it (`TrustedFile`); else why not, in words (neither when it is not
    /// there). What it sets wins over the config (`ROUNDUP_API_BASE_URL` among them), and
    /// systemd reads it for the service whoever owns it.
    static func environmentFileText() -> (text: String?, problem: String?) {
        switch TrustedFile.read("the environment file", at: environmentFile, limit: 1024 * 1024) {
        case .success(let bytes): (String(decoding: bytes, as: UTF8.self), nil)
        case .failure(.unopenable): (nil, nil)
        case .failure(.notPlain): (nil, "the environment file \(environmentFile) is not a plain file")
        case .failure(.refused(let why)): (nil, why)
        case .failure(.tooLarge(let size)): (nil, "the environment file \(environmentFile) holds \(size) bytes")
        case .failure(.unreadable(let why)): (nil, "cannot read the environment file \(environmentFile): \(why)")
        }
    }

    /// Why the service's run would not take the environment file, for `check --system`;
    /// nil when it would, or there is none.
    public static func environmentFileProblem() -> String? { environmentFileText().problem }

    /// `NAME=value` lines of the environment file, as systemd reads them: blank lines and
    /// lines starting `#` or `;` are skipped, and one pair of quotes around a value goes.
    /// Nothing of a file another user could have written (`environmentFileText`).
    static func environmentFileVariables() -> [String: String] {
        guard let text = environmentFileText().text else { return [:] }
        var variables: [String: String] = [:]
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#"), !line.hasPrefix(";"),
                let equals = line.firstIndex(of: "=")
            else { continue }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            variables[name] = value
        }
        return variables
    }
}
