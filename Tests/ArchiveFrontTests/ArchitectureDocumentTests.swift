import Foundation
import Testing

/// docs/ARCHITECTURE.md names every target of Package.swift: the map a newcomer reads
/// is the package they build.
@Suite(.timeLimit(.minutes(5)))
struct ArchitectureDocumentTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func everyTargetOfThePackageIsInTheModuleMap() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let architecture = try String(contentsOf: Self.root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let targetsStart = try #require(manifest.range(of: "targets: ["))
        let targets = manifest[targetsStart.upperBound...].matches(of: /\.(?:target|testTarget|executableTarget|systemLibrary|plugin)\(\s*name: "(\w+)"/).map { String($0.1) }
        #expect(targets.count >= 25, "only \(targets.count) targets found in Package.swift: the scan does not see them")
        for target in targets {
            #expect(architecture.contains("`\(target)`"), "docs/ARCHITECTURE.md does not name the target \(target)")
        }
    }
}
