import Hummingbird

/// Gives the request its deadline for work with the database (`archive-server
/// --request-timeout`, ``StorageDeadline``): ``limit`` from now. Around every route (the
/// authenticators' token checks are under it), and again after ``RequestBodyMiddleware`` on
/// the routes that read a body: the time a body takes to arrive has a bound of its own,
/// and the work done with it then gets the whole limit.
struct StorageDeadlineMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    /// The time the request's work with the database may take.
    let limit: Duration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.storageDeadline = StorageDeadline(limit: limit)
        return try await next(request, context)
    }
}
