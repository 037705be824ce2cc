import Foundation
import TestSupport
import Testing

@Suite(.serialized)
struct CLIServeTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    @Test func theHTTPCatalogModeWorksAgainstArchiveServe() throws {
        let server = try ServeProcess(cli: cli)
        #expect(server.url.hasPrefix("http://127.0.0.1:"))
        let search = try cli.run(["search", "チーズ", "--category", "洋食", "--api-url", server.url, "--json"])
        #expect(search.status == 0, "\(search.stderr)")
        let results = (try search.json() as? [String: Any])?["results"] as? [[String: Any]]
        #expect(results?.map { $0["id"] as? Int } == [17, 21, 33])

        #expect(try cli.run(["add", "28", "--api-url", server.url]).status == 0)
        let stored = try cli.run(["search", "餃子", "--json"], environment: ["ARCHIVE_API_URL": server.url])
        let rows = (try stored.json() as? [String: Any])?["results"] as? [[String: Any]]
        #expect(rows?.first { $0["id"] as? Int == 28 }?["isStored"] as? Bool == true)

        let categories = try cli.run(["categories", "--api-url", server.url, "--json"])
        #expect((try categories.json() as? [String: [String]])?["categories"]?.count == 6)
        let unknown = try cli.run(["add", "4242", "--api-url", server.url])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no dish with ID 4242"))
    }

    @Test func aFailRateOfOneAlwaysAnswers500() throws {
        let server = try ServeProcess(cli: cli, arguments: ["--fail-rate", "1"])
        for _ in 0..<3 {
            let result = try cli.run(["search", "--api-url", server.url])
            #expect(result.status == 1)
            #expect(result.stderr.contains("HTTP 500"))
        }
    }
}
