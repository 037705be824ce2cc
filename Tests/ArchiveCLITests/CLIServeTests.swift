import Foundation
import TestSupport
import Testing

@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct CLIServeTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    @Test func theHTTPCatalogModeWorksAgainstArchiveServer() throws {
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

    @Test func aPortInUseIsAClearFailure() throws {
        let server = try ServeProcess(cli: cli)
        let port = try #require(URL(string: server.url)?.port)
        // On a database of its own: a second server on the same file is refused before it
        // tries the port (SQLiteOneServerTests).
        let second = try ChildProcess.run(
            ServeProcess.executable.path, ["--database", cli.directory.url.appendingPathComponent("second.sqlite3").path, "--port", String(port)],
            environment: cli.environment(), timeout: .seconds(30))
        #expect(second.status == 1)
        #expect(second.stderr.contains("cannot serve on 127.0.0.1:\(port)"), "\(second.stderr)")
        #expect(second.stderr.contains("pick another --port"))
    }

    @Test func aFailRateOfOneAlwaysAnswers500() throws {
        let server = try ServeProcess(cli: cli, arguments: ["--fail-rate", "1"])
        for _ in 0..<3 {
            let result = try cli.run(["search", "--api-url", server.url, "--json"])
            #expect(result.status == 0)
            #expect((try result.json() as? [String: Any])?["source"] as? String == "favorites")
            #expect(result.stderr.contains("HTTP 500"))
        }
    }

    @Test func jsonServerConventionsOnTheWire() throws {
        let server = try ServeProcess(cli: cli)
        let connection = try RawHTTPConnection(url: server.url)
        func ids(_ target: String) throws -> [Int] {
            let response = try connection.request(target)
            #expect(response.status == 200, "\(target): \(response.text)")
            return (try response.json() as? [[String: Any]])?.compactMap { $0["id"] as? Int } ?? []
        }
        // 洋食屋 グリル銀河, with + for the space and percent-escaped UTF-8.
        #expect(try ids("/archive_images?q=%E6%B4%8B%E9%A3%9F%E5%B1%8B+%E3%82%B0%E3%83%AA%E3%83%AB") == [12, 13, 17])
        #expect(try ids("/archive_images?q=DISHES/0017.JPG") == [17], "every string field, ignoring case")
        #expect(try ids("/archive_images?id=17&id=33&id=21") == [17, 21, 33])
        #expect(try ids("/archive_images?id=17&category=%E5%92%8C%E9%A3%9F") == [])

        let page = try connection.request("/archive_images?_page=2&_limit=5&_sort=id&_order=desc")
        #expect(page.status == 200)
        #expect((try page.json() as? [[String: Any]])?.compactMap { $0["id"] as? Int } == [61, 60, 59, 58, 57])
        #expect(page.header("X-Total-Count") == "66")
        #expect(page.header("Link") == [
            "<\(server.url)/archive_images?_limit=5&_sort=id&_order=desc&_page=1>; rel=\"first\"",
            "<\(server.url)/archive_images?_limit=5&_sort=id&_order=desc&_page=1>; rel=\"prev\"",
            "<\(server.url)/archive_images?_limit=5&_sort=id&_order=desc&_page=3>; rel=\"next\"",
            "<\(server.url)/archive_images?_limit=5&_sort=id&_order=desc&_page=14>; rel=\"last\"",
        ].joined(separator: ", "))

        let one = try connection.request("/archive_images/17")
        #expect((try one.json() as? [String: Any])?["dishName"] as? String == "チーズハンバーグ")
        for missing in ["/archive_images/9999", "/archive_images/abc", "/archive_images/-1", "/archive_images/17/x", "/other"] {
            #expect(try connection.request(missing).status == 404, "\(missing)")
        }
        let bad = try connection.request("/archive_images?_page=0")
        #expect(bad.status == 400)
        #expect((try bad.json() as? [String: String])?["error"]?.contains("_page must be a whole number ≥ 1") == true)
    }

    /// One meaning of "keyword": the bundled catalog and the HTTP catalog mode
    /// (the client's request, `serve`'s `q`) find the same dishes for every keyword,
    /// including ones with characters a query string must escape. Every HTTP answer
    /// must come from the catalog (a request the server refuses falls back to the
    /// stored favorites, which would compare as empty), and the keywords are chosen
    /// so that an escaping bug changes the answer: `+` sent raw reads as a space
    /// ("グリル+銀河" would find three dishes), a `%` escape decoded twice finds
    /// チーズ, a raw `&…=…` adds a category filter, a raw `%` is a malformed query.
    @Test func theBundledAndTheHTTPCatalogAgreeOnEveryKeyword() throws {
        let server = try ServeProcess(cli: cli)
        let keywords = [
            "チーズ", "ちーず", "CHEESE", "dishes/0017", "グリル銀河", "洋食屋 グリル", "  蕎麦  ", ".JPG",
            "グリル+銀河", "%E3%83%81%E3%83%BC%E3%82%BA", "100%", "&category=和食", "a+b", "&", "=", "#17", "?q=チーズ",
        ]
        var found = 0
        for keyword in keywords {
            for category in ["", "洋食"] {
                let arguments = ["search", keyword, "--category", category, "--json"]
                let bundled = try cli.run(arguments)
                let http = try cli.run(arguments + ["--api-url", server.url])
                #expect(bundled.status == 0 && http.status == 0, "\(http.stderr)")
                let json = { (result: CLI.Result) in try? result.json() as? [String: Any] }
                let ids = { (result: CLI.Result) in (json(result)?["results"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } }
                #expect(json(http)?["source"] as? String == "catalog", "\(keyword): the HTTP search did not reach the catalog: \(http.stderr)")
                #expect(ids(bundled) == ids(http), "\(keyword) in \(category.isEmpty ? "every category" : category)")
                #expect(ids(bundled) != nil)
                found += ids(http)?.count ?? 0
            }
        }
        #expect(found >= 20, "the comparison is not vacuous: the keywords found \(found) dishes in all")
    }

    // MARK: - Stopping

    /// An answer `--delay` keeps for an hour, already in the server's hands (so a
    /// graceful shutdown has something to wait for), on its own connection.
    func answerInProgress(_ server: ServeProcess) throws -> RawHTTPConnection {
        let slow = try RawHTTPConnection(url: server.url)
        #expect(slow.send("GET /archive_images/17 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        #expect(slow.waitUntilServerHasRead(), "the server never read the request")
        return slow
    }

    /// SIGTERM waits for answers in progress no longer than `--shutdown-timeout`, then
    /// stops them (it waited as long as they took: an hour here).
    @Test func sigtermWaitsForAnswersNoLongerThanTheShutdownTimeout() throws {
        let server = try ServeProcess(cli: cli, arguments: ["--delay", "3600000", "--shutdown-timeout", "0.5"])
        let slow = try answerInProgress(server)
        server.process.signal(SIGTERM)
        let ended = server.process.wait(orKillAfter: Deadline.standard)
        #expect(ended != nil, "serve still waited for its hour-long answer a minute after SIGTERM")
        #expect(ended?.status == 0, "\(ended?.stderr ?? "")")
        #expect(ended?.stderr.contains("stopping: no new connections; answers in progress get 0.5 s") == true, "\(ended?.stderr ?? "")")
        #expect(slow.waitForClose(timeout: Deadline.standard))
    }

    /// The first ctrl-c closes the listener and waits (here up to an hour); the second
    /// stops at once.
    @Test func aSecondInterruptStopsAtOnce() throws {
        let server = try ServeProcess(cli: cli, arguments: ["--delay", "3600000", "--shutdown-timeout", "3600"])
        let slow = try answerInProgress(server)
        server.process.signal(SIGINT)
        // Stopping has begun once the listener is closed: a new connection is refused.
        // (A closed listener announces itself to no one: polled.)
        #expect(Deadline.poll { (try? RawHTTPConnection(url: server.url)) == nil }, "the listener is closed after the first ctrl-c")
        #expect(!server.process.hasExited, "the first ctrl-c waits for the answer in progress")
        server.process.signal(SIGINT)
        let ended = server.process.wait(orKillAfter: Deadline.standard)
        #expect(ended != nil, "a second ctrl-c did not stop serve")
        #expect(ended?.status == 0, "\(ended?.stderr ?? "")")
        #expect(slow.waitForClose(timeout: Deadline.standard))
    }

    /// `--shutdown-timeout` out of range is refused before anything is served.
    @Test func aShutdownTimeoutOutOfRangeIsRefused() throws {
        for value in ["-1", "3601", "nan", "inf"] {
            let result = try ServeProcess.run(["--port", "0", "--shutdown-timeout", value], cli: cli)
            #expect(result.status == 64, "\(value): \(result.stderr)")
            #expect(result.stderr.contains("--shutdown-timeout must be between 0 and 3600 seconds"), "\(value): \(result.stderr)")
        }
    }
}
