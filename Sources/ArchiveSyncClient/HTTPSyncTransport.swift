import ArchiveHTTP
import ArchiveNetwork
public import ArchiveSyncWire
import ArchiveAPI
import AsyncHTTPClient
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL
public import ArchiveSyncModel

/// The sync API over HTTP (AsyncHTTPClient), for `archive sync --server URL`: the token in
/// `Authorization: Bearer` only, redirects never followed (a redirect would carry the token
/// elsewhere), each request bounded in time as a whole (``ClientDeadline``: an answer
/// dripped a byte at a time does not outlast it) and its answer in size.
public struct HTTPSyncTransport: SyncTransport {
    /// The largest answer read (``SyncAPI/maximumAnswerBytes``): the service cuts its pages
    /// at a quarter of it.
    public static let maximumAnswerBytes = SyncAPI.maximumAnswerBytes

    /// The service's base URL.
    public let server: URL
    let token: String
    /// How long one request may take in all, answer included (`--timeout`).
    public let timeout: Duration

    let client: HTTPClient
    /// The certificate authorities trusted instead of the system's (`--ca-file`), if any.
    private let caFile: String?

    /// The clients, one per set of trusted authorities (`nil`: the system's), made once per
    /// process and kept for its life as AsyncHTTPClient's shared one is.
    private static let clients = NIOLockedValueBox<[String?: HTTPClient]>([:])

    private static func client(trusting caFile: String?, within limit: Duration) throws -> HTTPClient {
        if let client = clients.withLockedValue({ $0[caFile] }) { return client }
        // The CA file is read outside the lock: a read that takes its whole time limit holds
        // up no other sync of the process.
        let roots = try caFile.map { try CAFile.certificates(at: $0, within: limit) }
        return clients.withLockedValue { clients in
            if let client = clients[caFile] { return client }  // made meanwhile by another caller
            var configuration = HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: HTTPClient.Configuration.Timeout(connect: .seconds(30)),
                decompression: .disabled)
            configuration.connectionPool.retryConnectionEstablishment = false
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.minimumTLSVersion = .tlsv12
            if let roots { tls.trustRoots = .certificates(roots) }
            configuration.tlsConfiguration = tls
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            clients[caFile] = client
            return client
        }
    }

    /// The service at `server` (`http` or `https`, a host, no query, no credentials in it),
    /// reached with `token`. Its certificate is checked against the system's authorities, or
    /// those of `caFile` (PEM). A plain `http` URL of a host other than this machine is refused
    /// (``SyncTransportError/insecure(server:)``) unless `allowsInsecureHTTP`.
    public init(
        server: String, token: String, timeout: Duration = SyncAPI.defaultRequestTimeout, caFile: String? = nil,
        allowsInsecureHTTP: Bool = false
    ) throws {
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, url.user == nil, url.password == nil, url.query == nil, url.fragment == nil
        else {
            throw SyncTransportError.refused(server: server, status: 0, message: "not a service URL: give http(s)://HOST[:PORT] with no user, query or fragment")
        }
        guard scheme == "https" || allowsInsecureHTTP || LoopbackAddress.isLoopback(host) else {
            throw SyncTransportError.insecure(server: server)
        }
        guard !token.isEmpty, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw SyncTransportError.unauthorized(server: server)
        }
        self.server = url
        self.token = token
        self.timeout = timeout
        self.caFile = caFile
        self.client = try Self.client(trusting: caFile, within: timeout)
    }

    public func pull(device: DeviceID, cursor: Int64, limit: Int) async throws -> SyncPullResponse {
        try await send(.GET, SyncAPI.pullPath + "?device=\(device)&cursor=\(cursor)&limit=\(limit)", body: nil, as: SyncPullResponse.self)
    }

    public func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        try await send(.POST, SyncAPI.pushPath, body: Data(WireJSON.encode(request)), as: SyncPushResponse.self)
    }

    private func send<Answer: Decodable>(_ method: HTTPMethod, _ target: String, body: Data?, as type: Answer.Type) async throws -> Answer {
        let base = server.absoluteString.hasSuffix("/") ? String(server.absoluteString.dropLast()) : server.absoluteString
        var request = HTTPClientRequest(url: base + target)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "application/json")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let shown = base, prepared = request
        let timeout = self.timeout, client = self.client, url = self.server, caFile = self.caFile
        let (status, bytes) = try await ClientDeadline.run(timeout, timeoutError: { SyncTransportError.timedOut(server: shown, seconds: timeout.seconds) }) {
            try await Self.exchange(prepared, on: client, server: shown, url: url, caFile: caFile, timeout: timeout)
        }
        try Task.checkCancellation()
        guard status == 200 else {
            let message = (try? JSONDecoder().decode(SyncErrorBody.self, from: Data(bytes)))?.error.prefix(500).description ?? "HTTP \(status)"
            switch status {
            case 401: throw SyncTransportError.unauthorized(server: shown)
            case 413: throw SyncTransportError.tooLarge(server: shown, message: message)
            default: throw SyncTransportError.refused(server: shown, status: status, message: message)
            }
        }
        do {
            // A pull's page by hand (WireJSON), every other answer by its Codable conformance.
            if let wire = type as? any WireJSONDecodable.Type, let answer = try WireJSON.decode(wire, from: bytes) as? Answer { return answer }
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch {
            throw SyncTransportError.badAnswer(server: shown, reason: WireDecodingFailure.describe(error))
        }
    }

    /// Sends `request` and reads its whole answer (at most ``maximumAnswerBytes``).
    private static func exchange(
        _ request: HTTPClientRequest, on client: HTTPClient, server: String, url: URL, caFile: String?, timeout: Duration
    ) async throws -> (status: Int, bytes: [UInt8]) {
        var bytes: [UInt8] = []
        do {
            // The head's own deadline, a little after the whole request's (the caller's).
            let response = try await client.execute(request, timeout: TimeAmount(timeout) + .milliseconds(500))
            for try await chunk in response.body {
                guard bytes.count + chunk.readableBytes <= maximumAnswerBytes else {
                    throw SyncTransportError.badAnswer(server: server, reason: "the answer is larger than \(maximumAnswerBytes >> 20) MiB")
                }
                bytes.append(contentsOf: chunk.readableBytesView)
            }
            try Task.checkCancellation()
            return (Int(response.status.code), bytes)
        } catch let error as SyncTransportError {
            throw error
        } catch {
            if let reason = await CertificateRefusal.reason(for: error, url: url, caFile: caFile) {
                throw SyncTransportError.untrusted(server: server, reason: reason)
            }
            switch HTTPArchiveRepository.mapped(error, url: server, timeout: timeout) {
            case let cancelled as CancellationError: throw cancelled
            case ArchiveAPIError.timeout: throw SyncTransportError.timedOut(server: server, seconds: timeout.seconds)
            default: throw Self.unreachable(server, error)
            }
        }
    }
}

extension HTTPSyncTransport {
    /// `server` could not be reached because of `error`, in one plain phrase; a plain-http
    /// request the other side closed before any answer adds that it may speak HTTPS (a TLS
    /// listener closes so on a request's first bytes: `http://` given for an `https://` service).
    static func unreachable(_ server: String, _ error: any Error) -> SyncTransportError {
        var reason = HTTPArchiveRepository.failureReason(error)
        if server.lowercased().hasPrefix("http://"), (error as? HTTPClientError) == .remoteConnectionClosed {
            reason += "; it may speak HTTPS: try https://\(server.dropFirst("http://".count))"
        }
        return .unreachable(server: server, reason: reason)
    }
}
