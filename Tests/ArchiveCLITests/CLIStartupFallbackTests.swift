import Foundation
import TestSupport
import Testing

/// `archive`'s start-up tuning finds libdispatch's main-queue calls and the concurrency
/// runtime's global-executor hook at run time (ArchiveStartup's `RuntimeSymbol`). A
/// toolchain that drops or renames one must cost speed, never a command: with every
/// lookup made to fail (`ARCHIVE_STARTUP_FALLBACK=1`), the commands that use the tuning
/// (`search`, `add`, `remove`) and one that does not (`favorites`) give the same answers.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct CLIStartupFallbackTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    @Test(arguments: [false, true])
    func theShortCommandsWorkWithTheStartupSymbolsAbsent(fallback: Bool) throws {
        let environment = fallback ? ["ARCHIVE_STARTUP_FALLBACK": "1"] : [:]
        func run(_ arguments: [String]) throws -> CLI.Result {
            let result = try cli.run(arguments, environment: environment)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result
        }
        #expect(try run(["add", "17"]).stderr.contains("17 stored"))
        #expect(try run(["add", "21"]).stderr.contains("21 stored"))
        let search = try #require(try run(["search", "--category", "洋食", "--json"]).json() as? [String: Any])
        let rows = try #require(search["results"] as? [[String: Any]])
        let stored = rows.filter { $0["isStored"] as? Bool == true }.compactMap { $0["id"] as? Int }
        #expect(stored.sorted() == [17, 21])
        #expect(try run(["remove", "17"]).status == 0)
        let keyword = try #require(try run(["search", "チーズ", "--json"]).json() as? [String: Any])
        #expect((keyword["results"] as? [[String: Any]])?.contains { $0["id"] as? Int == 21 } == true)
        let favorites = try #require(try run(["favorites", "--json"]).json() as? [String: Any])
        #expect((favorites["favorites"] as? [[String: Any]])?.map { $0["id"] as? Int } == [21])
    }
}
