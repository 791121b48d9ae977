// swift-tools-version: 6.2
import PackageDescription

/// Every first-party target builds in Swift 6 mode with warnings treated as errors.
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
]

/// What both test targets build against.
let testDependencies: [Target.Dependency] = [
                "StoreModels", "StoreClients", "StorefrontCore", "StorefrontUI", "StorefrontTesting", "StoreSandbox", "StoreMerchant", "StoreSQLite",
                "StoreIdentity", "StoreCredentialFile", "StoreSSH", "PseudoTerminal", "TerminalNCurses", "StoreStripe", "StorePostgres",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSH", package: "swift-nio-ssh"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "CustomDump", package: "swift-custom-dump"),
                .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
                .product(name: "InlineSnapshotTesting", package: "swift-snapshot-testing"),
                .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "GRDB", package: "GRDB.swift"),
]

let package = Package(
    name: "Storefront",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "storefront", targets: ["storefront"]),
        .library(name: "StorefrontTesting", targets: ["StorefrontTesting"]),
        .library(name: "StorefrontCore", targets: ["StorefrontCore"]),
        .library(name: "StorefrontUI", targets: ["StorefrontUI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/pointfreeco/swift-snapshot-testing", from: "1.19.7"),
        .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
        // Links the test-side half of IssueReporting: without it a failed `expectNoDifference` only prints on Linux.
        .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssh", from: "0.15.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .target(name: "StoreModels", swiftSettings: strict),
        .target(name: "StoreClients", dependencies: ["StoreModels"], swiftSettings: strict),
        .target(name: "StorefrontCore", dependencies: ["StoreModels", "StoreClients"], swiftSettings: strict),
        .target(name: "StorefrontUI", dependencies: ["StoreModels", "StorefrontCore"], swiftSettings: strict),
        .systemLibrary(name: "CNCurses", providers: [.apt(["libncurses-dev"])]),
        .target(name: "TerminalNCurses", dependencies: ["CNCurses", "StorefrontCore", "StorefrontUI"], swiftSettings: strict),
        .target(
            name: "StoreSandbox",
            dependencies: ["StoreModels", "StoreClients"],
            resources: [.embedInCode("Resources/catalog.json")],
            swiftSettings: strict
        ),
        .target(
            name: "StoreIdentity",
            dependencies: ["StoreModels", "StoreClients", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .target(name: "CPseudoTerminal"),
        .target(name: "PseudoTerminal", dependencies: ["CPseudoTerminal"], swiftSettings: strict),
        .target(
            name: "StoreSSH",
            dependencies: [
                "PseudoTerminal", "StoreCredentialFile", "StoreModels",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSH", package: "swift-nio-ssh"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .target(name: "StoreMerchant", dependencies: ["StoreModels", "StoreClients"], swiftSettings: strict),
        .target(name: "StoreCredentialFile", dependencies: ["StoreClients"], swiftSettings: strict),
        .target(
            name: "StoreStripe",
            dependencies: [
                "StoreModels", "StoreClients",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "StoreSQLite",
            dependencies: ["StoreModels", "StoreClients", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict
        ),
        .target(
            name: "StorePostgres",
            dependencies: [
                "StoreModels", "StoreClients",
                "StoreCredentialFile",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "StorefrontTesting",
            dependencies: [
                "StoreModels", "StoreClients", "StorefrontCore", "StorefrontUI", "StoreSandbox", "StoreMerchant", "StoreIdentity",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CustomDump", package: "swift-custom-dump"),
                .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "storefront",
            dependencies: [
                "StoreModels", "StoreClients", "StorefrontCore", "StorefrontUI", "StoreSandbox", "StoreMerchant", "StoreSQLite", "StoreIdentity",
                "StoreCredentialFile", "TerminalNCurses", "StoreSSH", "PseudoTerminal", "StoreStripe", "StorePostgres",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "storefront-bench",
            dependencies: ["StoreModels", "StoreClients", "StorefrontCore", "StorefrontUI", "StoreSandbox", "StoreSQLite", "StorefrontTesting", "TerminalNCurses"],
            path: "Benchmarks/storefront-bench",
            swiftSettings: strict
        ),
        // Fast: no child processes, no servers, no terminals.
        .testTarget(
            name: "StorefrontTests",
            dependencies: testDependencies,
            exclude: ["__Snapshots__"],
            swiftSettings: strict
        ),
        // Real parts: tmux, ssh, PostgreSQL, PgBouncer, localstripe, pyte, the built binary.
        .testTarget(
            name: "StorefrontIntegrationTests",
            dependencies: testDependencies,
            swiftSettings: strict
        ),
    ]
)
