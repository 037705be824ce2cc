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

    /// "Lower modules first; a module imports only what is above it": each target's
    /// dependencies in Package.swift are in rows above its own in the module map.
    @Test func theModuleMapListsEveryModuleAfterWhatItDependsOn() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let architecture = try String(contentsOf: Self.root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let rows = architecture.matches(of: /(?m)^\| `(\w+)` \|/).map { String($0.1) }
        #expect(rows.count >= 20, "only \(rows.count) rows found in the module map")
        let targetsStart = try #require(manifest.range(of: "targets: ["))
        let section = manifest[targetsStart.upperBound...]
        let starts = section.ranges(of: /\.(?:target|executableTarget|systemLibrary|plugin|testTarget)\(/).map(\.lowerBound)
        let declarations = zip(starts, starts.dropFirst() + [section.endIndex]).map { section[$0.0..<$0.1].dropFirst() }
        let names = Set(rows)
        var checked = 0
        for declaration in declarations {
            guard !declaration.hasPrefix("testTarget"), let name = declaration.firstMatch(of: /name: "(\w+)"/).map({ String($0.1) }),
                  let row = rows.firstIndex(of: name) else { continue }
            // Quoted target names other than its own: its dependencies and plugins (comments
            // stripped first; products are named by `package:` and are not targets).
            let code = declaration.split(separator: "\n").map { $0.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }.joined(separator: "\n")
            for dependency in code.matches(of: /"(\w+)"/).map({ String($0.1) }) where dependency != name && names.contains(dependency) {
                let above = rows.firstIndex(of: dependency) ?? rows.count
                #expect(above < row, "docs/ARCHITECTURE.md lists \(name) above \(dependency), which it depends on")
                checked += 1
            }
        }
        #expect(checked >= 20, "only \(checked) dependencies checked: the scan does not see them")
    }

    /// README's one `apt-get install` line for the tests is what `.ci/run` installs, package
    /// for package (it once left out four that CI installs).
    @Test func theReadmesPackagesAreWhatCIInstalls() throws {
        let run = try String(contentsOf: Self.root.appendingPathComponent(".ci/run"), encoding: .utf8)
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let list = try #require(run.firstMatch(of: /packages=\(([^)]*)\)/)).1
        let packages = list.split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(packages.count >= 20, "\(packages)")
        #expect(readme.contains("apt-get install -y " + packages.joined(separator: " ")), "README's apt-get line differs from .ci/run's packages: \(packages)")
    }

    /// README is the front door: what a newcomer reads first stays short.
    @Test func theReadmeHasAtMost150Lines() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).count - (readme.hasSuffix("\n") ? 1 : 0)
        #expect(lines <= 150, "README.md has \(lines) lines: move detail to docs/")
    }

    /// The modules of Sources/`target`, as its files import them.
    static func imports(of target: String) throws -> [(file: String, module: String)] {
        let folder = root.appendingPathComponent("Sources/\(target)")
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL])
            .filter { $0.pathExtension == "swift" }
        #expect(!files.isEmpty, "no Swift files in Sources/\(target)")
        return try files.flatMap { file in
            try String(contentsOf: file, encoding: .utf8).matches(of: /(?m)^\s*(?:@_exported\s+)?(?:public\s+|package\s+|internal\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|typealias)\s+)?(\w+)/)
                .map { (file.lastPathComponent, String($0.1)) }
        }
    }

    /// The engine's modules, which the fronts reach only through `ArchiveFront`.
    static let engineModules: Set = [
        "CSQLite", "SQLite", "MigrationChecksum", "ArchiveSearch", "ArchiveStorage", "Redux", "ArchiveAPI",
        "ArchiveHTTP", "ArchiveCore", "ArchiveTransfer", "CMalloc",
    ]

    /// No front imports a lower module: `archive` and `archive-tui` import `ArchiveFront`
    /// (and their own libraries); `ArchiveFront` itself never reaches past the engine's
    /// public modules into SQLite; only `archive` links the start-up tuning.
    @Test func noFrontImportsALowerModule() throws {
        for front in ["ArchiveCLI", "ArchiveTUI"] {
            for (file, module) in try Self.imports(of: front) {
                #expect(!Self.engineModules.contains(module), "\(front)/\(file) imports \(module): go through ArchiveFront")
                #expect(front == "ArchiveCLI" || module != "ArchiveStartup", "\(front)/\(file) imports ArchiveStartup, archive's alone")
            }
        }
        let front = try Self.imports(of: "ArchiveFront")
        #expect(front.count > 10, "the scan sees ArchiveFront's imports")
        for (file, module) in front {
            #expect(!["CSQLite", "SQLite", "ArchiveStartup"].contains(module), "ArchiveFront/\(file) imports \(module)")
        }
    }
}
