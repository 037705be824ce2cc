import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// The part of every connection's pipeline that enforces what the runner, the decoder
/// and the responder decide, right after HTTP/1 decoding:
///
/// - past the ``ConnectionCounter``'s limit, a new connection is answered `503` and closed;
/// - a request head over the decoder's limit (``HTTPServiceRunner/maximumHeadBytes``)
///   is answered `431` and the connection closed, instead of Hummingbird's bare `400`;
/// - after a response that says `Connection: close` (a refused request body),
///   the connection is closed once the response is written, so the server never
///   reads, or waits for, the rest of a body it refused.
///
/// One instance per connection; NIO calls it on the connection's event loop only.
final class ConnectionLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var closeAfterResponse = false
    private let counter: ConnectionCounter
    private var admitted = false

    init(counter: ConnectionCounter) {
        self.counter = counter
    }

    /// Whether this connection was refused: what it sends is dropped.
    private var refused = false
    private var counted = false

    func handlerAdded(context: ChannelHandlerContext) {
        // An accepted connection becomes active after its pipeline is built: admitted then.
        if context.channel.isActive { admit(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if admitted { counter.release() }
        admitted = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        context.fireChannelRead(data)
    }

    /// Counts the connection, or answers `503` and closes it when the server is full.
    private func admit(context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        admitted = counter.admit()
        guard !admitted else { return }
        refused = true
        respondAndClose(
            status: .serviceUnavailable,
            message: "the server has \(counter.limit) connections open, its limit; try again shortly",
            context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, parserError == .headerOverflow else {
            context.fireErrorCaught(error)
            return
        }
        // The decoder stops at the limit, so the rest of an oversized head is never buffered.
        respondAndClose(
            status: .requestHeaderFieldsTooLarge,
            message: "the request head is larger than \(HTTPServiceRunner.maximumHeadBytes / 1024) KiB; shorten the URL or the headers",
            context: context)
    }

    /// Answers `status` with `{"error": message}` and closes the connection.
    private func respondAndClose(status: HTTPResponse.Status, message: String, context: ChannelHandlerContext) {
        let body = ServiceResponse.errorBody(message)
        let head = HTTPResponse(status: status, headerFields: [
            .contentType: ServiceResponse.jsonContentType,
            .contentLength: String(body.readableBytes),
            .connection: "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        closeAfterWriting(wrapOutboundOut(.end(nil)), context: context, promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            if head.headerFields[.connection]?.lowercased() == "close" { closeAfterResponse = true }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            if closeAfterResponse {
                closeAfterWriting(data, context: context, promise: promise)
            } else {
                context.write(data, promise: promise)
            }
        }
    }

    /// Writes and flushes `data`, then closes the connection (whether or not the write succeeded).
    private func closeAfterWriting(_ data: NIOAny, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(data, promise: written)
        written.futureResult.assumeIsolated().whenComplete { result in
            context.close(promise: nil)
            promise?.completeWith(result)
        }
    }
}
