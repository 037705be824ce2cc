public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``RequestArchiveRepository`` over a json-server-style HTTP endpoint.
///
/// - `GET {base}/archive_images?q=KEYWORD&category=CATEGORY` (each query item
///   omitted when empty) returns a JSON array of ``ArchiveSceneEntity``;
/// - `GET {base}/archive_images/ID` returns one (404: ``ArchiveAPIError/notFound(id:source:)``).
///
/// Timeouts, non-2xx statuses, bodies that are not JSON and JSON of another
/// shape become ``ArchiveAPIError`` values naming the URL.
public struct HTTPArchiveRepository: RequestArchiveRepository {
    /// The endpoint's base URL, such as `http://127.0.0.1:3000`.
    public let baseURL: URL
    /// How long one request may take.
    public let timeout: Duration
    private let session: URLSession

    /// A client of the endpoint at `baseURL`; throws ``ArchiveAPIError/invalidBaseURL(_:)``
    /// unless it is an absolute http(s) URL.
    public init(baseURL: String, timeout: Duration = .seconds(10)) throws {
        guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host?.isEmpty == false
        else {
            throw ArchiveAPIError.invalidBaseURL(baseURL)
        }
        self.baseURL = url
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout.seconds
        configuration.timeoutIntervalForResource = timeout.seconds
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.session = URLSession(configuration: configuration)
    }

    // MARK: - RequestArchiveRepository

    public func getArchiveResponse(keyword: String, category: String) async throws -> [ArchiveSceneEntity] {
        var components = URLComponents(url: endpoint(), resolvingAgainstBaseURL: false)
        var items: [URLQueryItem] = []
        let keyword = keyword.trimmingWhitespace()
        let category = category.trimmingWhitespace()
        if !keyword.isEmpty { items.append(URLQueryItem(name: "q", value: keyword)) }
        if !category.isEmpty { items.append(URLQueryItem(name: "category", value: category)) }
        components?.queryItems = items.isEmpty ? nil : items
        guard let url = components?.url else { throw ArchiveAPIError.invalidBaseURL(baseURL.absoluteString) }
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
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout.seconds)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch let error as URLError {
            if error.code == .cancelled || Task.isCancelled { throw CancellationError() }
            if error.code == .timedOut { throw ArchiveAPIError.timeout(url: url.absoluteString, seconds: timeout.seconds) }
            throw ArchiveAPIError.unreachable(url: url.absoluteString, reason: error.localizedDescription)
        }
        if Task.isCancelled { throw CancellationError() }
        guard let http = response as? HTTPURLResponse else {
            throw ArchiveAPIError.unreachable(url: url.absoluteString, reason: "the answer is not HTTP")
        }
        if http.statusCode == 404, let id = notFoundID {
            throw ArchiveAPIError.notFound(id: id, source: url.absoluteString)
        }
        guard (200..<300).contains(http.statusCode) else {
            throw ArchiveAPIError.badStatus(url: url.absoluteString, status: http.statusCode)
        }
        return try Self.decode(type, from: data, url: url.absoluteString)
    }

    /// Decodes `data`, telling JSON that is not JSON from JSON of the wrong shape.
    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data, url: String) throws -> Value {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let preview = String(decoding: data.prefix(60), as: UTF8.self)
            throw ArchiveAPIError.malformedJSON(url: url, reason: "the body starts with '\(preview)'")
        }
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw ArchiveAPIError.unexpectedShape(url: url, reason: error.readableDescription)
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: Double {
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
