// swift-tools-version: 6.1
import PackageDescription

/// One set of Swift settings for every target: Swift 6 language mode comes from
/// the tools version; these add the upcoming features we hold ourselves to.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "FavoriteArchive",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SQLite", targets: ["SQLite"]),
        .library(name: "MigrationChecksum", targets: ["MigrationChecksum"]),
        .library(name: "ArchiveSearch", targets: ["ArchiveSearch"]),
        .library(name: "ArchiveSyncModel", targets: ["ArchiveSyncModel"]),
        .library(name: "ArchiveStorage", targets: ["ArchiveStorage"]),
        .library(name: "Redux", targets: ["Redux"]),
        .library(name: "ArchiveAPI", targets: ["ArchiveAPI"]),
        .library(name: "ArchiveHTTP", targets: ["ArchiveHTTP"]),
        .library(name: "ArchiveCore", targets: ["ArchiveCore"]),
        .library(name: "ArchiveTransfer", targets: ["ArchiveTransfer"]),
        .library(name: "ArchiveCommandLine", targets: ["ArchiveCommandLine"]),
        .library(name: "ArchiveFront", targets: ["ArchiveFront"]),
        .library(name: "ArchiveStartup", targets: ["ArchiveStartup"]),
        .library(name: "ArchiveSyncWire", targets: ["ArchiveSyncWire"]),
        .library(name: "ArchiveSyncClient", targets: ["ArchiveSyncClient"]),
        .library(name: "ArchiveNetwork", targets: ["ArchiveNetwork"]),
        .library(name: "ArchiveHTTPServer", targets: ["ArchiveHTTPServer"]),
        .library(name: "ArchiveServerStorage", targets: ["ArchiveServerStorage"]),
        .library(name: "ArchiveServerSQLite", targets: ["ArchiveServerSQLite"]),
        .library(name: "ArchiveServer", targets: ["ArchiveServer"]),
        .library(name: "ArchiveServerPostgres", targets: ["ArchiveServerPostgres"]),
        .executable(name: "archive", targets: ["ArchiveCLI"]),
        .executable(name: "archive-tui", targets: ["ArchiveTUI"]),
        .executable(name: "archive-server", targets: ["ArchiveServerCLI"]),
    ],
    dependencies: [
        // Command-line parsing for both fronts.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The catalog's HTTP client (SwiftNIO: no libcurl, bounded requests).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // `archive-server`: an HTTP/1.1 server on
        // the same SwiftNIO as the client, with decoder limits and idle timeouts. No default
        // traits: we need neither swift-configuration nor full Foundation from it.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // Hummingbird's own dependencies, named because the server uses their types directly.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // SHA-256 of the service's tokens, and the tests' independent oracle for
        // MigrationChecksum's own (swift-crypto is in the graph anyway, through
        // swift-nio-extras' certificates).
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // File descriptors for the import, the export and the fronts' output
        // (`FileDescriptor.writeAll`, `Errno`): already built for SwiftNIO, and what
        // lets the `archive` binary link FoundationEssentials instead of Foundation.
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // `archive-server --postgres`: PostgresClient (a connection pool on the same SwiftNIO),
        // only in the service's executable.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // HTTPS for archive-server and archive sync, and postgres-nio's TLS configuration type
        // (`sslmode=prefer|require`); in the graph through postgres-nio and AsyncHTTPClient.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // `archive-server --metrics-port`: the service's numbers (swift-metrics, in the graph
        // through Hummingbird and postgres-nio) in Prometheus's text format.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The web page's HTML (`archive-server`'s `/`): Mustache templates compiled into the
        // binary, escaped by default.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // The service's identities in the request context (`AuthRequestContext`,
        // `AuthenticatorMiddleware`): a device's bearer token on the sync API, a browser's
        // session cookie on the page.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        // The page's answers gzip-compressed when the browser asks (zlib, the system's libz).
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        // Tests only: the certificate authorities and certificates of the TLS tests, made at run time.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        // Tests only: docs/openapi.yaml read as the data it is (OpenAPIDocumentTests).
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // MARK: - Storage engine
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "SQLite",
            dependencies: ["CSQLite"],
            swiftSettings: swiftSettings
        ),
        // SHA-256 of a migration's SQL: used at build time (the shipped migrations'
        // checksums) and by tests; no process that opens a database links it. Written
        // without swift-crypto, which the plugin's tool would build a second time for the
        // host (SHA256Digest says why).
        .target(
            name: "MigrationChecksum",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "MigrationsEmbedder",
            dependencies: ["MigrationChecksum"],
            swiftSettings: swiftSettings
        ),
        .plugin(
            name: "EmbedMigrations",
            capability: .buildTool(),
            dependencies: ["MigrationsEmbedder"]
        ),
        .plugin(
            name: "EmbedOpenAPIDocument",
            capability: .buildTool(),
            dependencies: ["MigrationsEmbedder"]
        ),
        .target(
            name: "ArchiveSearch",
            swiftSettings: swiftSettings
        ),
        // The sync core, shared by every side (the engine, the wire, the client's sync and
        // both of the service's backends): a favorite's value and its rules, a change and
        // its stamp, the one merge rule, the wall clock. The standard library only.
        .target(
            name: "ArchiveSyncModel",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ArchiveStorage",
            dependencies: ["SQLite", "ArchiveSearch", "ArchiveSyncModel"],
            swiftSettings: swiftSettings,
            plugins: ["EmbedMigrations"]
        ),


        // MARK: - Redux and the archive features
        .target(
            name: "Redux",
            swiftSettings: swiftSettings
        ),
        // What both ends say and decide about the network: `NetworkFailure` (a failed
        // connection or bind in one phrase, from SwiftNIO's errors) and `LoopbackAddress`.
        .target(
            name: "ArchiveNetwork",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The catalog's entities, its repository protocol, the bundled catalog and the
        // json-server query conventions: no network code, so the engine, the Redux
        // features and the benchmarks build without SwiftNIO.
        .target(
            name: "ArchiveAPI",
            dependencies: ["ArchiveSearch", "ArchiveSyncModel"],
            swiftSettings: swiftSettings
        ),
        // The catalog over HTTP (HTTPArchiveRepository) and the sync service's client
        // (HTTPSyncTransport): AsyncHTTPClient on SwiftNIO.
        .target(
            name: "ArchiveHTTP",
            dependencies: [
                "ArchiveAPI", "ArchiveNetwork",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ArchiveCore",
            dependencies: [
                "ArchiveSyncModel","Redux", "ArchiveStorage", "ArchiveAPI"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ArchiveTransfer",
            dependencies: [
                "ArchiveSyncModel",
                "ArchiveStorage", "SQLite",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        // A device's sync with a service (`archive sync --server`): `ServerSyncSession` over any
        // `SyncTransport`, and HTTP's (`HTTPSyncTransport`), beside the engine's file-to-file
        // `SyncSession`.
        .target(
            name: "ArchiveSyncClient",
            dependencies: [
                "ArchiveSyncModel", "ArchiveSyncWire", "ArchiveStorage", "ArchiveHTTP", "ArchiveNetwork", "ArchiveAPI",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // HTTPS to the sync service: a CA file's roots, and why a certificate was refused.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // Why a certificate was refused: its extended key usage, read from its DER
                // (swift-certificates' X509 would link Foundation into `archive`).
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - What both fronts share
        // glibc's <malloc.h> (mallopt), for FreedMemoryReuse.
        .systemLibrary(name: "CMalloc"),
        // C's <stdio.h> `ferror(stdout)`, for StandardOutputError.
        .systemLibrary(name: "CStandardIO"),
        // What every command-line program of the project shares, `archive-server` included:
        // `terminalSafeMain` (errors made safe for a terminal, every write to standard output
        // checked: `StandardOutputError`), `TerminalText`, and `DataDirectory` (XDG's).
        .target(
            name: "ArchiveCommandLine",
            dependencies: [
                "CStandardIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "ArchiveFront",
            dependencies: [
                "ArchiveSyncModel",
                "ArchiveCore", "ArchiveHTTP", "ArchiveSyncWire", "ArchiveSyncClient", "ArchiveTransfer", "ArchiveCommandLine", "CMalloc", "CStandardIO",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - The sync service
        // The sync API's request and response shapes, shared by the service and `archive sync --server`,
        // and the words both say about a network failure.
        .target(
            name: "ArchiveSyncWire",
            dependencies: ["ArchiveSyncModel"],
            swiftSettings: swiftSettings
        ),
        // An HTTP/1.1 server on Hummingbird, hardened (head, body and connection limits, idle
        // timeout, graceful shutdown: HTTPServiceRunner), and the catalog's responder, for
        // `archive-server`.
        .target(
            name: "ArchiveHTTPServer",
            dependencies: [
                "ArchiveAPI",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                // HTTPS (--tls-certificate), its pair read again on SIGHUP.
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCertificateReloading", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // The service's storage as one interface, whatever the backend: `SyncBackend`,
        // `UserDirectory`, `ServerStorageError`, device binding, the name and label rule
        // (`AccountName`), `AccessToken`. The HTTP app and every backend depend on it; it
        // depends on no backend.
        .target(
            name: "ArchiveServerStorage",
            dependencies: [
                "ArchiveSyncModel", "ArchiveSyncWire",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The service on SQLite (`archive-server --database PATH`): its own database
        // (`ServerDatabase`, Migrations/Server), `UserStore`, `SQLiteSyncBackend`, backups and
        // restores.
        .target(
            name: "ArchiveServerSQLite",
            dependencies: [
                "ArchiveServerStorage", "ArchiveSyncModel", "ArchiveSyncWire", "SQLite",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["EmbedMigrations"]
        ),
        // `archive-server`'s HTTP app, on the storage interface alone: the sync API and the
        // page on Hummingbird's Router (ServiceRouter), the users' event streams.
        .target(
            name: "ArchiveServer",
            dependencies: [
                "ArchiveServerStorage", "ArchiveSyncModel",
                "ArchiveHTTPServer", "ArchiveSyncWire", "ArchiveAPI",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "CompressNIO", package: "compress-nio"),
                // Event streams end when the server begins to stop.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["EmbedOpenAPIDocument"]
        ),
        // The service on PostgreSQL (`archive-server --postgres URL`): its own migrations
        // (Migrations/Postgres), the merge rule run by PostgreSQL itself.
        .target(
            name: "ArchiveServerPostgres",
            dependencies: [
                "ArchiveSyncModel",
                "ArchiveServerStorage", "ArchiveSyncWire", "ArchiveNetwork", "SQLite",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["EmbedMigrations"]
        ),
        .executableTarget(
            name: "ArchiveServerCLI",
            dependencies: [
                "ArchiveSyncModel",
                "ArchiveServer", "ArchiveServerStorage", "ArchiveServerSQLite", "ArchiveServerPostgres", "ArchiveHTTPServer", "ArchiveSyncWire", "ArchiveAPI", "ArchiveNetwork", "CMalloc",
                // terminalSafeMain: every write to standard output checked, errors made safe for a terminal.
                "ArchiveCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - Fronts
        // `archive`'s start-up tuning, and only `archive`'s: the main thread serving the
        // main queue (MainThreadRunLoop), libdispatch's calls and the concurrency runtime's
        // hook found at run time with a fallback (RuntimeSymbol). No dependencies.
        .target(name: "ArchiveStartup", swiftSettings: swiftSettings),
        .executableTarget(
            name: "ArchiveCLI",
            dependencies: [
                "ArchiveFront", "ArchiveStartup",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ArchiveTUI",
            dependencies: [
                "ArchiveFront",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests
        .target(
            name: "TestSupport",
            dependencies: [
                "ArchiveSyncModel","ArchiveStorage", "Redux"],
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SQLiteTests",
            dependencies: ["SQLite", "MigrationChecksum", "TestSupport", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchiveSearchTests",
            dependencies: ["ArchiveSearch", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchiveStorageTests",
            dependencies: [
                "ArchiveSyncModel","ArchiveStorage", "MigrationChecksum", "SQLite", "TestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ReliabilityHelper",
            dependencies: [
                "ArchiveSyncModel","ArchiveCore", "ArchiveStorage", "ArchiveTransfer", "ArchiveStartup", "SQLite"],
            path: "Tests/ReliabilityHelper",
            swiftSettings: swiftSettings
        ),
        // A SQLite VFS for tests that cut the power at every write (C, as SQLite's own test6.c).
        .target(
            name: "CrashVFS",
            path: "Tests/CrashVFS",
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "ArchiveServerStorage", "ArchiveServerSQLite",
                "ArchiveSyncClient", "ArchiveNetwork",
                "ArchiveSyncModel","ReliabilityHelper", "ArchiveCLI", "ArchiveCore", "ArchiveTransfer", "ArchiveStorage", "ArchiveAPI", "ArchiveHTTP", "ArchiveServer", "SQLite", "TestSupport", "CrashVFS"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ReduxTests",
            dependencies: ["Redux", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchiveAPITests",
            dependencies: [
                "ArchiveSyncClient", "ArchiveNetwork", "ArchiveAPI", "ArchiveHTTP", "ArchiveSyncModel", "ArchiveSyncWire", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchiveCLITests",
            // archive-server: the catalog the HTTP client's end-to-end tests talk to.
            dependencies: [
                "ArchiveSyncClient", "ArchiveNetwork",
                "ArchiveSyncModel","ArchiveCLI", "ArchiveServerCLI", "ArchiveStorage", "SQLite", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchiveTUITests",
            dependencies: [
                "ArchiveSyncModel","ArchiveTUI", "ArchiveCLI", "ArchiveServerCLI", "ArchiveCore", "ArchiveAPI", "ArchiveStorage", "TestSupport"],
            exclude: ["Snapshots"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchiveTransferTests",
            dependencies: [
                "ArchiveSyncModel","ArchiveTransfer", "ArchiveStorage", "SQLite", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchiveFrontTests",
            dependencies: [
                "ArchiveSyncModel","ArchiveFront", "TestSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchiveServerTests",
            dependencies: [
                "ArchiveServerStorage", "ArchiveServerSQLite",
                "ArchiveSyncClient", "ArchiveNetwork",
                "ArchiveSyncModel",
                "ArchiveServer", "ArchiveServerPostgres", "ArchiveServerCLI", "ArchiveCLI", "ArchiveHTTP", "ArchiveSyncWire", "ArchiveStorage", "SQLite", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                // DeadlineTimerTests: the timer's deadlines are SwiftNIO's.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                // The routes and middleware answered in process, without a server's start.
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // PostgresMigrationTextTests: a migration's statements run on a connection of their own.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // OpenAPIDocumentTests: docs/openapi.yaml parsed.
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchiveCoreTests",
            dependencies: [
                "ArchiveSyncModel","ArchiveCore", "ArchiveAPI", "ArchiveStorage", "Redux", "SQLite", "TestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
)
