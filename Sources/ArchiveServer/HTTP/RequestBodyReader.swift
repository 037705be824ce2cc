import Hummingbird
import NIOCore

/// Reads a request's whole body, bounded in size and in time: the sync API's pushes and the
/// web page's forms.
enum RequestBodyReader {
    /// The whole of `body`: past `maximum` bytes `tooLarge` is thrown, past `limit` (all of
    /// it, however it trickles) `late`; `admit` sees each chunk's size before it is kept, and
    /// refuses it by throwing.
    static func collect(
        _ body: RequestBody, maximum: Int, within limit: Duration, tooLarge: any Error, late: any Error,
        admit: @escaping @Sendable (Int) throws -> Void = { _ in }
    ) async throws -> ByteBuffer {
        try await RequestDeadline.run(limit, timedOut: late) {
            var collected = ByteBuffer()
            for try await chunk in body {
                guard collected.readableBytes + chunk.readableBytes <= maximum else { throw tooLarge }
                try admit(chunk.readableBytes)
                collected.writeImmutableBuffer(chunk)
            }
            return collected
        }
    }
}
