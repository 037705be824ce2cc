public import ArchiveAPI
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import Hummingbird
import HTTPTypes
import NIOCore

/// Answers the catalog's requests: json-server conventions on `/archive_images`
/// (``CatalogQuery``) and `/archive_images/ID`, GET and HEAD only.
///
/// Refusals are JSON `{"error": "…"}` with the status that says why: `400` for a
/// query that cannot be read, `404`, `405` with `Allow: GET, HEAD`, `413` when a
/// GET or HEAD announces a body. A refused body also gets `Connection: close`
/// (``ConnectionLimitHandler`` closes after the answer), so it is never read, and
/// so does a refused CONNECT, whose answer has no other framing.
public struct CatalogResponder<Context: RequestContext>: HTTPResponder {

    let catalog: BundledArchiveRepository
    /// Waited before each answer (`--delay`).
    let delay: Duration
    /// The fraction of requests answered 500 (`--fail-rate`).
    let failRate: Double
    /// Where `Link` headers point: `http://127.0.0.1:PORT`.
    let baseURL: @Sendable () -> String

    /// Serves `catalog`, waiting `delay` before each answer and answering `500` to a
    /// `failRate` fraction of requests (a catalog to test clients against); `Link`
    /// headers point at `baseURL()`.
    public init(catalog: BundledArchiveRepository, delay: Duration = .zero, failRate: Double = 0, baseURL: @escaping @Sendable () -> String) {
        self.catalog = catalog
        self.delay = delay
        self.failRate = failRate
        self.baseURL = baseURL
    }

    /// The answer to `request`. A HEAD gets the GET's head: SwiftNIO's encoder
    /// leaves the body out (ServeFairnessTests checks it on a keep-alive connection).
    public func respond(to request: Request, context: Context) async throws -> Response {
        let announcesBody = ServiceResponse.announcesBody(request)
        guard request.method == .get || request.method == .head else {
            var response = Self.error("\(request.method.rawValue) is not served: the catalog is read-only (GET, HEAD)", status: .methodNotAllowed)
            response.headers[.allow] = "GET, HEAD"
            // A response to CONNECT goes out with no length and no body (SwiftNIO frames it as a
            // tunnel's), so only the end of the connection can tell the client where it ends.
            if announcesBody || request.method == .connect { response.headers[.connection] = "close" }
            return response
        }
        if announcesBody {
            var response = Self.error("a \(request.method.rawValue) request has no body; send none", status: .contentTooLarge)
            response.headers[.connection] = "close"
            return response
        }
        if delay > .zero { try await Task.sleep(for: delay) }
        if failRate > 0, Double.random(in: 0..<1) < failRate {
            return Self.error("simulated failure (--fail-rate)", status: .internalServerError)
        }
        let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.first == Substring(CatalogPath.collection), parts.count <= 2 else {
            return Self.error("not found: the catalog is at /\(CatalogPath.collection)", status: .notFound)
        }
        guard parts.count == 2 else { return collection(query: request.uri.query ?? "") }
        guard parts[1].utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let id = Int(parts[1]), let entity = try? await catalog.getArchiveEntity(id: id)
        else {
            return Self.error("no dish with ID \(parts[1]) in the catalog", status: .notFound)
        }
        return Self.json(Self.encode(entity))
    }

    private func collection(query: String) -> Response {
        let parsed: CatalogQuery
        do {
            parsed = try CatalogQuery(query: Substring(query))
        } catch {
            return Self.error(error.description, status: .badRequest)
        }
        let answer = parsed.answer(from: catalog)
        var response = Self.json(Self.encode(answer.rows))
        if let total = answer.totalCount {
            response.headers[.xTotalCount] = String(total)
            response.headers[.accessControlExposeHeaders] = answer.links.isEmpty ? "X-Total-Count" : "X-Total-Count, Link"
        }
        if !answer.links.isEmpty {
            let base = baseURL() + "/" + CatalogPath.collection
            response.headers[.link] = answer.links.map { "<\(base)?\($0.query)>; rel=\"\($0.relation)\"" }.joined(separator: ", ")
        }
        return response
    }

    // MARK: - Bodies

    private static func encode(_ value: some Encodable) -> ByteBuffer { ServiceResponse.encode(value) }

    private static func json(_ body: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response { ServiceResponse.json(body, status: status) }

    private static func error(_ message: String, status: HTTPResponse.Status) -> Response { ServiceResponse.error(message, status: status) }
}

/// The catalog's path: `/archive_images` (the same for every context).
public enum CatalogPath {
    /// `archive_images`.
    public static let collection = "archive_images"
}

extension HTTPField.Name {
    /// json-server's total of a paged answer.
    static let xTotalCount = Self("X-Total-Count")!
    /// RFC 8288 links (json-server's paging).
    static let link = Self("Link")!
}
