import ArchiveAPI
import ArchiveHTTP
import Foundation
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(5)))
struct HTTPArchiveRepositoryTests {
    /// Generous: these tests are about answers, not time, and the suite shares two cores with process-heavy tests.
    static let patient = Duration.seconds(60)

    static let twoDishes = """
        [{"id": 17, "photoUrl": "https://p/17.jpg", "category": "洋食", "dishName": "チーズハンバーグ", "shopName": "グリル銀河", "introduction": "チーズ"},
         {"id": 33, "photoUrl": "https://p/33.jpg", "category": "洋食", "dishName": "チーズオムレツ", "shopName": "カナリヤ", "introduction": "卵"}]
        """

    /// Runs `body` against a server answering with `handler`, then stops the server.
    func withServer(
        _ handler: @escaping @Sendable (TestCatalogServer.Request) async throws -> TestCatalogServer.Reply,
        _ body: (String) async throws -> Void
    ) async throws {
        let server = TestCatalogServer(handler: handler)
        let base = try await server.start()
        do {
            try await body(base)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func aSearchSendsTheConditionsAsQueryItemsAndDecodesTheEntities() async throws {
        let requests = Recorder<String>()
        try await withServer({ request in
            requests.append("\(request.path)?\(request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&"))")
            return TestCatalogServer.Reply.json(Self.twoDishes)
        }) { base in
            let repository = try HTTPArchiveRepository(baseURL: base, timeout: Self.patient)
            let entities = try await repository.getArchiveResponse(keyword: "チーズ", category: "洋食")
            #expect(entities.map(\.id) == [17, 33])
            #expect(entities.first?.dishName == "チーズハンバーグ")
            _ = try await repository.getArchiveResponse(keyword: "", category: "")
            _ = try await repository.getArchiveResponse(keyword: "", category: "中華")
        }
        // A GET whose connection the server closed before answering is sent once more
        // (idempotent), so a request may reach the server twice in a row.
        let distinct = requests.values.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(distinct == [
            "/archive_images?q=チーズ&category=洋食",
            "/archive_images?",
            "/archive_images?category=中華",
        ])
    }

    @Test func oneEntityByIDAnd404IsNotFound() async throws {
        try await withServer({ request in
            request.path == "/archive_images/17"
                ? TestCatalogServer.Reply.json(#"{"id": 17, "photoUrl": "u", "category": "洋食", "dishName": "d", "shopName": "s", "introduction": "i"}"#)
                : .status(404)
        }) { base in
            let repository = try HTTPArchiveRepository(baseURL: base, timeout: Self.patient)
            #expect(try await repository.getArchiveEntity(id: 17).id == 17)
            await #expect(throws: ArchiveAPIError.notFound(id: 18, source: "\(base)/archive_images/18")) {
                try await repository.getArchiveEntity(id: 18)
            }
        }
    }

    @Test func aServerErrorIsABadStatusNamingTheURL() async throws {
        try await withServer({ _ in .status(500) }) { base in
            let repository = try HTTPArchiveRepository(baseURL: base, timeout: Self.patient)
            let error = try await #require(throws: ArchiveAPIError.self) {
                try await repository.getArchiveResponse(keyword: "", category: "")
            }
            #expect(error == .badStatus(url: "\(base)/archive_images", status: 500))
            #expect(error.description.contains("HTTP 500"))
        }
    }

    @Test func aBodyThatIsNotJSONIsMalformed() async throws {
        try await withServer({ _ in TestCatalogServer.Reply.json("<html>oops</html>") }) { base in
            let repository = try HTTPArchiveRepository(baseURL: base, timeout: Self.patient)
            let error = try await #require(throws: ArchiveAPIError.self) {
                try await repository.getArchiveResponse(keyword: "", category: "")
            }
            guard case .malformedJSON(let url, let reason) = error else {
                Issue.record("expected malformedJSON, got \(error)")
                return
            }
            #expect(url == "\(base)/archive_images")
            #expect(reason.contains("<html>"))
        }
    }

    @Test(arguments: [
        (#"{"id": 1}"#, "the top level: expected an array"),
        (#"[{"id": "seventeen", "photoUrl": "u", "category": "c", "dishName": "d", "shopName": "s", "introduction": "i"}]"#, "[0].id"),
        (#"[{"id": 17, "photoUrl": "u", "category": "c", "shopName": "s", "introduction": "i"}]"#, "dishName"),
    ])
    func jsonOfAnotherShapeIsAnUnexpectedShapeSayingWhere(body: String, mention: String) async throws {
        try await withServer({ _ in TestCatalogServer.Reply.json(body) }) { base in
            let repository = try HTTPArchiveRepository(baseURL: base, timeout: Self.patient)
            let error = try await #require(throws: ArchiveAPIError.self) {
                try await repository.getArchiveResponse(keyword: "", category: "")
            }
            guard case .unexpectedShape(_, let reason) = error else {
                Issue.record("expected unexpectedShape, got \(error)")
                return
            }
            #expect(reason.contains(mention), "\(reason)")
        }
    }

    @Test func aServerThatDoesNotAnswerInTimeIsATimeout() async throws {
        let release = Gate()
        try await withServer({ _ in
            await release.wait()
            return TestCatalogServer.Reply.json("[]")
        }) { base in
            let repository = try HTTPArchiveRepository(baseURL: base, timeout: .milliseconds(300))
            let error = try await #require(throws: ArchiveAPIError.self) {
                try await repository.getArchiveResponse(keyword: "", category: "")
            }
            #expect(error == .timeout(url: "\(base)/archive_images", seconds: 0.3))
            await release.open()
        }
    }

    @Test func aClosedPortIsUnreachable() async throws {
        // Port 1 is privileged and outside the ephemeral range, so no test server can ever be
        // listening there. (A port freed by stopping a server could be taken at once by another
        // test's server running in parallel — one that never answers turned this into a timeout.)
        let base = "http://127.0.0.1:1"
        let repository = try HTTPArchiveRepository(baseURL: base, timeout: .seconds(5))
        let error = try await #require(throws: ArchiveAPIError.self) {
            try await repository.getArchiveResponse(keyword: "", category: "")
        }
        guard case .unreachable(let url, _) = error else {
            Issue.record("expected unreachable, got \(error)")
            return
        }
        #expect(url == "\(base)/archive_images")
    }

    @Test(arguments: ["", "not a url", "ftp://example.com", "/relative/path", "http://"])
    func aBaseURLThatIsNotHTTPIsRefused(text: String) {
        #expect(throws: ArchiveAPIError.invalidBaseURL(text)) { try HTTPArchiveRepository(baseURL: text) }
    }

    @Test(arguments: ["http://127.0.0.1:3000/api?token=abc", "http://127.0.0.1:3000/#top", "http://127.0.0.1:3000?", "https://h/x?a=1#b"])
    func aBaseURLWithAQueryOrAFragmentIsRefused(text: String) {
        #expect(throws: ArchiveAPIError.baseURLWithQueryOrFragment(text)) { try HTTPArchiveRepository(baseURL: text) }
    }
}
