#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
package import Hummingbird
package import HTTPTypes
package import NIOCore

/// How the service's answers are written: JSON bodies, and `{"error": "…"}` for refusals.
package enum ServiceResponse {
    package static let jsonContentType = "application/json; charset=utf-8"

    /// `value` as JSON, keys sorted, slashes not escaped.
    package static func encode(_ value: some Encodable) -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The service's own types always encode; an empty object is the fallback that cannot happen.
        return ByteBuffer(bytes: (try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    /// A JSON answer.
    package static func json(_ body: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: jsonContentType], body: ResponseBody(byteBuffer: body))
    }

    /// `{"error": message}`.
    package static func errorBody(_ message: String) -> ByteBuffer {
        encode(["error": message])
    }

    /// Whether `request` announces a body (a length other than 0, or chunks): a refusal
    /// sent before reading it must close the connection, so that it is never read.
    package static func announcesBody(_ request: Request) -> Bool {
        request.headers[.transferEncoding] != nil || (request.headers[.contentLength].map { $0 != "0" } ?? false)
    }

    /// A refusal with `status` saying `message`.
    package static func error(_ message: String, status: HTTPResponse.Status) -> Response {
        json(errorBody(message), status: status)
    }
}
