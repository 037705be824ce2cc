import Hummingbird
import HTTPTypes
import NIOCore
import ServiceLifecycle

/// The answer that keeps a user's event stream open (server-sent events,
/// `text/event-stream`): `retry: 2000` first (a browser reconnects 2 s after a drop), then
/// `event: feed` each time the user's feed moves, a comment every ``keepAliveInterval``, and
/// the end after ``lifetime`` (the client opens another). It ends at once, and its slot is
/// freed, when its identity ends (``FeedEvents/end(where:)``: the device revoked, the
/// session ended, the user removed), when the client's connection closes, or as soon as
/// the server begins to stop (its graceful shutdown does not wait for streams that would
/// never end). Its connection closes after it (`Connection: close`): a stream's connection
/// carries nothing else. Served at `/web/events` (the page's session) and
/// ``SyncAPI/eventsPath`` (a device's token).
enum EventStream {
    /// The longest one stream stays open.
    static let lifetime: Duration = .seconds(600)
    /// How often an open stream is sent a comment.
    static let keepAliveInterval: Duration = .seconds(15)
    /// nginx's header for an answer it must not buffer.
    static let accelBuffering = HTTPField.Name("X-Accel-Buffering")!
    /// What each move of the feed is written as.
    static let moveEvent = "event: feed\ndata: moved\n\n"

    /// The streaming answer to `request` for `moves` (a ``FeedEvents`` subscription).
    static func response(_ moves: AsyncStream<Void>, to request: Request) -> Response {
        let lifetime = Self.lifetime, keepAlive = Self.keepAliveInterval
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            let (texts, text) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(4))
            // The client gone (its side of the connection closed): the stream ends now, not
            // at the next keep-alive's failed write. Hummingbird watches the request's
            // inbound side for it; a GET's body is never read otherwise.
            try await request.body.consumeWithInboundCloseHandler({ _ in
                try await withGracefulShutdownHandler {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for await _ in moves { text.yield(Self.moveEvent) }
                            // The identity ended (or the hub let go): so does the stream.
                            text.finish()
                        }
                        group.addTask {
                            while true {
                                try await Task.sleep(for: keepAlive)
                                text.yield(": keep-alive\n\n")
                            }
                        }
                        group.addTask {
                            try await Task.sleep(for: lifetime)
                            text.finish()
                        }
                        // A write to a peer gone away throws: the group ends, the subscription with it.
                        defer { group.cancelAll() }
                        for await chunk in texts { try await writer.write(ByteBuffer(string: chunk)) }
                    }
                } onGracefulShutdown: {
                    text.finish()
                }
            }, onInboundClosed: { text.finish() })
            try await writer.finish(nil)
        }
        // `X-Accel-Buffering: no`: a proxy in front (nginx terminating TLS) passes each event on
        // at once instead of holding the answer until its buffer fills.
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store", accelBuffering: "no", .connection: "close"],
            body: body)
    }
}
