import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 proxy on 127.0.0.1 in front of a server, that can lose an answer on the way:
/// the request reaches the server, which does its work and answers, and the proxy closes the
/// client's connection instead of passing the answer on (a dropped mobile connection, a
/// proxy timing out). Plain sockets and a thread per connection; each request goes to the
/// server on a connection of its own. Stopped on `deinit`.
public final class LossyProxy: @unchecked Sendable {
    // @unchecked Sendable: `upstream` and `listener` are set once in `init`; `armed` and
    // `lost` are only touched under `lock`.

    /// The proxy's base URL, such as `http://127.0.0.1:PORT`: give it to the client.
    public var url: String { listener.url }
    private let listener: LoopbackListener
    private let upstream: String
    private let lock = NSLock()
    private var armed: (@Sendable (String) -> Bool)?
    private var lost: [String] = []

    /// A proxy to the server at `upstream` (`http://127.0.0.1:PORT`).
    public init(to upstream: String) throws {
        self.upstream = upstream
        listener = try LoopbackListener()
        listener.start { [weak self] connection in self?.relay(connection) }
    }

    /// Loses the answer to the next request whose request line (`GET /path?query HTTP/1.1`)
    /// satisfies `matches`: the server handles it, the client sees its connection closed.
    public func loseNextAnswer(where matches: @escaping @Sendable (String) -> Bool) {
        lock.withLock { armed = matches }
    }

    /// The request lines whose answers were lost, in order.
    public var lostAnswers: [String] { lock.withLock { lost } }

    /// Whether the answer to `line` is to be lost (disarming the proxy if so).
    private func loses(_ line: String) -> Bool {
        lock.withLock {
            guard let matches = armed, matches(line) else { return false }
            armed = nil
            lost.append(line)
            return true
        }
    }

    /// Passes requests on `connection` to the server, one at a time, and their answers back.
    private func relay(_ connection: Int32) {
        var buffer: [UInt8] = []
        while let request = Self.readRequest(connection, buffer: &buffer) {
            guard let server = try? RawHTTPConnection(url: upstream), server.send(request.bytes),
                  let answer = try? server.readResponse(hasBody: !request.line.hasPrefix("HEAD "), timeout: .seconds(60))
            else { return }
            if loses(request.line) { return }
            var head = "HTTP/1.1 \(answer.status) \(answer.status == 200 ? "OK" : "Status")\r\n"
            for header in answer.headers { head += "\(header.name): \(header.value)\r\n" }
            guard LoopbackListener.write(connection, Array((head + "\r\n").utf8) + answer.body) else { return }
        }
    }

    /// Reads one request (its head, and as many body bytes as Content-Length says) from
    /// `connection`, `buffer` holding what was read past the previous one; `nil` at its end.
    private static func readRequest(_ connection: Int32, buffer: inout [UInt8]) -> (line: String, bytes: [UInt8])? {
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while true {
            headEnd = buffer.count >= 4 ? buffer.indices.dropLast(3).first { buffer[$0..<($0 + 4)].elementsEqual(separator) } : nil
            if headEnd != nil { break }
            guard fill(connection, &buffer) else { return nil }
        }
        guard let headEnd else { return nil }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        while buffer.count < headEnd + 4 + length {
            guard fill(connection, &buffer) else { return nil }
        }
        let bytes = Array(buffer[..<(headEnd + 4 + length)])
        buffer.removeFirst(headEnd + 4 + length)
        return (lines[0], bytes)
    }

    private static func fill(_ connection: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer += chunk[..<count]
        return true
    }
}
