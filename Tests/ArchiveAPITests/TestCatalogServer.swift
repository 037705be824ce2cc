import FlyingFox
import FlyingSocks
import Foundation

/// An HTTP server on 127.0.0.1 with an ephemeral port, for the client's tests.
/// Stops when the test calls ``stop()``.
actor TestCatalogServer {
    private let server: HTTPServer
    private var task: Task<Void, any Error>?

    init(handler: @escaping @Sendable (HTTPRequest) async throws -> HTTPResponse) async throws {
        server = HTTPServer(address: try .inet(ip4: "127.0.0.1", port: 0), timeout: 30, logger: .disabled)
        await server.appendRoute("*", handler: handler)
    }

    /// Starts listening and returns the base URL.
    func start() async throws -> String {
        let server = self.server
        task = Task { try await server.run() }
        try await server.waitUntilListening()
        guard let address = await server.listeningAddress, case .ip4(_, let port) = address else {
            throw URLError(.cannotConnectToHost)
        }
        return "http://127.0.0.1:\(port)"
    }

    func stop() async {
        await server.stop(timeout: 0)
        task?.cancel()
    }

    static func json(_ text: String, status: HTTPStatusCode = .ok) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: [.contentType: "application/json"], body: Data(text.utf8))
    }
}
