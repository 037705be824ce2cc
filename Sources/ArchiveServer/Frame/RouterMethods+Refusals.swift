import Hummingbird
import HTTPTypes

extension RouterMethods {
    /// The methods a route that serves others is asked for, answered `405` with `Allow`
    /// instead of the router's `404` (Hummingbird matches the path, then the method):
    /// RFC 9110's (but CONNECT, which asks for a tunnel, not a resource), PATCH, and QUERY
    /// (the safe method with a body the HTTP working group is adding; schemathesis asks it).
    static var refusedMethods: [HTTPRequest.Method] {
        [.get, .head, .post, .put, .delete, .patch, .options, .trace] + (HTTPRequest.Method("QUERY").map { [$0] } ?? [])
    }

    /// Answers every method of ``refusedMethods`` but `allowed` at `path` with what
    /// `refusal` makes of it (a `405` in the route group's own form: JSON or a page).
    @discardableResult
    func refuse(
        _ path: RouterPath, allowing allowed: [HTTPRequest.Method],
        with refusal: @escaping @Sendable (_ method: HTTPRequest.Method, _ allowed: [HTTPRequest.Method]) -> any Error
    ) -> Self {
        for method in Self.refusedMethods where !allowed.contains(method) {
            on(path, method: method) { request, _ -> Response in throw refusal(request.method, allowed) }
        }
        return self
    }
}
