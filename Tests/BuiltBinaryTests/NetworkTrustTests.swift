import ChildProcess
import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// The token travels only inside TLS or to this machine with nothing in between: the
/// built binary over HTTPS to the emulator behind a TLS endpoint (socat) whose certificate
/// authority the test makes with openssl, through proxies, and with SSLKEYLOGFILE set.
@Suite struct NetworkTrustTests {
    let home: TemporaryDirectory
    let token = "trust-token-" + UUID().uuidString

    init() throws { home = try TemporaryDirectory() }

    var environment: [String: String] { binaryEnvironment(home, token: token) }

    /// A certificate authority and a certificate it signed for localhost and 127.0.0.1.
    func makeCertificates() async throws -> (ca: String, certificate: String, key: String) {
        let directory = home.path + "/tls"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let script = """
            set -e
            cd "\(directory)"
            openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj "/CN=roundup test CA"
            openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=localhost"
            printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\n' > extensions
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 \
                -extfile extensions
            """
        let made = try await run("/bin/bash", ["-c", script], environment: ["PATH": "/usr/bin:/bin"])
        #expect(made.status == 0, "\(made.stderr)")
        return (directory + "/ca.pem", directory + "/server.pem", directory + "/server.key")
    }

    /// A free port on the loopback interface.
    static func freePort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        try #require(bound)
        return UInt16(bigEndian: address.sin_port)
    }

    /// Runs `body` with a TLS endpoint on `https://localhost:<port>` in front of `backend`.
    func withTLS<T>(
        to backend: String, certificate: String, key: String, _ body: (String) async throws -> T
    ) async throws -> T {
        let socat = "/usr/bin/socat"
        try #require(FileManager.default.isExecutableFile(atPath: socat), "scripts/setup installs socat")
        let port = try Self.freePort()
        let backendPort = try #require(backend.split(separator: ":").last)
        let devNull = open("/dev/null", O_WRONLY)
        defer { close(devNull) }
        let child = try Child.spawn(
            socat,
            [
                "OPENSSL-LISTEN:\(port),bind=127.0.0.1,reuseaddr,fork,cert=\(certificate),key=\(key),verify=0",
                "TCP:127.0.0.1:\(backendPort)",
            ], environment: ["PATH": "/usr/bin:/bin"], stdout: devNull, stderr: devNull)
        defer {
            kill(child.pid, SIGTERM)
            _ = child.wait()
        }
        // Until it listens.
        for _ in 0..<100 {
            let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(probe, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(probe)
            if connected { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await body("https://localhost:\(port)")
    }

    @Test func httpsToACertificateAuthorityOfOurOwnIsTrustedOnlyWhenToldSo() async throws {
        let (ca, certificate, key) = try await makeCertificates()
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        try await withEmulator(state) { server in
            try await withTLS(to: server.baseURL, certificate: certificate, key: key) { url in
                let base = ["run", "--end-date", "2026-11-15", "--api-base-url", url]
                let untrusted = try await roundup(base, environment: environment)
                #expect(untrusted.status == 78, "a certificate that is not trusted needs a person: \(untrusted.stderr)")
                #expect(untrusted.stderr.contains("certificate"), "\(untrusted.stderr)")
                #expect(await server.bank.requests.isEmpty, "nothing reached the bank")

                let config = home.path + "/config.yaml"
                try "caFile: \(ca)\n".write(toFile: config, atomically: true, encoding: .utf8)
                let byConfig = try await roundup(base + ["--config", config], environment: environment)
                #expect(byConfig.status == 0, "\(byConfig.stderr)")
                #expect(await server.bank.transfers.count == 2)
                for variable in ["ROUNDUP_CA_FILE", "CURL_CA_BUNDLE", "SSL_CERT_FILE"] {
                    let result = try await roundup(base, environment: environment.merging([variable: ca]) { $1 })
                    #expect(result.status == 0, "\(variable): \(result.stderr)")
                    #expect(result.stdout.contains("already transferred"), "\(variable)")
                }
                let missing = try await roundup(
                    base, environment: environment.merging(["ROUNDUP_CA_FILE": ca + ".missing"]) { $1 })
                #expect(missing.status == 78)
                #expect(missing.stderr.contains("ROUNDUP_CA_FILE: the certificate authorities file"))
                let moved = await server.bank.transfers.count
                robustnessLine(
                    "https with a certificate authority of the test's own",
                    "untrusted: exit \(untrusted.status); caFile, ROUNDUP_CA_FILE, CURL_CA_BUNDLE, SSL_CERT_FILE: exit 0",
                    moneyExactlyOnce: moved == 2)
            }
        }
    }

    @Test func aBankOnThisMachineIsReachedWithoutAnyProxy() async throws {
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        try await withEmulator(state) { server in
            // A proxy that is not there: going through it would fail (and would carry the
            // token in clear text to it).
            let proxies = ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"].reduce(into: [String: String]()) {
                $0[$1] = "http://127.0.0.1:9"
            }
            let result = try await roundup(
                ["run", "--end-date", "2026-11-15", "--api-base-url", server.baseURL],
                environment: environment.merging(proxies) { $1 })
            #expect(result.status == 0, "\(result.stderr)")
            #expect(await server.bank.transfers.count == 2)
        }
    }

    @Test func anErrorThroughAProxyNamesTheProxyWithoutItsPassword() async throws {
        let result = try await roundup(
            [
                "run", "--end-date", "2026-11-15", "--api-base-url", "https://bank.example.com", "--state-dir",
                home.path + "/state",
            ],
            environment: environment.merging(["https_proxy": "http://someone:proxy-secret@127.0.0.1:9"]) { $1 })
        #expect(result.status == 69)
        #expect(result.stderr.contains("(through the proxy http://127.0.0.1:9)"), "\(result.stderr)")
        #expect(!result.stderr.contains("proxy-secret"))
        robustnessLine(
            "an https bank through a proxy that is down", "exit \(result.status), the proxy named",
            moneyExactlyOnce: true)
    }

    /// Over real TLS, where libcurl would write the secrets that decrypt the token: a real
    /// run refuses to start, and a dry run and `check` go on without writing a key log.
    @Test func sslKeyLogFileStopsARealRunAndADryRunGoesOnWithoutIt() async throws {
        let (ca, certificate, key) = try await makeCertificates()
        let state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        let keyLog = home.path + "/keys.log"
        try await withEmulator(state) { server in
            try await withTLS(to: server.baseURL, certificate: certificate, key: key) { url in
                let base = ["run", "--end-date", "2026-11-15", "--api-base-url", url]
                let withKeyLog = environment.merging(["SSLKEYLOGFILE": keyLog, "ROUNDUP_CA_FILE": ca]) { $1 }
                let real = try await roundup(base, environment: withKeyLog)
                #expect(real.status == 78)
                #expect(real.stderr.contains("SSLKEYLOGFILE is set (\(keyLog))"))
                #expect(await server.bank.requests.isEmpty)
                let dry = try await roundup(base + ["--dry-run"], environment: withKeyLog)
                #expect(dry.status == 0, "\(dry.stderr)")
                #expect(dry.stderr.contains("this run ignores it"))
                #expect(await !server.bank.requests.isEmpty, "the dry run talked to the bank over TLS")
                let check = try await roundup(["check", "--api-base-url", url], environment: withKeyLog)
                #expect(check.stdout.contains("this run ignores it"), "\(check.stdout)")
                #expect(!FileManager.default.fileExists(atPath: keyLog), "no TLS secret was written")
                let moved = await server.bank.transfers.count
                robustnessLine(
                    "SSLKEYLOGFILE set", "real run exit \(real.status), dry run exit \(dry.status), no key log",
                    moneyExactlyOnce: moved == 0)
            }
        }
    }
}
