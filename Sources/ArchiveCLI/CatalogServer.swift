import ArchiveFront
import FlyingFox
import FlyingSocks
import Foundation

/// Serves a catalog as the json-server-style endpoint the HTTP client reads:
/// `GET /archive_images?q=KEYWORD&category=CATEGORY` and `GET /archive_images/ID`,
/// on 127.0.0.1 only. `delay` and `failRate` let a front's loading and error
/// states be tried.
struct CatalogServer: Sendable {
    let catalog: BundledArchiveRepository
    let delay: Duration
    let failRate: Double

    /// Answers one request.
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        if delay > .zero {
            try? await Task.sleep(for: delay)
        }
        if failRate > 0, Double.random(in: 0..<1) < failRate {
            return Self.json(#"{"error":"simulated failure (--fail-rate)"}"#, status: .internalServerError)
        }
        guard request.method == .GET else {
            return Self.json(#"{"error":"only GET is served"}"#, status: .methodNotAllowed)
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.first == "archive_images" else {
            return Self.json(#"{"error":"not found: use /archive_images"}"#, status: .notFound)
        }
        switch parts.count {
        case 1:
            let keyword = request.query.first { $0.name == "q" }?.value ?? ""
            let category = request.query.first { $0.name == "category" }?.value ?? ""
            let entities = (try? await catalog.getArchiveResponse(keyword: keyword, category: category)) ?? []
            return Self.encode(entities)
        case 2:
            guard let id = Int(parts[1]), let entity = try? await catalog.getArchiveEntity(id: id) else {
                return Self.json("{}", status: .notFound)
            }
            return Self.encode(entity)
        default:
            return Self.json("{}", status: .notFound)
        }
    }

    /// Listens on 127.0.0.1:`port` (0 picks a free port), calls `ready` with the
    /// base URL once listening, and serves until the task is cancelled or the process ends.
    func run(port: UInt16, ready: @escaping @Sendable (String) -> Void) async throws {
        let server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: port), timeout: 30, logger: .disabled)
        let handler = self
        await server.appendRoute("*") { request in await handler.respond(to: request) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            group.addTask {
                try await server.waitUntilListening(timeout: 10)
                guard let address = await server.listeningAddress, case .ip4(_, let actualPort) = address else { return }
                ready("http://127.0.0.1:\(actualPort)")
            }
            // The first to finish is the listener (or a failure to listen); then serve until `run` ends.
            while try await group.next() != nil {}
        }
    }

    private static func encode(_ value: some Encodable) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else {
            return json(#"{"error":"encoding failed"}"#, status: .internalServerError)
        }
        return HTTPResponse(statusCode: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: data)
    }

    private static func json(_ text: String, status: HTTPStatusCode) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: [.contentType: "application/json; charset=utf-8"], body: Data(text.utf8))
    }
}
