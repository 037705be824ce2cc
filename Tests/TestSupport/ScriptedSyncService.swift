import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A sync service that answers as a test script says, on 127.0.0.1 (plain sockets, one
/// request per connection, `Connection: close`): the hostile or broken service of the
/// client's tests, which the real `archive-server` never is. Stopped on `deinit`.
public final class ScriptedSyncService: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `script` are set once in `init`; `requests` is
    // only touched under `lock`.

    /// A request as received.
    public struct Request: Sendable {
        /// `GET`, `POST`, …
        public let method: String
        /// The path, without the query.
        public let path: String
        /// The query's items (the last value of a name given twice).
        public let query: [String: String]
        /// The body (`Content-Length` bytes).
        public let body: [UInt8]
        /// The header fields, names lower-cased.
        public let headers: [String: String]

        /// The query item `name` as a whole number.
        public func integer(_ name: String) -> Int64? { query[name].flatMap { Int64($0) } }
    }

    /// What the service does with a request.
    public enum Answer: Sendable {
        /// This status and JSON body.
        case json(status: Int, String)
        /// A 200 head announcing a large JSON body, then one byte every `interval`, for ever.
        case drip(interval: Duration)
        /// Nothing: the connection stays open until the client gives up.
        case silent
    }

    /// The base URL, such as `http://127.0.0.1:PORT`.
    public var url: String { listener.url }
    private let listener: LoopbackListener
    private let lock = NSLock()
    private var received: [Request] = []

    /// The requests received so far, in order.
    public var requests: [Request] {
        lock.lock()
        defer { lock.unlock() }
        return received
    }

    /// Starts answering each request with `script(request, index)` (`index` counts from 0).
    public init(_ script: @escaping @Sendable (Request, Int) -> Answer) throws {
        listener = try LoopbackListener()
        listener.start { [weak self] connection in
            guard let request = Self.read(connection), let self else { return }
            self.lock.lock()
            let index = self.received.count
            self.received.append(request)
            self.lock.unlock()
            Self.answer(script(request, index), on: connection)
        }
    }

    private static func answer(_ answer: Answer, on connection: Int32) {
        switch answer {
        case .json(let status, let body):
            let head = "HTTP/1.1 \(status) Scripted\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
            _ = LoopbackListener.write(connection, Array((head + body).utf8))
        case .drip(let interval):
            guard LoopbackListener.write(connection, Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\nConnection: close\r\n\r\n".utf8)) else { return }
            let milliseconds = Int32(clamping: interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
            // Between bytes, wait on the socket itself: a client that gives up ends the drip at once.
            var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            while LoopbackListener.write(connection, Array(" ".utf8)) {
                if poll(&descriptor, 1, milliseconds) != 0 { return }
            }
        case .silent:
            var byte: UInt8 = 0
            while recv(connection, &byte, 1, 0) > 0 {}
        }
    }

    /// Reads one request: its head, then `Content-Length` bytes of body.
    private static func read(_ connection: Int32) -> Request? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var headEnd: Int?
        while headEnd == nil {
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            bytes.append(contentsOf: chunk[..<count])
            headEnd = bytes.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound
        }
        guard let headEnd else { return nil }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        while bytes.count - headEnd < length {
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            bytes.append(contentsOf: chunk[..<count])
        }
        let target = String(requestLine[1])
        let path = String(target.prefix { $0 != "?" })
        var query: [String: String] = [:]
        if let mark = target.firstIndex(of: "?") {
            for item in target[target.index(after: mark)...].split(separator: "&") {
                let parts = item.split(separator: "=", maxSplits: 1)
                query[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
        }
        return Request(method: String(requestLine[0]), path: path, query: query, body: Array(bytes[headEnd..<(headEnd + length)]), headers: headers)
    }
}
