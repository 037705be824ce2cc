import ArchiveAPI
import ArchiveHTTPServer
import ArchiveServer
import ArchiveServerStorage
import ArchiveServerSQLite
import ArchiveStorage
import ArchiveSyncModel
import ArchiveSyncWire
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SQLite
import Testing

/// `docs/openapi.yaml` and the code cannot drift: the router serves exactly the documented
/// operations (every other method of their paths is 405), each answer a request can get is
/// documented for its operation with its status, headers and body schema, the wire types
/// encode to their schemas with the same properties, and the server serves the document it
/// was built with. In process, on an in-memory database; `.ci/run`'s schemathesis phase
/// holds the running binary to the same document.
@Suite(.timeLimit(.minutes(5)))
struct OpenAPIDocumentTests {
    let contract: OpenAPIContract

    init() throws {
        contract = try OpenAPIContract()
    }

    /// The page's routes (docs/WEB.md): HTML for browsers, not part of the API's contract.
    static let pagePaths: Set<String> = [
        "/", "/favorites", "/signin", "/sw.js", "/web/app.css", "/web/app.js", "/web/heart", "/web/signout", "/web/events",
    ]

    /// The service's router on a new in-memory database with user alice; alice's token.
    private static func application(limits: SyncServiceLimits = SyncServiceLimits()) throws -> (some ApplicationProtocol, Router<ServiceRequestContext>, String) {
        let database = try ServerDatabase(path: Database.inMemoryPath)
        let token = try UserStore(database: database).add("alice", now: 1)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let router = try ServiceRouter(
            backend: SQLiteSyncBackend(database: database), limits: limits,
            catalog: CatalogResponder(catalog: BundledArchiveRepository(), baseURL: { "http://test" }), events: FeedEvents(), overHTTPS: false, logger: logger
        ).router()
        return (Application(router: router, logger: logger), router, token.text)
    }

