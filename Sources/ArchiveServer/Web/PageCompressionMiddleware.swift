import CompressNIO
import Hummingbird
import HTTPTypes
import NIOCore
import Synchronization

/// The page's answers (its HTML, stylesheet and script) gzip-compressed when the browser
/// says it takes gzip (`Accept-Encoding`), with `Vary: Accept-Encoding` so that a cache
/// keeps both forms apart. Only answers of a known length of 1 KiB or more: event streams,
/// which have none, pass as they are, and a smaller answer costs more to compress than it
/// saves. compress-nio does the compressing (zlib).
struct PageCompressionMiddleware: RouterMiddleware {
    typealias Context = ServiceRequestContext

    /// The types compressed: text, which compresses to a fifth or less.
    static let compressedTypes: Set<Substring> = ["text/html", "text/css", "text/javascript", "application/json"]
    /// Answers smaller than this pass as they are.
    static let minimumBytes = 1_024

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        guard let type = response.headers[.contentType]?.split(separator: ";").first, Self.compressedTypes.contains(type) else { return response }
        if response.headers[.vary]?.lowercased().contains("accept-encoding") != true {
            response.headers[.vary] = response.headers[.vary].map { $0 + ", Accept-Encoding" } ?? "Accept-Encoding"
        }
        guard Self.acceptsGzip(request.headers[.acceptEncoding] ?? ""), response.headers[.contentEncoding] == nil,
              let length = response.body.contentLength, length >= Self.minimumBytes
        else { return response }
        let collected = Collected()
        try await response.body.write(Collected.Writer(owner: collected))
        response.headers[.contentEncoding] = "gzip"
        response.headers[.contentLength] = nil
        response.body = ResponseBody(byteBuffer: try Self.gzip(collected.buffer.withLock { $0 }))
        return response
    }

    /// `buffer`'s bytes gzip-compressed.
    static func gzip(_ buffer: ByteBuffer) throws -> ByteBuffer {
        var buffer = buffer
        return try buffer.compress(with: .gzip())
    }

    /// Whether an `Accept-Encoding` value takes gzip: `gzip` or `*` listed with a weight
    /// other than 0 (RFC 9110, 12.5.3; any case, spaces around the parts).
    static func acceptsGzip(_ value: String) -> Bool {
        // Optional whitespace around a part: spaces and tabs (RFC 9110, 5.6.3).
        func trimmed(_ text: Substring) -> Substring {
            var text = text
            while text.first == " " || text.first == "\t" { text.removeFirst() }
            while text.last == " " || text.last == "\t" { text.removeLast() }
            return text
        }
        var weights: [String: Bool] = [:]
        for item in value.split(separator: ",") {
            let parts = item.split(separator: ";").map { trimmed($0).lowercased() }
            guard let coding = parts.first, !coding.isEmpty else { continue }
            let refused = parts.dropFirst().contains { parameter in
                let pair = parameter.split(separator: "=", maxSplits: 1).map { trimmed($0) }
                return pair.count == 2 && pair[0] == "q" && (Double(pair[1]).map { $0 == 0 } ?? false)
            }
            weights[coding] = !refused
        }
        return weights["gzip"] ?? weights["x-gzip"] ?? weights["*"] ?? false
    }

    /// An answer's body, written into memory (a `Mutex`: the writer may run on another task).
    final class Collected: Sendable {
        let buffer = Mutex(ByteBuffer())

        struct Writer: ResponseBodyWriter {
            let owner: Collected
            mutating func write(_ buffer: ByteBuffer) async throws {
                var buffer = buffer
                owner.buffer.withLock { _ = $0.writeBuffer(&buffer) }
            }
            consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
        }
    }
}
