import Foundation
import TestSupport
import Testing

/// `archive search` when the catalog cannot answer: the matching favorites,
/// a note on stderr, exit 0, and `source`/`reason` in `--json`.
@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct CLIOfflineTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
        for id in [4, 17, 21, 33] {
            #expect(try cli.run(["add", String(id)]).status == 0)
        }
    }

    func offlineSearch(_ arguments: [String], url: String) throws -> (result: CLI.Result, json: [String: Any]) {
        let result = try cli.run(["search", "--json", "--api-url", url, "--timeout", "2"] + arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return (result, try #require(try result.json() as? [String: Any]))
    }

    @Test func unreachableTimeoutServerErrorAndMalformedAnswersAllFallBackToTheFavorites() throws {
        let hung = try HostileHTTPServer(.hang)
        let failing = try HostileHTTPServer(.raw("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n"))
        let garbage = try HostileHTTPServer(.raw("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{\"not\": ["))
        let cases: [(String, String)] = [
            ("http://127.0.0.1:1", "cannot reach http://127.0.0.1:1"),
            (hung.url, "did not answer within 2 s"),
            (failing.url, "answered HTTP 503"),
            (garbage.url, "did not return JSON"),
        ]
        for (url, why) in cases {
            let (result, json) = try offlineSearch(["チーズ"], url: url)
            #expect(json["source"] as? String == "favorites")
            #expect((json["reason"] as? String)?.contains(why) == true, "\(json["reason"] ?? "no reason")")
            #expect((json["results"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [33, 21, 17])
            #expect((json["results"] as? [[String: Any]])?.allSatisfy { $0["isStored"] as? Bool == true } == true)
            #expect(json["count"] as? Int == 3 && json["keyword"] as? String == "チーズ")
            #expect(result.stderr.contains("offline — showing your favorites: "), "\(result.stderr)")
        }
        let category = try offlineSearch(["チーズ", "--category", "洋食"], url: "http://127.0.0.1:1").json
        #expect((category["results"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [33, 21, 17])
        let soba = try offlineSearch(["蕎"], url: "http://127.0.0.1:1").json
        #expect((soba["results"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [4])
    }

    @Test func theHumanOutputListsTheFavoritesAndACatalogAnswerHasSourceCatalog() throws {
        let offline = try cli.run(["search", "チーズ", "--api-url", "http://127.0.0.1:1"])
        #expect(offline.status == 0)
        #expect(offline.stdout.split(separator: "\n").filter { $0.hasPrefix("♥") }.count == 3)
        #expect(offline.stderr.hasPrefix("offline — showing your favorites: cannot reach http://127.0.0.1:1"))
        let online = try #require(try cli.run(["search", "チーズ", "--json"]).json() as? [String: Any])
        #expect(online["source"] as? String == "catalog")
        #expect(online["reason"] == nil)
    }

    @Test func aReasonFromTheServerNeverReachesTheTerminalRaw() throws {
        let hostile = try HostileHTTPServer(.raw("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 14\r\n\r\n[{\"id\": \"\u{1B}[2J\"}]"))
        let result = try cli.run(["search", "--api-url", hostile.url])
        #expect(result.status == 0)
        #expect(result.stderr.contains("offline"), "\(result.stderr)")
        #expect(!result.stderr.contains("\u{1B}"))
    }
}
