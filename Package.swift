// swift-tools-version: 6.0
// Swift 6.0: the arm64 package is built with Debian 13's Swift 6.0.3 (scripts/build-arm64), the
// rest with today's toolchain; docs/development.md says what keeps both building.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "roundup",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "roundup", targets: ["roundup"]),
        .executable(name: "roundup-bench", targets: ["roundup-bench"]),
        .executable(name: "plain-client", targets: ["plain-client"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // libcurl, with typed shims for its variadic calls.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "CurlHTTP", dependencies: ["CCurl", "RoundUp"], swiftSettings: strict),
        .target(name: "RoundUp", swiftSettings: strict),
        .target(
            name: "StarlingAPI",
            dependencies: ["CurlHTTP", "RoundUp", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        // The words every layer shares: exit statuses, an account-week's record and state,
        // a command's failure. It knows nothing of the ledger, the reports or the bank.
        .target(name: "RoundUpVocabulary", dependencies: ["RoundUp"], swiftSettings: strict),
        // Files written so that no one else can swap or read them, paths checked, errors in
        // plain words, the token kept out of logs.
        .target(
            name: "RoundUpOutput",
            dependencies: ["RoundUp", "RoundUpVocabulary"],
            swiftSettings: strict
        ),
        // The ledger in the state directory (SQLite): knows nothing of commands, reports or
        // the bank.
        .target(
            name: "RoundUpLedger",
            dependencies: [
                "RoundUp", "RoundUpVocabulary", "RoundUpOutput", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        // What the saver reads: the Markdown and JSON reports, the savings chart and page,
        // history's views. They take values, never the ledger or the bank.
        .target(
            name: "RoundUpReports",
            dependencies: ["RoundUp", "RoundUpVocabulary", "RoundUpOutput"],
            swiftSettings: strict
        ),
        // Telling the saver: the places notify.to names, in Apprise's URL syntax, and what each is sent.
        .target(
            name: "RoundUpNotify",
            dependencies: [
                "RoundUp", "RoundUpVocabulary", "CurlHTTP", "ChildProcess",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Where roundup runs: its configuration and token, its locks, what schedules it, the watch over its runs.
        .target(
            name: "RoundUpHost",
            dependencies: [
                "RoundUp", "RoundUpVocabulary", "RoundUpOutput", "RoundUpLedger", "RoundUpReports", "StarlingAPI",
                "CurlHTTP", "ChildProcess", "RoundUpNotify",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // One account-week before money moves: its window, the bank's facts, its goal, safe to save's decision.
        .target(
            name: "RoundUpWeek",
            dependencies: ["RoundUpHost"],
            swiftSettings: strict
        ),
        // An account-week's money moved once: each send, its identity in the feed, a lost answer, and resolve.
        .target(
            name: "RoundUpTransfers",
            dependencies: ["RoundUpWeek"],
            swiftSettings: strict
        ),
        // The weekly run: its weeks and catch-up, each account's week under its lock, the reports it writes.
        .target(
            name: "RoundUpWeeklyRun",
            dependencies: ["RoundUpTransfers"],
            swiftSettings: strict
        ),
        // The commands a person types (run, check, status, resolve, history), and the manual's text.
        .target(
            name: "RoundUpCommands",
            dependencies: ["RoundUpWeeklyRun"],
            swiftSettings: strict
        ),
        .target(
            name: "StarlingEmulator",
            dependencies: ["RoundUp", "CurlHTTP", .product(name: "FlyingFox", package: "FlyingFox")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "roundup",
            dependencies: [
                "RoundUp", "RoundUpVocabulary", "RoundUpOutput", "RoundUpReports", "RoundUpHost", "RoundUpCommands",
                "StarlingEmulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Starting processes with posix_spawn, for the binary's tests and the benchmark.
        .target(name: "ChildProcess", swiftSettings: strict),
        // The benchmark: roundup against a plain sequential client on the same emulator.
        .executableTarget(
            name: "roundup-bench",
            dependencies: ["ChildProcess", "RoundUp", "StarlingEmulator"],
            swiftSettings: strict
        ),
        .executableTarget(name: "plain-client", swiftSettings: strict),
    ]
)

// The tests, and swift-property-based (Swift 6.1 and later), with today's toolchain only: the
// arm64 build with Swift 6.0.3 builds the roundup product, never a test.
#if compiler(>=6.1)
package.dependencies.append(.package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"))
package.targets += [
    .target(
        name: "TestSupport",
        dependencies: ["StarlingEmulator", "RoundUp", .product(name: "FlyingFox", package: "FlyingFox")],
        path: "Tests/TestSupport",
        swiftSettings: strict
    ),
    // The real job in-process, through libcurl, against the emulator: for the tests of the
    // rooms a weekly run crosses.
    .target(
        name: "JobTestSupport",
        dependencies: [
            "RoundUpCommands", "TestSupport", "StarlingEmulator", .product(name: "Logging", package: "swift-log"),
        ],
        path: "Tests/JobTestSupport",
        swiftSettings: strict
    ),
    // Each library target's tests, in a target of its own name.
    .testTarget(
        name: "RoundUpTests",
        dependencies: ["RoundUp", .product(name: "PropertyBased", package: "swift-property-based")],
        swiftSettings: strict
    ),
    .testTarget(name: "ChildProcessTests", dependencies: ["ChildProcess", "TestSupport"], swiftSettings: strict),
    .testTarget(name: "CurlHTTPTests", dependencies: ["CurlHTTP", "TestSupport"], swiftSettings: strict),
    .testTarget(
        name: "StarlingAPITests",
        dependencies: [
            "StarlingAPI", "StarlingEmulator", "TestSupport",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ],
        resources: [.copy("Fixtures")],
        swiftSettings: strict
    ),
    .testTarget(
        name: "StarlingEmulatorTests", dependencies: ["StarlingEmulator", "TestSupport"], swiftSettings: strict),
    .testTarget(name: "RoundUpVocabularyTests", dependencies: ["RoundUpVocabulary"], swiftSettings: strict),
    .testTarget(name: "RoundUpOutputTests", dependencies: ["RoundUpOutput", "TestSupport"], swiftSettings: strict),
    .testTarget(
        name: "RoundUpLedgerTests",
        dependencies: ["RoundUpLedger", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")],
        swiftSettings: strict
    ),
    .testTarget(
        name: "RoundUpReportsTests",
        dependencies: ["RoundUpReports", "RoundUpWeeklyRun", "JobTestSupport", "TestSupport"],
        swiftSettings: strict
    ),
    .testTarget(
        name: "RoundUpHostTests",
        dependencies: [
            "RoundUpHost", "RoundUpNotify", "TestSupport", .product(name: "Yams", package: "Yams"),
            .product(name: "Logging", package: "swift-log"),
        ],
        swiftSettings: strict
    ),
    .testTarget(
        name: "RoundUpWeekTests",
        dependencies: ["RoundUpWeek", .product(name: "PropertyBased", package: "swift-property-based")],
        swiftSettings: strict
    ),
    .testTarget(
        name: "RoundUpTransfersTests",
        dependencies: [
            "RoundUpTransfers", "JobTestSupport", "TestSupport",
            .product(name: "PropertyBased", package: "swift-property-based"),
        ],
        swiftSettings: strict
    ),
    .testTarget(
        name: "RoundUpWeeklyRunTests",
        dependencies: ["RoundUpWeeklyRun", "JobTestSupport", "TestSupport"],
        // Reports kept byte for byte, read from the source tree by GoldenReportTests.
        exclude: ["Golden"],
        swiftSettings: strict
    ),
    .testTarget(
        name: "RoundUpCommandsTests",
        dependencies: ["RoundUpCommands", "JobTestSupport", "TestSupport"],
        swiftSettings: strict
    ),
    // The built roundup binary, run as a saver, a scheduler and an attacker run it.
    .testTarget(
        name: "BuiltBinaryTests",
        dependencies: [
            "roundup", "RoundUpLedger", "RoundUpHost", "RoundUpCommands", "RoundUpVocabulary", "TestSupport",
            "ChildProcess", .product(name: "GRDB", package: "GRDB.swift"),
        ],
        swiftSettings: strict
    ),
]
#endif
