import ArchiveServerStorage
import ArchiveHTTPServer
import Hummingbird
import HTTPTypes

/// `/health` (GET, HEAD): `{"status": "ok"}` while the backend answers, `503` when it does
/// not. No identity: a load balancer asks it.
struct HealthRoutes: Sendable {
    let backend: any SyncBackend

    /// The route.
    func collection() -> RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        let backend = self.backend
        let health: @Sendable (Request, ServiceRequestContext) async throws -> Response = { _, _ in
            guard await backend.isHealthy() else {
                return ServiceResponse.error("the database does not answer", status: .serviceUnavailable)
            }
            return ServiceResponse.json(ServiceResponse.encode(["status": "ok"]))
        }
        routes.get("health", use: health)
        routes.head("health", use: health)
        routes.refuse("health", allowing: [.get, .head]) { method, allowed in Refusal.methodNotAllowed(method, at: "/health", allowed: allowed) }
        return routes
    }
}
