import ArchiveHTTPServer
import Hummingbird
import HTTPTypes

/// The catalog's route group: `/archive_images` and `/archive_images/{id}`, answered by
/// ``CatalogResponder`` (json-server's conventions; it refuses any method but GET and HEAD
/// itself, in its own words).
struct CatalogRoutes: Sendable {
    let catalog: CatalogResponder<ServiceRequestContext>

    /// The group's routes.
    func collection() -> RouteCollection<ServiceRequestContext> {
        let routes = RouteCollection(context: ServiceRequestContext.self)
        for path in [RouterPath(CatalogPath.collection), RouterPath(CatalogPath.collection + "/{id}")] {
            for method in RouteCollection<ServiceRequestContext>.refusedMethods {
                _ = routes.on(path, method: method, responder: catalog)
            }
        }
        return routes
    }
}
