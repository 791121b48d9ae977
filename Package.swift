// swift-tools-version: 6.2
import PackageDescription

/// Every first-party target builds in Swift 6 mode with warnings treated as errors.
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error)
]

/// What both test targets build against.
let testDependencies: [Target.Dependency] = [
    "ShopModels", "ShopPorts", "ShopApplication", "ShopBootstrap", "ShopBundledCatalog", "ShopSessions", "StorefrontCore", "StorefrontUI",
    "StorefrontTesting",
    "AddressFormats",
    "ShopLanguages",
    "StorageRows",
    "ShopSandbox",
    "StorageSQLite",
    "ShopMail",
    "ShopIdentity", "ShopOpenID", "ShopCredentialFile", "ShopSSH", "ShopWebhookServer", "ShopWebFront", "ShopAPI", "HTTPGuards", "PseudoTerminal",
    "ShopAdminListener", "ShopMetrics", "LiveObjects",
    "TerminalNCurses", "ShopStripe", "StoragePostgres", "ShopQRCode", "ShopPictures", "ShopRecording", "MerchantReports", "ShopServices",
    "ShopCommands",
    "StorefrontCommandLine",
    .product(name: "SystemPackage", package: "swift-system"),
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "NIOEmbedded", package: "swift-nio"),
    .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
    .product(name: "HTTPTypes", package: "swift-http-types"),
    .product(name: "NIOSSH", package: "swift-nio-ssh"),
    .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
    .product(name: "Crypto", package: "swift-crypto"),
    .product(name: "Clocks", package: "swift-clocks"),
    .product(name: "CustomDump", package: "swift-custom-dump"),
    .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
    .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
    .product(name: "PropertyBased", package: "swift-property-based"),
    .product(name: "GRDB", package: "GRDB.swift"),
    .product(name: "Hummingbird", package: "hummingbird"),
    .product(name: "HummingbirdTesting", package: "hummingbird"),
    .product(name: "ArgumentParser", package: "swift-argument-parser"),
]

