import Foundation
import RoundUp
import StarlingEmulator
import TestSupport
import Testing

/// The JSON the built binary writes, checked against the documented schemas in `schema/`.
@Suite struct SchemaTests {
    static let schemaDirectory = repositoryRoot.appendingPathComponent("schema").path

    let report: JSONSchema
    let history: JSONSchema

    init() throws {
        report = try JSONSchema(file: Self.schemaDirectory + "/report-v1.schema.json")
        history = try JSONSchema(file: Self.schemaDirectory + "/history-v1.schema.json")
    }

    @Test func theCheckerCatchesWhatTheSchemaForbids() {
        #expect(!report.problems(inJSON: #"{"schemaVersion":1}"#).isEmpty, "required fields")
        #expect(report.problems(inJSON: #"{"schemaVersion":2}"#).contains { $0.contains("is not 1") })
        let undocumented = #"{"schemaVersion":1,"stateDirectory":"/s","weeks":[],"totals":{},"extra":true}"#
        #expect(history.problems(inJSON: undocumented) == ["$: 'extra' is not in the schema"])
        let badStatus =
            #"{"schemaVersion":1,"stateDirectory":"/s","totals":{"GBP":"1.x"},"weeks":[{"weekStart":"a","#
            + #""weekEnd":"b","accountUid":"c","currency":"GBP","amount":"1.00","minorUnits":100,"status":"maybe"}]}"#
        #expect(history.problems(inJSON: badStatus).count == 2, "\(history.problems(inJSON: badStatus))")
    }

    @Test func everyReportAndHistoryTheBinaryWritesFollowsItsSchema() async throws {
        let home = try TemporaryDirectory()
        let token = "schema-token"
        var state = Seed.realisticWeek(endingOn: LocalDate(iso: "2026-11-15")!, timeZone: TestBank.london, token: token)
        state.accounts[0].balance = 100_01  // Personal (GBP): a minimum of 100.00 holds most of it back
        let config = home.path + "/config.yaml"
        try "minimumBalance:\n  GBP: 100.00\nmultiplier: 2\nweeklyCap:\n  EUR: 1.00\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let environment = binaryEnvironment(home, token: token)
        try await withEmulator(state) { server in
            let base = ["run", "--api-base-url", server.baseURL, "--config", config, "--json"]
            var outputs: [(String, String)] = []
            // A dry run that would create a goal, a real run, a rerun, and a catch-up (an array).
            for arguments in [
                ["--end-date", "2026-11-08", "--dry-run"], ["--end-date", "2026-11-08"],
                ["--end-date", "2026-11-08"], ["--end-date", "2026-11-15", "--catch-up"],
            ] {
                let result = try await roundup(base + arguments, environment: environment)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                outputs.append(("\(arguments)", result.stdout))
            }
            await server.bank.update { $0.scopes.removeAll { $0 == "balance:read" } }
            let refused = try await roundup(base + ["--end-date", "2026-11-01"], environment: environment)
            #expect(refused.status == 77)
            outputs.append(("missing scope", refused.stdout))

            var checked = 0
            for (name, output) in outputs {
                let value = try JSONSerialization.jsonObject(with: Data(output.utf8))
                for single in (value as? [Any]) ?? [value] {
                    #expect(report.problems(in: single) == [], "\(name)")
                    checked += 1
                }
            }
            #expect(checked == 5)
            let files = try FileManager.default.contentsOfDirectory(atPath: home.path + "/.local/state/roundup/reports")
                .filter { $0.hasSuffix(".json") }
            // Each real run's own report (one of 11-08, whose rerun changed nothing and wrote
            // none, one of 11-15, the refused one of 11-01) and the links of the two weeks that
            // succeeded.
            #expect(files.count == 5)
            for file in files {
                let text = try String(
                    contentsOfFile: home.path + "/.local/state/roundup/reports/" + file, encoding: .utf8)
                #expect(report.problems(inJSON: text) == [], "\(file)")
            }

            let list = try await roundup(["history", "--json", "--config", config], environment: environment)
            #expect(list.status == 0)
            #expect(history.problems(inJSON: list.stdout) == [])
            #expect(list.stdout.contains("\"held back\"") && list.stdout.contains("\"note\""))
        }
    }
}
