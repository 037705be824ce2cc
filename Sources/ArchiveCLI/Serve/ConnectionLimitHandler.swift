import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// The part of every `serve` connection's pipeline that enforces what the
/// decoder and the responder decide, right after HTTP/1 decoding:
///
/// - a request head over the decoder's limit (``CatalogServer/maximumHeadBytes``)
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

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, parserError == .headerOverflow else {
            context.fireErrorCaught(error)
            return
        }
        // The decoder stops at the limit, so the rest of an oversized head is never buffered.
        let body = CatalogResponder.errorBody(
            "the request head is larger than \(CatalogServer.maximumHeadBytes / 1024) KiB; shorten the URL or the headers")
        let head = HTTPResponse(status: .requestHeaderFieldsTooLarge, headerFields: [
            .contentType: CatalogResponder.jsonContentType,
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
