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
        .library(name: "ArchiveStorage", targets: ["ArchiveStorage"]),
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
        .executableTarget(
            name: "MigrationsEmbedder",
            dependencies: ["SQLite"],
            swiftSettings: swiftSettings
        ),
        .plugin(
            name: "EmbedMigrations",
            capability: .buildTool(),
            dependencies: ["MigrationsEmbedder"]
        ),
        .target(
            name: "ArchiveStorage",
            dependencies: ["SQLite"],
            swiftSettings: swiftSettings,
            plugins: ["EmbedMigrations"]
        ),

        // MARK: - Tests
        .target(
            name: "TestSupport",
            path: "Tests/TestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SQLiteTests",
            dependencies: ["SQLite", "TestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ArchiveStorageTests",
            dependencies: ["ArchiveStorage", "SQLite", "TestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
)
