import ArchiveServerStorage
import ArchiveServerSQLite
import ArchiveAPI
import ArchiveHTTPServer
import ArchiveServer
import ArchiveStorage
import ArchiveSyncWire
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SQLite
import Testing
import ArchiveSyncModel

/// The service's routes and middleware answered in process (HummingbirdTesting's router
/// framework: no process, no socket), on an in-memory database.
@Suite(.timeLimit(.minutes(5)))
struct ServiceRouterTests {
    /// The SQLite backend, with three faults a test may set: page reads that fail with an
    /// error no route expects, pushes and reads that never answer (until cancelled), and a
    /// hook run while the open streams are checked.
    struct StubBackend: SyncBackend {
        struct Unexpected: Error, CustomStringConvertible {
            var description: String { "SECRET-INSIDE /var/lib/archive/server.sqlite3" }
        }

        let inner: SQLiteSyncBackend
        var failsPages = false
        var hangs = false
        var whileChecking: @Sendable () -> Void = {}

        func authenticate(_ token: AccessToken) async throws -> AuthenticatedUser? { try await inner.authenticate(token) }
        func push(_ changes: [FavoriteChange], from device: DeviceID, through: Int64, seen: Int64, for user: AuthenticatedUser) async throws -> SyncPushResponse {
            if hangs { try await Self.hang() }
            return try await inner.push(changes, from: device, through: through, seen: seen, for: user)
        }
        func pull(for user: AuthenticatedUser, device: DeviceID, after cursor: Int64, limit: Int) async throws -> SyncPullResponse {
            try await inner.pull(for: user, device: device, after: cursor, limit: limit)
        }
        func redeemSignInLink(_ secret: AccessToken, device: DeviceID, session: AccessToken, sessionEnd: Int64) async throws -> SignInOutcome {
            try await inner.redeemSignInLink(secret, device: device, session: session, sessionEnd: sessionEnd)
        }
        func endSession(_ user: AuthenticatedUser) async throws { try await inner.endSession(user) }
        func signInTarget(of secret: AccessToken) async throws -> SignInTarget? { try await inner.signInTarget(of: secret) }
        func favorites(of user: AuthenticatedUser, matching: String, after: FavoritesPosition?, limit: Int, window: Int) async throws -> FavoritesPage {
            if failsPages { throw Unexpected() }
            if hangs { try await Self.hang() }
            return try await inner.favorites(of: user, matching: matching, after: after, limit: limit, window: window)
        }
        func held(_ ids: [Int], of user: AuthenticatedUser) async throws -> HeldFavorites {
            if failsPages { throw Unexpected() }
            return try await inner.held(ids, of: user)
        }
        func stillValid(_ identities: Set<StreamIdentity>) async throws -> Set<StreamIdentity> {
            whileChecking()
            return try await inner.stillValid(identities)
        }
        func isHealthy() async -> Bool { await inner.isHealthy() }

        /// Waits until cancelled (a database that never answers).
        static func hang() async throws {
            let never = AsyncStream<Void> { _ in }
            for await _ in never {}
            throw CancellationError()
        }
    }

    /// An application of the service's router on a new in-memory database with user
    /// alice, and alice's token.
    private static func application(
        failingPages: Bool = false, hanging: Bool = false, limits: SyncServiceLimits = SyncServiceLimits()
    ) throws -> (some ApplicationProtocol, String, UserStore) {
        let database = try ServerDatabase(path: Database.inMemoryPath)
        let users = UserStore(database: database)
        let token = try users.add("alice", now: 1)
        let sqlite = SQLiteSyncBackend(database: database)
        let backend = StubBackend(inner: sqlite, failsPages: failingPages, hangs: hanging)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let router = try ServiceRouter(
            backend: backend, limits: limits, catalog: CatalogResponder(catalog: BundledArchiveRepository(), baseURL: { "http://test" }),
            events: FeedEvents(), overHTTPS: false, logger: logger
        ).router()
        return (Application(router: router, logger: logger), token.text, users)
    }

    /// Where the test keeps the stream the audit's hook opened.
    final class Gate: @unchecked Sendable {
        // @unchecked Sendable: written once by the audit's one call, read after it returns.
        var stream: AsyncStream<Void>?
    }

