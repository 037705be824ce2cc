import Foundation
import Testing

/// Every suite of the project's tests has a time limit, so that a hang fails within
/// minutes and names its suite instead of running until CI's own limit.
@Suite(.timeLimit(.minutes(5)))
struct SuiteTimeLimitTests {
    /// The `Tests` folder, from this file's path.
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    /// Each type declared at the top level of a test file that holds `@Test` functions,
    /// with the attributes written on the lines above it.
    static func suites(inFile path: String) throws -> [(name: String, attributes: String)] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        var suites: [(String, String)] = []
        for (index, line) in lines.enumerated() {
            guard let match = line.firstMatch(of: /^(?:@Suite(?:\([^\n]*\))? )?(?:final class|class|struct|enum) (\w+)/) else { continue }
            let end = lines[(index + 1)...].firstIndex { $0.hasPrefix("}") } ?? lines.count
            guard lines[index..<end].contains(where: { $0.contains("@Test") }) else { continue }
            var attributes = [line]
            var above = index - 1
            while above >= 0, lines[above].hasPrefix("@"), !lines[above].hasPrefix("@testable") {
                attributes.append(lines[above])
                above -= 1
            }
            suites.append((String(match.1), attributes.joined(separator: "\n")))
        }
        return suites
    }

    @Test func everySuiteHasATimeLimit() throws {
        let files = try #require(FileManager.default.enumerator(atPath: Self.testsFolder.path))
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var checked = 0
        for file in files {
            for suite in try Self.suites(inFile: Self.testsFolder.appendingPathComponent(file).path) {
                checked += 1
                #expect(suite.attributes.contains("@Suite(") && suite.attributes.contains(".timeLimit("),
                        "\(file): \(suite.name) has no @Suite(.timeLimit(…))")
            }
        }
        #expect(checked >= 70, "only \(checked) suites found: the scan does not see them")
    }
}
