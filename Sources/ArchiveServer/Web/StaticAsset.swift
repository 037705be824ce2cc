import Hummingbird
import HTTPTypes
import NIOCore

/// A text the page serves unchanged (its stylesheet, script, manifest, service worker): its
/// bytes, and their gzip made once when the routes are built, so that a browser that takes
/// gzip gets it without compressing the same text again at every request
/// (``PageCompressionMiddleware`` compresses the screens, which change).
struct StaticAsset: Sendable {
    private let plain: ByteBuffer
    private let gzipped: ByteBuffer?
    private let type: String
    private let cache: String

    /// `text`, served as `type` with `Cache-Control: cache`.
    init(_ text: String, type: String, cache: String) {
        plain = ByteBuffer(string: text)
        gzipped = try? PageCompressionMiddleware.gzip(plain)
        self.type = type
        self.cache = cache
    }

    /// The answer to `request`: gzipped when the browser takes gzip; either way with `Vary:
    /// Accept-Encoding`, so that a cache in between keeps the two forms apart (said here:
    /// the manifest's type is not one ``PageCompressionMiddleware`` marks).
    func response(to request: Request) -> Response {
        var headers: HTTPFields = [.contentType: type, .cacheControl: cache]
        if gzipped != nil { headers[.vary] = "Accept-Encoding" }
        if let gzipped, PageCompressionMiddleware.acceptsGzip(request.headers[.acceptEncoding] ?? "") {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: gzipped))
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: plain))
    }
}
