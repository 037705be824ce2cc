import Foundation
import Hummingbird
import Logging
import NIOCore

/// An HTTP server on 127.0.0.1 with an ephemeral port, for the client's tests,
/// on Hummingbird (the stack `archive-server` uses). Stops when the test calls ``stop()``.
final class TestCatalogServer: Sendable {
    /// What the test's handler sees of a request: its path and its decoded query items.
    struct Request: Sendable {
        let path: String
        let query: [QueryItem]
    }

    /// One decoded query item.
    struct QueryItem: Sendable {
        let name: String
        let value: String
    }

    /// What the test's handler answers.
    struct Reply: Sendable {
        var status: Int
        var body: String

        static func json(_ text: String, status: Int = 200) -> Reply { Reply(status: status, body: text) }
        static func status(_ status: Int) -> Reply { Reply(status: status, body: "") }
    }

    private let task: Task<Void, any Error>
    private let started: AsyncStream<String>

    init(handler: @escaping @Sendable (Request) async throws -> Reply) {
        let (started, continuation) = AsyncStream<String>.makeStream()
        self.started = started
        var logger = Logger(label: "test-catalog-server")
        logger.logLevel = .critical
        let application = Application(
            responder: CallbackResponder { (request: Hummingbird.Request, _: BasicRequestContext) in
                let query = request.uri.queryParameters.map { QueryItem(name: String($0.key), value: String($0.value)) }
                let reply = try await handler(Request(path: request.uri.path, query: query))
                return Response(
                    status: .init(code: reply.status),
                    headers: [.contentType: "application/json"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: reply.body)))
            },
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield("http://127.0.0.1:\(channel.localAddress?.port ?? 0)")
                continuation.finish()
            },
            logger: logger)
        task = Task { try await application.run() }
    }

    /// Waits until the server listens and returns its base URL.
    func start() async throws -> String {
        for await url in started { return url }
        throw CancellationError()
    }

    /// Stops listening and closes the connections.
    func stop() async {
        task.cancel()
        _ = await task.result
    }
}