    @Test func everySchemaUsesOnlyTheKeywordsTheCheckKnows() throws {
        var schemas: [(String, [String: Any])] = []
        func collect(_ node: Any, at path: String, isSchema: Bool) {
            if let mapping = node as? [String: Any] {
                if isSchema { schemas.append((path, mapping)) }
                for (key, child) in mapping {
                    let childIsSchema = key == "schema" || (isSchema && (key == "items"))
                    if isSchema, key == "properties", let properties = child as? [String: Any] {
                        for (name, property) in properties { collect(property, at: "\(path).properties.\(name)", isSchema: true) }
                    } else if isSchema, key == "anyOf", let alternatives = child as? [Any] {
                        for (index, alternative) in alternatives.enumerated() { collect(alternative, at: "\(path).anyOf[\(index)]", isSchema: true) }
                    } else if path == "$.components", key == "schemas", let named = child as? [String: Any] {
                        for (name, schema) in named { collect(schema, at: "\(path).schemas.\(name)", isSchema: true) }
                    } else if !isSchema {
                        collect(child, at: "\(path).\(key)", isSchema: childIsSchema)
                    } else if childIsSchema {
                        collect(child, at: "\(path).\(key)", isSchema: true)
                    }
                }
            } else if let sequence = node as? [Any] {
                for (index, child) in sequence.enumerated() { collect(child, at: "\(path)[\(index)]", isSchema: false) }
            }
        }
        collect(contract.root, at: "$", isSchema: false)
        #expect(schemas.count > 40, "the walk found only \(schemas.count) schemas")
        for (path, schema) in schemas {
            let unknown = Set(schema.keys).subtracting(OpenAPIContract.keywords)
            #expect(unknown.isEmpty, "\(path) uses \(unknown.sorted()), which the check does not know")
            if let reference = schema["$ref"] { #expect(throws: Never.self, "\(path): \(reference)") { try contract.resolve(schema) } }
        }
    }

    @Test func theServerServesTheDocumentItWasBuiltWith() async throws {
        let (app, _, _) = try Self.application()
        let text = contract.text
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/openapi.yaml", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/yaml") == true)
                #expect(String(buffer: response.body) == text, "the served document is not docs/openapi.yaml: rebuild")
            }
        }
    }

    @Test func theRouterServesExactlyTheDocumentedOperations() async throws {
        let (app, router, _) = try Self.application()
        let routes = router.routes.map { (path: "/" + $0.path.description.drop { $0 == "/" }, method: $0.method) }
        // The page's assets answer at fingerprinted addresses too (`/web/app.<hash>.css`), and
        // its manifest and icons under `/web/`: all the page's, none the API's.
        let apiPaths = Set(routes.map(\.path)).subtracting(Self.pagePaths).filter { !$0.hasPrefix("/web/") }
        #expect(apiPaths == Set(contract.paths.keys), "the router's paths outside the page differ from the document's")
        let served: Set<String> = try await app.test(.router) { client in
            var served: Set<String> = []
            for path in apiPaths {
                let uri = path.replacingOccurrences(of: "{id}", with: "1")
                for method in Set(routes.filter { $0.path == path }.map(\.method)) {
                    let status = try await client.execute(uri: uri, method: method) { $0.status }
                    if status != .methodNotAllowed { served.insert("\(method.rawValue) \(path)") }
                }
            }
            return served
        }
        #expect(served == contract.operations, "served but not documented: \(served.subtracting(contract.operations).sorted()); documented but not served: \(contract.operations.subtracting(served).sorted())")
    }

    /// A request of the probes and the status it must get.
    struct Probe: CustomStringConvertible {
        let method: HTTPRequest.Method
        let uri: String
        var authorized = true
        var body: String?
        let status: Int
        /// The documented path (`uri` without its query, `{id}` for a dish).
        var path: String {
            let bare = String(uri.split(separator: "?").first ?? "")
            return bare.hasPrefix("/archive_images/") ? "/archive_images/{id}" : bare
        }
        var description: String { "\(method.rawValue) \(uri) → \(status)" }
    }

    static func push(_ device: DeviceID, _ changes: [FavoriteChange], seen: Int64 = 0) throws -> String {
        String(decoding: try JSONEncoder().encode(SyncPushRequest(device: device, through: 1, seen: seen, changes: changes.map(WireChange.init))), as: UTF8.self)
    }

    @Test func everyAnswerIsDocumentedWithItsStatusHeadersAndBody() async throws {
        let (app, _, token) = try Self.application(limits: { var limits = SyncServiceLimits(); limits.maximumPushChanges = 2; return limits }())
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let phone = Changes.device(1), other = Changes.device(2)
        let pull = SyncAPI.pullPath + "?device=\(phone)&cursor=0&limit=10"
        let probes: [Probe] = [
            Probe(method: .get, uri: "/health", status: 200),
            Probe(method: .head, uri: "/health", status: 200),
            Probe(method: .get, uri: "/v1/openapi.yaml", status: 200),
            Probe(method: .head, uri: "/v1/openapi.yaml", status: 200),
            Probe(method: .post, uri: SyncAPI.pushPath, body: try Self.push(phone, [Changes.stored(5, at: now, by: phone), Changes.removed(6, at: now, by: phone)]), status: 200),
            Probe(method: .post, uri: SyncAPI.pushPath, body: "not json", status: 400),
            Probe(method: .post, uri: SyncAPI.pushPath, body: try Self.push(phone, [Changes.stored(7, at: now + 2 * 86_400_000, by: phone)]), status: 400),
            Probe(method: .post, uri: SyncAPI.pushPath, authorized: false, body: try Self.push(phone, []), status: 401),
            Probe(method: .post, uri: SyncAPI.pushPath, body: try Self.push(other, []), status: 403),
            Probe(method: .post, uri: SyncAPI.pushPath, body: try Self.push(phone, (1...3).map { Changes.stored($0, at: now, by: phone) }), status: 413),
            Probe(method: .get, uri: pull, status: 200),
            Probe(method: .get, uri: SyncAPI.pullPath + "?device=\(phone)&limit=0", status: 200),
            Probe(method: .get, uri: SyncAPI.pullPath + "?device=\(phone)&cursor=-1", status: 400),
            Probe(method: .get, uri: SyncAPI.pullPath + "?device=\(phone)&token=x", status: 400),
            Probe(method: .get, uri: pull, authorized: false, status: 401),
            Probe(method: .get, uri: SyncAPI.pullPath + "?device=\(other)", status: 403),
            Probe(method: .get, uri: SyncAPI.eventsPath, authorized: false, status: 401),
            Probe(method: .get, uri: "/archive_images", status: 200),
            Probe(method: .get, uri: "/archive_images?_page=2&_limit=5&category=%E6%B4%8B%E9%A3%9F", status: 200),
            Probe(method: .get, uri: "/archive_images?_sort=dishName,,id&_order=DESC", status: 200),
            Probe(method: .get, uri: "/archive_images?colour=red", status: 400),
            Probe(method: .head, uri: "/archive_images", status: 200),
            Probe(method: .get, uri: "/archive_images/1", status: 200),
            Probe(method: .get, uri: "/archive_images/999999", status: 404),
            Probe(method: .head, uri: "/archive_images/999999", status: 404),
        ]
        let answers = try await app.test(.router) { client in
            var answers: [(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer)] = []
            for probe in probes {
                var headers: HTTPFields = probe.body == nil ? [:] : [.contentType: "application/json"]
                if probe.authorized { headers[.authorization] = "Bearer " + token }
                answers.append(try await client.execute(uri: probe.uri, method: probe.method, headers: headers, body: probe.body.map { ByteBuffer(string: $0) }) {
                    ($0.status, $0.headers, $0.body)
                })
            }
            return answers
        }
        for (probe, response) in zip(probes, answers) {
            #expect(response.status.code == probe.status, "\(probe): \(response.status) \(String(buffer: response.body))")
            let operation = contract.operation(probe.method.rawValue, probe.path)
            guard let operation else {
                Issue.record("\(probe): no such operation in the document")
                continue
            }
            let documented = try contract.response(response.status.code, of: operation)
            guard let documented else {
                Issue.record("\(probe): status \(response.status.code) is not documented for it")
                continue
            }
            for (name, header) in documented["headers"] as? [String: [String: Any]] ?? [:] where try contract.resolve(header)["required"] as? Bool == true {
                #expect(response.headers[HTTPField.Name(name)!] != nil, "\(probe): the required header \(name) is missing")
            }
            guard probe.method != .head, let content = documented["content"] as? [String: [String: Any]] else {
                #expect(probe.method == .head || response.body.readableBytes == 0, "\(probe): a body the document does not describe")
                continue
            }
            let type = String(response.headers[.contentType]?.split(separator: ";").first ?? "")
            let media = try #require(content[type], "\(probe): content type \(type) is not documented (\(content.keys.sorted()))")
            if let schema = media["schema"] as? [String: Any], type == "application/json" {
                let problems = try contract.problems(of: try JSONValue.parse(Data(response.body.readableBytesView)), against: schema)
                #expect(problems.isEmpty, "\(probe): the body breaks its schema: \(problems)")
            }
        }
    }

    @Test func theWireTypesEncodeToTheirSchemasWithTheSameProperties() throws {
        let device = Changes.device(7)
        let stored = WireChange(Changes.stored(3, at: 1_700_000_000_000, by: device, text: "寿司 ｽｼ"))
        let removed = WireChange(Changes.removed(4, at: 1_700_000_000_001, by: device))
        let dish = try #require(BundledArchiveRepository().entities(matching: SearchKeyword("")).first)
        let values: [(String, JSONValue)] = [
            ("PushRequest", try .encoding(SyncPushRequest(device: device, through: 9, seen: 8, changes: [stored, removed]))),
            ("PushResponse", try .encoding(SyncPushResponse(applied: 1, superseded: 2, alreadyHeld: 3, pushed: 4))),
            ("PullResponse", try .encoding(SyncPullResponse(
                feed: FeedID(of: device).description, changes: [stored, removed], cursor: 5, hasMore: true, reset: false, pushed: 6, maximumPushBytes: 4_194_304, end: 9))),
            ("PullResponse", try .encoding(SyncPullResponse(feed: FeedID(of: device).description, changes: [], cursor: 0, hasMore: false, reset: true, pushed: 0))),
            ("Change", try .encoding(stored)),
            ("Favorite", try .encoding(try #require(stored.favorite))),
            ("Error", try .encoding(SyncErrorBody(error: "what to do"))),
            ("Dish", try .encoding(dish)),
        ]
        var seen: [String: Set<String>] = [:]
        for (name, value) in values {
            let schema = try contract.schema(named: name)
            let problems = try contract.problems(of: value, against: schema)
            #expect(problems.isEmpty, "\(name): \(problems)")
            if case .object(let members) = value { seen[name, default: []].formUnion(members.keys) }
        }
        // Every property a schema lists is written by its type, and no other.
        for (name, keys) in seen {
            let properties = Set((try contract.schema(named: name)["properties"] as? [String: Any] ?? [:]).keys)
            #expect(keys == properties, "\(name): the type writes \(keys.sorted()), the document lists \(properties.sorted())")
        }
    }

    @Test func theCheckFindsWhatBreaksASchema() throws {
        let response = try contract.schema(named: "PushResponse")
        let good: [String: JSONValue] = ["applied": .integer(1), "superseded": .integer(0), "alreadyHeld": .integer(0), "pushed": .integer(2)]
        #expect(try contract.problems(of: .object(good), against: response).isEmpty)
        var missing = good
        missing["pushed"] = nil
        var extra = good
        extra["secret"] = .string("x")
        var negative = good
        negative["applied"] = .integer(-1)
        var wrongType = good
        wrongType["applied"] = .bool(true)
        for broken in [missing, extra, negative, wrongType] {
            #expect(try !contract.problems(of: .object(broken), against: response).isEmpty, "\(broken)")
        }
        #expect(try !contract.problems(of: .string("XYZ"), against: contract.schema(named: "DeviceID")).isEmpty)
        #expect(try !contract.problems(of: .integer(4_611_686_018_427_387_904), against: contract.schema(named: "Stamp")).isEmpty)
        #expect(throws: OpenAPIContract.Unknown.self) { try contract.problems(of: .null, against: ["format": "int64"]) }
    }
}