    @Test("the streams' audit ends only the streams it asked about: one opened while the backend answers stays open")
    func theAuditLeavesNewStreamsAlone() async throws {
        let database = try ServerDatabase(path: Database.inMemoryPath)
        let users = UserStore(database: database)
        let sqlite = SQLiteSyncBackend(database: database)
        let first = try #require(try await sqlite.authenticate(try users.add("alice", now: 1)))
        let second = try #require(try await sqlite.authenticate(try users.addDevice("tui", of: "alice", now: 1)))
        let events = FeedEvents()
        let gate = Gate()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        // While the backend checks the streams, another one opens.
        let racing = StubBackend(inner: sqlite, whileChecking: { gate.stream = events.subscribe(StreamIdentity(second)) })
        let audit = StreamAudit(backend: racing, events: events, logger: logger)
        let early = try #require(events.subscribe(StreamIdentity(first)))
        await audit.audit()
        #expect(events.identities == [StreamIdentity(first), StreamIdentity(second)], "the stream opened during the round was ended")
        withExtendedLifetime((early, gate.stream)) {}
    }

    @Test("a method not served is 405 with Allow, before any token is read")
    func methodsNotServed() async throws {
        let (app, _, _) = try Self.application()
        try await app.test(.router) { client in
            try await client.execute(uri: SyncAPI.pullPath, method: .delete) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "GET")
            }
            try await client.execute(uri: "/health", method: .post) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "GET, HEAD")
            }
            // QUERY (the safe method with a body being added to HTTP) too: schemathesis found it 404.
            let query = try #require(HTTPRequest.Method("QUERY"))
            for path in ["/health", SyncAPI.pushPath, "/v1/openapi.yaml", "/archive_images/1"] {
                try await client.execute(uri: path, method: query) { response in
                    #expect(response.status == .methodNotAllowed, "QUERY \(path)")
                    #expect(response.headers[.allow] != nil, "QUERY \(path)")
                }
            }
            try await client.execute(uri: "/favorites", method: .put) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "GET, HEAD")
                #expect(response.headers[HTTPField.Name("Content-Security-Policy")!] != nil, "a page's refusal has the page's headers")
            }
        }
    }

    @Test("the bearer authenticator: one answer for every failure, the identity in the context for a good token")
    func bearerAuthentication() async throws {
        let (app, token, _) = try Self.application()
        try await app.test(.router) { client in
            for headers: HTTPFields in [[:], [.authorization: "Basic abc"], [.authorization: "Bearer fa_" + String(repeating: "A", count: 43)], [.authorization: "Bearer"]] {
                try await client.execute(uri: SyncAPI.pullPath + "?device=" + Changes.device(1).description, method: .get, headers: headers) { response in
                    #expect(response.status == .unauthorized)
                    #expect(response.headers[.wwwAuthenticate] == "Bearer")
                    #expect(String(buffer: response.body) == #"{"error":"unauthorized"}"#)
                }
            }
            try await client.execute(uri: SyncAPI.pullPath + "?device=" + Changes.device(1).description, method: .get, headers: [.authorization: "bearer " + token]) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
        }
    }

    @Test("a path of no route is the API's JSON 404; a body left unread closes the connection")
    func notFoundAndUnreadBodies() async throws {
        let (app, _, _) = try Self.application()
        try await app.test(.router) { client in
            try await client.execute(uri: "/nothing/here", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(String(buffer: response.body).contains("the sync API is at /v1/sync/push"))
            }
            try await client.execute(uri: "/health", method: .get, body: ByteBuffer(string: "unasked")) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.connection] == "close", "a body nobody reads is never read")
            }
        }
    }

    @Test("a page that fails with an error nobody expects is a page with the page's headers, never the server's inside")
    func unexpectedPageErrorsArePages() async throws {
        let (app, _, users) = try Self.application(failingPages: true)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let link = try users.createSignInLink(for: "alice", label: "phone", now: now, expiresAt: now + 600_000)
        try await app.test(.router) { client in
            let cookie = try await client.execute(
                uri: "/signin", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: "link=" + link.text)
            ) { response in
                #expect(response.status == .seeOther)
                return String(response.headers[.setCookie]?.split(separator: ";").first ?? "")
            }
            try await client.execute(uri: "/favorites", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .internalServerError)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(response.headers[HTTPField.Name("Content-Security-Policy")!] != nil)
                #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
                let page = String(buffer: response.body)
                #expect(page.contains("request "), "the page names the request's ID")
                #expect(!page.contains("SECRET-INSIDE") && !page.contains("/var/lib"), "\(page)")
            }
        }
    }

    /// A sign-in link of alice's for a new device.
    private static func link(_ users: UserStore) throws -> AccessToken {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        return try users.createSignInLink(for: "alice", label: "phone", now: now, expiresAt: now + 600_000)
    }

    /// Signs in by `link`; the session's cookie (`name=value`) and the CSRF token its page shows.
    private static func signIn(_ client: some TestClientProtocol, link: String) async throws -> (cookie: String, csrf: String) {
        let cookie = try await client.execute(
            uri: "/signin", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: "link=" + link)
        ) { response in
            #expect(response.status == .seeOther)
            return String(response.headers[.setCookie]?.split(separator: ";").first ?? "")
        }
        let csrf = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { response in
            #expect(response.status == .ok)
            let page = String(buffer: response.body)
            guard let start = page.range(of: #"data-csrf=""#)?.upperBound, let end = page[start...].firstIndex(of: "\"") else { return "" }
            return String(page[start..<end])
        }
        #expect(!csrf.isEmpty)
        return (cookie, csrf)
    }

    @Test("a refusal without a link back shows none (an absent link is not the text \"nil\")")
    func aRefusalWithoutALinkShowsNone() async throws {
        let (app, _, users) = try Self.application()
        let link = try Self.link(users)
        try await app.test(.router) { client in
            let (cookie, csrf) = try await Self.signIn(client, link: link.text)
            try await client.execute(
                uri: "/web/heart", method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "id=999999999&keep=1&csrf=" + csrf)
            ) { response in
                let page = String(buffer: response.body)
                #expect(response.status == .notFound)
                #expect(page.contains("The catalog has no dish 999999999."))
                #expect(!page.contains("nil"), "\(page)")
                #expect(!page.contains(">Back</a>"))
            }
        }
    }

    @Test("the request's deadline bounds every route's work with the database: a push and a heart that never end are 503 in their group's form")
    func deadlinesAreTheFrames() async throws {
        var limits = SyncServiceLimits()
        // Long enough that the calls that do answer (the token's check, a sign-in, the
        // page's own read) never pass it on a busy machine; the three that hang take it each.
        limits.requestTimeout = .seconds(10)
        let (app, token, users) = try Self.application(hanging: true, limits: limits)
        let link = try Self.link(users)
        try await app.test(.router) { client in
            let push = #"{"device":"\#(Changes.device(1).description)","through":0,"seen":0,"changes":[]}"#
            try await client.execute(uri: SyncAPI.pushPath, method: .post, headers: [.authorization: "Bearer " + token], body: ByteBuffer(string: push)) { response in
                #expect(response.status == .serviceUnavailable, "\(String(buffer: response.body))")
                #expect(response.headers[.retryAfter] != nil)
                // The push's deadline (or, on a machine busy enough, the token's check under the same one).
                let said = String(buffer: response.body)
                #expect(said.contains("nothing was acknowledged") || said.contains("cannot read its users now"), "\(said)")
            }
            let (cookie, csrf) = try await Self.signIn(client, link: link.text)
            try await client.execute(uri: "/favorites", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(response.headers[HTTPField.Name("Content-Security-Policy")!] != nil)
            }
            try await client.execute(
                uri: "/web/heart", method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "id=21&keep=1&csrf=" + csrf)
            ) { response in
                #expect(response.status == .serviceUnavailable, "\(String(buffer: response.body))")
                #expect(response.headers[HTTPField.Name("Content-Security-Policy")!] != nil)
            }
        }
    }

    @Test("a page's change is refused before its form is read: another site's, or one without a session, closes the connection")
    func pageChangesAreRefusedUnread() async throws {
        let (app, _, _) = try Self.application()
        try await app.test(.router) { client in
            let form = ByteBuffer(string: "id=1&keep=1&csrf=x")
            for (headers, status): (HTTPFields, HTTPResponse.Status) in [
                ([.contentType: "application/x-www-form-urlencoded", HTTPField.Name("Sec-Fetch-Site")!: "cross-site"], .forbidden),
                ([.contentType: "application/x-www-form-urlencoded", HTTPField.Name("Origin")!: "https://evil.example"], .forbidden),
                ([.contentType: "application/x-www-form-urlencoded"], .unauthorized),
            ] {
                try await client.execute(uri: "/web/heart", method: .post, headers: headers, body: form) { response in
                    #expect(response.status == status)
                    #expect(response.headers[.connection] == "close", "the form was read before the refusal")
                    #expect(response.headers[HTTPField.Name("Content-Security-Policy")!] != nil)
                }
            }
        }
    }
}
