// swift-tools-version: 6.1
import Foundation
import PackageDescription

// The root package is a path dependency, so its identity is its directory's name.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

/// Benchmarks of the storage engine against raw C over libsqlite3, idiomatic
/// GRDB and the original app's approach. Its own package, so that the main
/// build does not carry GRDB and the benchmark harness.
let package = Package(
    name: "FavoriteArchiveBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // The practical limit: the same SQL and pragmas, called from C.
        .target(
            name: "CRawSQLitePeer",
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),
        // The engine and its three peers behind one interface, and the shared workload data.
        .target(
            name: "BenchmarkPeers",
            dependencies: [
                "CRawSQLitePeer",
                .product(name: "ArchiveStorage", package: root),
                .product(name: "ArchiveSyncModel", package: root),
                .product(name: "ArchiveCore", package: root),
                .product(name: "ArchiveAPI", package: root),
                .product(name: "Redux", package: root),
                .product(name: "SQLite", package: root),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .executableTarget(name: "PrepareFixtures", dependencies: ["BenchmarkPeers"]),
        // Standalone merges, for whole-process peak memory (process.sh): the engine, and pure C.
        .target(name: "MergeWorkload"),
        .executableTarget(
            name: "MergeProcess",
            dependencies: ["MergeWorkload", .product(name: "ArchiveStorage", package: root), .product(name: "ArchiveSyncModel", package: root)]
        ),
        // What bounds the cold rows (process.sh): the runtime's floor for an async command.
        .executableTarget(name: "AsyncFloor", dependencies: [.product(name: "ArchiveStartup", package: root)]),
        // Whole-process peak memory, measured from a parent small enough not to raise it.
        .executableTarget(name: "PeakRSS"),
        .executableTarget(name: "RawCMergeProcess", linkerSettings: [.linkedLibrary("sqlite3")]),
        .executableTarget(
            name: "StorageBenchmarks",
            dependencies: [
                "BenchmarkPeers",
                "MergeWorkload",
                .product(name: "ArchiveStorage", package: root),
                .product(name: "ArchiveSyncModel", package: root),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/StorageBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
