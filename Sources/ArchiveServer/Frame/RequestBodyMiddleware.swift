import Hummingbird
import NIOCore

/// Reads a request's whole body before its route runs, bounded in size, in time and, on
/// the sync API, by the bytes every connection's bodies may hold at once (``BodyBudget``):
/// the sync API's push and the page's forms, each the one place its rule is written.
///
/// A body longer than ``maximum`` (announced by `Content-Length` or found while reading) is
/// refused before another byte is kept; one that does not arrive whole within ``timeout``
/// (however it trickles: a byte at a time counts as progress for the idle timeout, not for
/// this one) is refused too, and so is one that finds no room in the budget. Each refusal
/// closes the connection (the rest of the body is never read). The route gets the body
/// whole, in memory; the budget's bytes are given back once the route has answered.
struct RequestBodyMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    /// What a body that breaks a bound is answered, in its route group's form.
    struct Refusals: Sendable {
        /// The body is larger than the maximum: its announced length, when it was announced.
        let tooLarge: @Sendable (_ announced: Int?) -> any Error
        /// The body did not arrive in time.
        let late: @Sendable () -> any Error
        /// The budget has no room for the body.
        let busy: @Sendable () -> any Error
    }

    /// The largest body.
    let maximum: Int
    /// The longest the whole body may take to arrive.
    let timeout: Duration
    /// The bytes held at once across connections, or `nil` (a form of a few KiB).
    let budget: BodyBudget?
    let refusals: Refusals

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let announced = request.headers[.contentLength].flatMap { Int($0) }
        if let announced, announced > maximum { throw refusals.tooLarge(announced) }
        let reservation = budget?.reservation()
        defer { reservation?.end() }
        // A body whose length is announced reserves it all before a byte is read.
        if let announced, let reservation, !reservation.take(announced) { throw refusals.busy() }
        let maximum = self.maximum, refusals = self.refusals, stream = request.body
        let body = try await RequestDeadline.run(timeout, timedOut: refusals.late()) {
            var collected = ByteBuffer()
            for try await chunk in stream {
                guard collected.readableBytes + chunk.readableBytes <= maximum else { throw refusals.tooLarge(nil) }
                if announced == nil, let reservation, !reservation.take(chunk.readableBytes) { throw refusals.busy() }
                collected.writeImmutableBuffer(chunk)
            }
            return collected
        }
        context.record.readBody()
        var request = request
        request.body = RequestBody(buffer: body)
        return try await next(request, context)
    }
}
