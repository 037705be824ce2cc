import ArchiveNetwork
public import ArchiveAPI
import NIOPosix
import AsyncHTTPClient
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import ArchiveSyncWire
import NIOCore
import NIOHTTP1

/// ``RequestArchiveRepository`` over a json-server-style HTTP endpoint, on
/// AsyncHTTPClient (SwiftNIO: no libcurl, no polling while it waits).
///
/// - `GET {base}/archive_images?q=KEYWORD&category=CATEGORY` (each query item
///   omitted when empty) returns a JSON array of ``ArchiveSceneEntity``;
/// - `GET {base}/archive_images/ID` returns one (404: ``ArchiveAPIError/notFound(id:source:)``).
///
/// Every request is bounded: one total deadline (``timeout``: connecting, the
/// answer's head and its whole body) and a largest body (``maximumBodyBytes``,
/// enforced while the body streams in, so an endless body costs bounded memory).
/// A cancelled task cancels its request's connection work. Failures are
/// ``ArchiveAPIError`` values naming the URL.
public struct HTTPArchiveRepository: RequestArchiveRepository {
    /// The largest body accepted by default: 8 MiB.
    public static let defaultMaximumBodyBytes = 8 << 20

    /// The endpoint's base URL, such as `http://127.0.0.1:3000`.
    public let baseURL: URL
    /// How long one request may take in all.
    public let timeout: Duration
    /// The largest response body accepted, in bytes.
    public let maximumBodyBytes: Int