let package = Package(
    name: "Storefront",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "storefront", targets: ["storefront"]),
        // What `storefront sshd-session --join` becomes: a session's waiting process behind OpenSSH, in C to stay small.
        .executable(name: "storefront-joiner", targets: ["storefront-joiner"]),
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
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        .package(url: "https://github.com/apple/swift-nio-ssh", from: "0.15.1"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
    ],
    targets: [
        // Embeds a target's JSON files as string literals: SwiftPM's `.embedInCode` byte arrays took a minute to compile.
        .plugin(name: "EmbedText", capability: .buildTool()),
        // Marks the classes other threads change, so a failed expectation never reflects one mid-change.
        .target(name: "LiveObjects", swiftSettings: strict),
        .target(name: "ShopModels", dependencies: ["AddressFormats", "ShopLanguages"], swiftSettings: strict),
        .target(name: "ShopPorts", dependencies: ["LiveObjects", "ShopLanguages", "ShopModels"], swiftSettings: strict),
        // The metrics the shop exports, named once, and the relay that brings a session process's to its server.
        .target(name: "ShopMetrics", dependencies: ["LiveObjects", .product(name: "CoreMetrics", package: "swift-metrics")], swiftSettings: strict),
        // The use cases every front shares, over the ports alone.
        .target(name: "ShopApplication", dependencies: ["LiveObjects", "ShopMetrics", "ShopModels", "ShopPorts"], swiftSettings: strict),
        // The shopper's words in each language: gettext PO catalogs embedded in the binary, and the test language.
        .target(name: "ShopLanguages", swiftSettings: strict, plugins: ["EmbedText"]),
        .target(
            name: "StorefrontCore", dependencies: ["LiveObjects", "AddressFormats", "ShopApplication", "ShopLanguages", "ShopModels", "ShopPorts"],
            swiftSettings: strict),
        .target(
            name: "StorefrontUI", dependencies: ["LiveObjects", "ShopLanguages", "ShopModels", "ShopPorts", "StorefrontCore"], swiftSettings: strict),
        .systemLibrary(name: "CNCurses", providers: [.apt(["libncurses-dev"])]),
        .systemLibrary(name: "CQRencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CImageCodecs", pkgConfig: "libpng", providers: [.apt(["libpng-dev", "libjpeg62-turbo-dev", "zlib1g-dev"])]),
        .systemLibrary(name: "CChafa", pkgConfig: "chafa", providers: [.apt(["libchafa-dev", "libglib2.0-dev"])]),
        // PNG and JPEG decoded within limits and drawn by libchafa: in C, where the libraries' longjmp errors are caught.
        .target(
            name: "CPictures", dependencies: ["CImageCodecs", "CChafa"],
            linkerSettings: ["png16", "jpeg", "z", "chafa", "glib-2.0"].map { .linkedLibrary($0) }),
        // The one module that calls CPictures: products' pictures checked, decoded, cached and drawn in cells.
        .target(
            name: "ShopPictures",
            dependencies: ["CPictures", "LiveObjects", "ShopModels", "ShopPorts", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict),
        // The one module that calls libqrencode: links shown in the terminal as QR codes.
        .target(name: "ShopQRCode", dependencies: ["CQRencode", "ShopPorts"], swiftSettings: strict),
        .target(
            name: "TerminalNCurses", dependencies: ["LiveObjects", "CNCurses", "ShopMetrics", "ShopModels", "StorefrontCore", "StorefrontUI"],
            swiftSettings: strict),
        // The catalog the shop runs on when none is given, embedded in the binary (EmbedText).
        .target(name: "ShopBundledCatalog", swiftSettings: strict, plugins: ["EmbedText"]),
        // How each country writes an address: generated by scripts/generate-address-formats, embedded in the binary.
        .target(name: "AddressFormats", dependencies: ["ShopLanguages"], swiftSettings: strict, plugins: ["EmbedText"]),
        .target(
            name: "ShopSandbox",
            dependencies: ["LiveObjects", "ShopBundledCatalog", "ShopModels", "ShopPorts", "StorageRows"],
            swiftSettings: strict
        ),
        .target(
            name: "ShopIdentity",
            dependencies: ["LiveObjects", "ShopLanguages", "ShopModels", "ShopPorts", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        // OpenID Connect: discovery, the provider's keys (rotation followed), the code flow with PKCE, ID tokens checked.
        .target(
            name: "ShopOpenID",
            dependencies: [
                "LiveObjects",
                "ShopIdentity", "ShopLanguages", "ShopPorts", .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(name: "CPseudoTerminal"),
        // SwiftPM links the Swift runtime into it all the same; scripts/release-build compiles the deployed one with cc.
        .executableTarget(name: "storefront-joiner", dependencies: ["CPseudoTerminal"]),
        .target(name: "PseudoTerminal", dependencies: ["LiveObjects", "CPseudoTerminal"], swiftSettings: strict),
        // What a session is allowed, whichever front (SSH or the browser) it came through: admission, limits, refusals
        // logged without flooding, the command a session process runs.
        .target(
            name: "ShopSessions",
            dependencies: ["LiveObjects", "PseudoTerminal", "ShopLanguages", "ShopMetrics", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strict
        ),
        .target(
            name: "ShopSSH",
            dependencies: [
                "LiveObjects",
                "PseudoTerminal", "ShopCredentialFile", "ShopLanguages", "ShopMetrics", "ShopModels", "ShopSessions",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSH", package: "swift-nio-ssh"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // Each front and worker started from typed settings over the shop's storage.
        .target(
            name: "ShopServices",
            dependencies: [
                "LiveObjects",
                "ShopAPI", "ShopApplication", "ShopBootstrap", "ShopCredentialFile", "ShopIdentity", "ShopLanguages", "ShopModels", "ShopOpenID",
                "ShopPictures", "ShopPorts",
                "ShopSSH",
                "ShopSandbox", "ShopSessions", "ShopMetrics",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                "ShopStripe", "ShopWebFront", "ShopWebhookServer", "ShopAdminListener", "PseudoTerminal", "StoragePostgres", "StorefrontUI",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // What each command does once its options are parsed: the executable parses, these run.
        .target(
            name: "ShopCommands",
            dependencies: [
                "LiveObjects",
                "MerchantReports", "PseudoTerminal", "ShopAPI", "ShopBootstrap", "ShopBundledCatalog", "ShopCredentialFile", "ShopIdentity",
                "ShopMail", "ShopApplication", "ShopLanguages", "ShopOpenID",
                "ShopMetrics", "ShopModels", "ShopPictures", "ShopPorts", "ShopRecording", "ShopSSH", "ShopServices", "ShopSessions", "ShopWebFront",
                "ShopWebhookServer",
                "StoragePostgres", "StorefrontCore", "StorefrontUI", "TerminalNCurses",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(name: "MerchantReports", dependencies: ["ShopModels", "ShopPorts", "StorefrontUI"], swiftSettings: strict),
        .target(
            name: "ShopRecording",
            dependencies: [
                "PseudoTerminal", "ShopModels", "StorefrontUI", "TerminalNCurses", .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        // Hands the outbox's messages to the system's mail command.
        .target(name: "ShopMail", dependencies: ["LiveObjects", "ShopModels", "ShopPorts"], swiftSettings: strict),
        // The shop's HTTP listener: the payment provider's signed webhooks.
        .target(
            name: "ShopWebhookServer",
            dependencies: [
                "LiveObjects",
                "ShopModels", "ShopPorts", "HTTPGuards",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // The operator's listener: health and readiness, off the public ones.
        .target(
            name: "ShopAdminListener",
            dependencies: [
                "LiveObjects",
                "ShopPorts", "HTTPGuards",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // The browser front's vendored files (assets/web/), compiled in with #embed.
        // gzip for them is zlib's (zlib1g-dev).
        .target(name: "CWebAssets", linkerSettings: [.linkedLibrary("z")]),
        // The shop in a browser: a terminal page whose WebSocket relays a guest session on a pty.
        // What every HTTP front (web, API, webhooks) closes on a slow or greedy client: a deadline for each request
        // and caps on connections per address and in all.
        .target(
            name: "HTTPGuards",
            dependencies: [
                "LiveObjects",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "ShopWebFront",
            dependencies: [
                "LiveObjects",
                "CWebAssets", "PseudoTerminal", "ShopLanguages", "ShopSessions", "HTTPGuards",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // The public HTTP API: openapi/storefront.yaml's generated routes (Generated/, from scripts/openapi-generate)
        // behind a request log and a token gate, on Hummingbird.
        .target(
            name: "ShopAPI",
            dependencies: [
                "LiveObjects",
                "AddressFormats", "ShopApplication", "ShopLanguages", "ShopMetrics", "ShopModels", "ShopPorts", "ShopIdentity", "HTTPGuards",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict,
            plugins: ["EmbedText"]
        ),
        .target(
            name: "ShopCredentialFile", dependencies: ["LiveObjects", "ShopPorts", .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: strict),
        .target(
            name: "ShopStripe",
            dependencies: [
                "LiveObjects",
                "ShopModels", "ShopPorts",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // SQLite's process-wide memory settings, which GRDB does not expose (sqlite3_config is variadic).
        .target(name: "CSQLiteMemory", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(
            name: "StorageSQLite",
            dependencies: [
                "LiveObjects",
                "CSQLiteMemory", "ShopMetrics", "ShopModels", "ShopPorts", "StorageRows", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "StoragePostgres",
            dependencies: [
                "LiveObjects",
                "ShopMetrics", "ShopModels", "ShopPorts", "StorageRows",
                "ShopCredentialFile",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "StorefrontTesting",
            dependencies: [
                "LiveObjects",
                "ShopModels", "ShopPorts", "ShopApplication", "ShopBootstrap", "StorefrontCore", "StorefrontUI", "ShopSandbox", "ShopIdentity",
                "ShopLanguages", "StorageRows", "StorageSQLite", "ShopBundledCatalog",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "CustomDump", package: "swift-custom-dump"),
                .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
            ],
            swiftSettings: strict
        ),
        // The application between the ports and the fronts: the shop's storage opened in one place.
        // The rows both databases keep, read the same way: next to the storage, not in the ports.
        .target(name: "StorageRows", dependencies: ["LiveObjects", "ShopModels", "ShopPorts"], swiftSettings: strict),
        .target(
            name: "ShopBootstrap",
            dependencies: [
                "LiveObjects",
                "ShopBundledCatalog", "ShopCredentialFile", "ShopLanguages", "ShopMetrics", "ShopModels", "ShopPictures", "ShopPorts", "ShopSandbox",
                "ShopStripe",
                "StorageRows", "StorageSQLite",
                "StoragePostgres", "StorefrontCore", "ShopApplication", "ShopIdentity", "ShopOpenID", "ShopQRCode", "ShopSSH",
                "ShopSessions", .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // Every command's arguments, parsed in-process (tests parse them without starting the binary); the work of each
        // is one call into ShopCommands.
        .target(
            name: "StorefrontCommandLine",
            dependencies: [
                "MerchantReports", "PseudoTerminal", "ShopAPI", "ShopApplication", "ShopBootstrap", "ShopCommands", "ShopModels", "ShopPorts",
                "ShopRecording",
                "ShopServices", "ShopSessions", "ShopWebFront", "StorefrontCore", "StorefrontUI", "TerminalNCurses",
                "ShopMetrics", .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The program's entry: the session host's fork, then the command line.
        .executableTarget(
            name: "storefront",
            dependencies: ["PseudoTerminal", "ShopCommands", "StorageSQLite", "StorefrontCommandLine"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "storefront-bench",
            dependencies: [
                "ShopBundledCatalog", "ShopModels", "ShopPorts", "StorefrontCore", "StorefrontUI", "ShopSandbox", "StorageRows", "StorageSQLite",
                "StorefrontTesting", "TerminalNCurses",
            ],
            path: "Benchmarks/storefront-bench",
            swiftSettings: strict
        ),
        // Fast: no child processes, no servers, no terminals.
        .testTarget(
            name: "StorefrontTests",
            dependencies: testDependencies,
            exclude: ["__Snapshots__", "Features/__Snapshots__", "Languages/__Snapshots__", "PictureFixtures"],
            swiftSettings: strict
        ),
        // Real parts: tmux, ssh, PostgreSQL, PgBouncer, localstripe, pyte, the built binary.
        .testTarget(
            name: "StorefrontIntegrationTests",
            dependencies: testDependencies + ["CPseudoTerminal"],
            // Python helpers the tests start: the fake Stripe API, the mail sink, the browser driver.
            exclude: ["Support/stripe-fake.py", "Support/smtp-sink.py", "Support/browser.py"],
            swiftSettings: strict
        ),
    ]
)
