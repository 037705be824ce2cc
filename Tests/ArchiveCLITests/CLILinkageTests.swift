import Foundation
import TestSupport
import Testing

/// What the `archive` binary loads at every start: FoundationEssentials, not the
/// whole of Foundation. Foundation brings CoreFoundation and ICU with it: their
/// relocations, their constructors and their class setup, about a fifth of a
/// cold `archive search` (docs/PERFORMANCE.md). One `import Foundation` in a module the
/// binary links brings them all back; this test names the module's library.
///
/// (After an incremental build that *removed* such an import, the objects
/// SwiftPM did not recompile may still ask for Foundation: a clean build of the
/// changed modules settles it.)
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct CLILinkageTests {
    @Test func theArchiveBinaryLinksFoundationEssentialsButNotFoundation() throws {
        let result = try ChildProcess.run(
            try Prerequisite.path(of: "readelf", debianPackage: "binutils"), ["--dynamic", CLI.executable.path], environment: [:], input: .null, timeout: .seconds(60))
        try #require(result.status == 0, "\(result.stderr)")
        let needed = result.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }.map { line in
            line.split(separator: "[").last.map { String($0.dropLast()) } ?? String(line)
        }
        try #require(!needed.isEmpty, "\(result.stdout)")
        // A static build (`--static-swift-stdlib`) names no Swift library at all; a
        // dynamic one names FoundationEssentials and must name no other Foundation.
        let foundations = needed.filter { $0.contains("Foundation") }
        #expect(foundations.allSatisfy { $0 == "libFoundationEssentials.so" }, "\(needed)")
        #expect(!needed.contains { $0.contains("ICU") || $0.contains("icu") }, "\(needed)")
    }

    /// The servers' libraries stay out of `archive`: the catalog is served by
    /// `archive-server` (Hummingbird), which alone links PostgresNIO too. Their Swift
    /// symbols carry their module's name (`11Hummingbird`, `11PostgresNIO`).
    @Test func theArchiveBinaryLinksNoServerLibrary() throws {
        let nm = try Prerequisite.path(of: "nm", debianPackage: "binutils")
        let client = try ChildProcess.run(nm, [CLI.executable.path], environment: [:], input: .null, timeout: .seconds(120))
        try #require(client.status == 0, "\(client.stderr)")
        for module in ["11Hummingbird", "11PostgresNIO", "13ArchiveServer"] {
            #expect(!client.stdout.contains(module), "archive links \(module.drop { $0.isNumber })")
        }
        let server = try ChildProcess.run(nm, [ServeProcess.executable.path], environment: [:], input: .null, timeout: .seconds(120))
        #expect(server.stdout.contains("11Hummingbird") && server.stdout.contains("11PostgresNIO"), "the check reads mangled module names")
    }
}
