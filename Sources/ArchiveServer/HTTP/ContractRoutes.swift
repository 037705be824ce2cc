import Hummingbird
import HTTPTypes
import NIOCore

/// `/v1/openapi.yaml` (GET, HEAD): the OpenAPI document of the sync API and the catalog,
/// `docs/openapi.yaml` as the server was built with it (compiled in by the
/// `EmbedOpenAPIDocument` plugin). No identity: a client's author reads it first.
struct ContractRoutes: Sendable {
    /// The document's path.
    static let path = "v1/openapi.yaml"
    /// The document's bytes, made once (every answer shares them).
    static let document = ByteBuffer(string: openAPIDocumentText)

    /// The route.
    func collection() -> RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        let document: @Sendable (Request, ServiceRequestContext) async throws -> Response = { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/yaml; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: Self.document))
        }
        routes.get(RouterPath(Self.path), use: document)
        routes.head(RouterPath(Self.path), use: document)
        routes.refuse(RouterPath(Self.path), allowing: [.get, .head]) { method, allowed in
            Refusal.methodNotAllowed(method, at: "/" + Self.path, allowed: allowed)
        }
        return routes
    }
}