    /// The process's one client: its connections are pooled across requests and
    /// repositories. It lives as long as the process (a `static let` is never
    /// deinitialized), on NIO's shared event loops, so there is nothing to shut
    /// down and nothing to leak or crash at exit.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 5, allowCycles: false),
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(30)),  // the request's own deadline is shorter
            decompression: .disabled)
        // A refused connection is an answer ("cannot reach"), not something to retry until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// A client of the endpoint at `baseURL`; throws ``ArchiveAPIError/invalidBaseURL(_:)``
    /// unless it is an absolute http(s) URL, and
    /// ``ArchiveAPIError/baseURLWithQueryOrFragment(_:)`` for one with a query or a
    /// fragment (`…/api?token=abc` would have become `…/archive_images?token=abc?q=…`,
    /// and a `#` dropped the keyword, so that every dish came back as the search's answer).
    public init(baseURL: String, timeout: Duration = .seconds(10), maximumBodyBytes: Int = HTTPArchiveRepository.defaultMaximumBodyBytes) throws {
        guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host?.isEmpty == false
        else {
            throw ArchiveAPIError.invalidBaseURL(baseURL)
        }
        guard !baseURL.contains("?"), !baseURL.contains("#") else {
            throw ArchiveAPIError.baseURLWithQueryOrFragment(baseURL)
        }
        self.baseURL = url
        self.timeout = timeout
        self.maximumBodyBytes = maximumBodyBytes
    }

    // MARK: - RequestArchiveRepository

    public func getArchiveResponse(keyword: String, category: String) async throws -> [ArchiveSceneEntity] {
        var items: [QueryString.Item] = []
        let keyword = keyword.trimmingWhitespace()
        let category = category.trimmingWhitespace()
        if !keyword.isEmpty { items.append(QueryString.Item("q", keyword)) }
        if !category.isEmpty { items.append(QueryString.Item("category", category)) }
        let query = items.isEmpty ? "" : "?" + QueryString.encode(items)
        guard let url = URL(string: endpoint().absoluteString + query) else { throw ArchiveAPIError.invalidBaseURL(baseURL.absoluteString) }
        return try await fetch([ArchiveSceneEntity].self, from: url, notFoundID: nil)
    }

    public func getArchiveEntity(id: Int) async throws -> ArchiveSceneEntity {
        try await fetch(ArchiveSceneEntity.self, from: endpoint().appendingPathComponent(String(id)), notFoundID: id)
    }

    public func categories() async throws -> [String] {
        let all = try await fetch([ArchiveSceneEntity].self, from: endpoint(), notFoundID: nil)
        var seen = Set<String>()
        return all.sorted { $0.id < $1.id }.map(\.category).filter { seen.insert($0).inserted }
    }

    // MARK: - Requests

    private func endpoint() -> URL {
        baseURL.appendingPathComponent("archive_images")
    }

    private func fetch<Value: Decodable>(_ type: Value.Type, from url: URL, notFoundID: Int?) async throws -> Value {
        let text = url.absoluteString
        let body = try await withDeadline(url: text) {
            do {
                return try await self.download(text, notFoundID: notFoundID)
            } catch is ClosedBeforeAnswering {
                // A pooled keep-alive connection the server had just closed: a GET is
                // idempotent, so it is sent once more, on a new connection, within the same deadline.
                do {
                    return try await self.download(text, notFoundID: notFoundID)
                } catch let error as ClosedBeforeAnswering {
                    throw ArchiveAPIError.unreachable(url: text, reason: error.reason)
                }
            }
        }
        return try Self.decode(type, from: Data(body), url: text)
    }

    /// Runs `operation`, failing with ``ArchiveAPIError/timeout(url:seconds:)`` when it
    /// is not done within ``timeout`` (``ClientDeadline``).
    private func withDeadline<Result: Sendable>(url: String, _ operation: @escaping @Sendable () async throws -> Result) async throws -> Result {
        let timeout = self.timeout
        return try await ClientDeadline.run(timeout, timeoutError: { ArchiveAPIError.timeout(url: url, seconds: timeout.seconds) }, operation)
    }

    private func download(_ url: String, notFoundID: Int?) async throws -> [UInt8] {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        do {
            // The head's own deadline; the whole request's is `withDeadline`'s.
            response = try await Self.client.execute(request, timeout: .nanoseconds(Int64(timeout.seconds * 1e9) + 1_000_000))
        } catch let error as HTTPClientError where error == .remoteConnectionClosed {
            throw ClosedBeforeAnswering(reason: "the server closed the connection without answering")
        } catch {
            throw Self.mapped(error, url: url, timeout: timeout)
        }
        if response.status == .notFound, let id = notFoundID {
            throw ArchiveAPIError.notFound(id: id, source: url)
        }
        guard (200..<300).contains(response.status.code) else {
            throw ArchiveAPIError.badStatus(url: url, status: Int(response.status.code))
        }
        if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > maximumBodyBytes {
            throw ArchiveAPIError.tooLarge(url: url, limit: maximumBodyBytes)
        }
        var bytes: [UInt8] = []
        do {
            for try await chunk in response.body {
                guard bytes.count + chunk.readableBytes <= maximumBodyBytes else {
                    throw ArchiveAPIError.tooLarge(url: url, limit: maximumBodyBytes)
                }
                bytes.append(contentsOf: chunk.readableBytesView)
            }
        } catch let error as ArchiveAPIError {
            throw error
        } catch {
            throw Self.mapped(error, url: url, timeout: timeout)
        }
        // A cancelled body stream ends early: never decode half a body.
        try Task.checkCancellation()
        return bytes
    }

    /// The connection closed before any answer came (retried once by ``fetch``).
    private struct ClosedBeforeAnswering: Error {
        let reason: String
    }

    /// AsyncHTTPClient's and NIO's errors as ``ArchiveAPIError`` (or cancellation).
    package static func mapped(_ error: any Error, url: String, timeout: Duration) -> any Error {
        if error is CancellationError || Task.isCancelled { return CancellationError() }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .connectTimeout, .readTimeout, .writeTimeout:
                return ArchiveAPIError.timeout(url: url, seconds: timeout.seconds)
            case .cancelled:
                return CancellationError()
            default:
                break
            }
        }
        return ArchiveAPIError.unreachable(url: url, reason: failureReason(error))
    }

    /// Why a request to a server failed, in one plain phrase (``NetworkFailure``).
    package static func failureReason(_ error: any Error) -> String {
        if let phrase = NetworkFailure.phrase(for: error) { return phrase }
        if let error = error as? HTTPClientError {
            switch error {
            case .redirectLimitReached, .redirectCycleDetected: return "it redirects in a loop (or more than 5 times)"
            case .remoteConnectionClosed: return "the server closed the connection without answering"
            case .connectTimeout, .deadlineExceeded, .readTimeout, .writeTimeout: return "it did not answer in time"
            case .invalidURL, .emptyHost, .emptyScheme: return "the URL cannot be used"
            default: return "\(error)"
            }
        }
        return "\(error)"
    }

    /// Decodes `data`, telling JSON that is not JSON from JSON of the wrong shape.
    ///
    /// Only a body that fails to decode is read a second time, by ``AnyJSONValue``,
    /// to say which: that check decodes every value and costs several times the
    /// decode itself (0.33 s against 0.09 s for a 4.9 MB catalog). A body that
    /// decodes is taken as it is: `JSONDecoder` has checked the structure of the
    /// whole text, though not the digits of a value the catalog ignores.
    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data, url: String) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            guard (try? JSONDecoder().decode(AnyJSONValue.self, from: data)) != nil else {
                let preview = String(decoding: data.prefix(60), as: UTF8.self)
                throw ArchiveAPIError.malformedJSON(url: url, reason: "the body starts with '\(preview)'")
            }
            throw ArchiveAPIError.unexpectedShape(url: url, reason: error.readableDescription)
        }
    }
}
extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

extension DecodingError {
    /// "at [3].id: expected Int, found a string", without Swift's debug noise.
    var readableDescription: String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.isEmpty ? "the top level" : text.hasPrefix(".") ? String(text.dropFirst()) : text
        }
        func describe(_ type: Any.Type) -> String {
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array (of archive images)" }
            if name.hasPrefix("Dictionary") { return "an object (an archive image)" }
            return name == "Int" ? "an integer" : name == "String" ? "a string" : name
        }
        switch self {
        case .typeMismatch(let type, let context):
            return "at \(path(context.codingPath)): expected \(describe(type))"
        case .valueNotFound(let type, let context):
            return "at \(path(context.codingPath)): expected \(describe(type)), found null"
        case .keyNotFound(let key, let context):
            return "at \(path(context.codingPath)): missing field '\(key.stringValue)'"
        case .dataCorrupted(let context):
            return "at \(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(self)"
        }
    }
}
