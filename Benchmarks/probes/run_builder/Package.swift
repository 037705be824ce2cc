// swift-tools-version:6.0
// A probe, not part of the package: what building the favorites search index's runs
// costs in Swift (ArchiveSearch's SearchRunBuilder), to set beside bulk_index_probe.c's
// figures for the same favorites. See Sources/RunBuilderProbe/main.swift.
import PackageDescription

let package = Package(
    name: "RunBuilderProbe",
    dependencies: [.package(name: "FavoriteArchive", path: "../../..")],
    targets: [
        .executableTarget(
            name: "RunBuilderProbe",
            dependencies: [.product(name: "ArchiveSearch", package: "FavoriteArchive")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
