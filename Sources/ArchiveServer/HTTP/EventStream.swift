import Hummingbird
import HTTPTypes
import NIOCore
import ServiceLifecycle

/// The answer that keeps a user's event stream open (server-sent events,
/// `text/event-stream`): `retry: 2000` first (a browser reconnects 2 s after a drop), then
/// `event: feed` each time the user's feed moves, a comment every ``keepAliveInterval`` (a
/// peer gone away is noticed at the next write, and its slot freed), and the end after
/// ``lifetime`` (the client opens another), or as soon as the server begins to stop (its
/// graceful shutdown does not wait for streams that would never end). Served at `/web/events` (the page's session)
/// and ``SyncAPI/eventsPath`` (a device's token).
enum EventStream {
    /// The longest one stream stays open.
    static let lifetime: Duration = .seconds(600)
    /// How often an open stream is sent a comment.
    static let keepAliveInterval: Duration = .seconds(15)
    /// nginx's header for an answer it must not buffer.
    static let accelBuffering = HTTPField.Name("X-Accel-Buffering")!
    /// What each move of the feed is written as.
    static let moveEvent = "event: feed\ndata: moved\n\n"

    /// The streaming answer for `moves` (a ``FeedEvents`` subscription).
    static func response(_ moves: AsyncStream<Void>) -> Response {
        let lifetime = Self.lifetime, keepAlive = Self.keepAliveInterval
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            let (texts, text) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(4))
            try await withGracefulShutdownHandler {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await _ in moves { text.yield(Self.moveEvent) }
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
            try await writer.finish(nil)
        }
        // `X-Accel-Buffering: no`: a proxy in front (nginx terminating TLS) passes each event on
        // at once instead of holding the answer until its buffer fills.
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store", accelBuffering: "no"],
            body: body)
    }
}
