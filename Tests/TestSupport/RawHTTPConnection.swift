import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 connection on a plain socket, for server tests: sends exactly
/// the bytes a test gives (oversized, half-sent, pipelined, never finished) and
/// reads responses with a deadline, independent of the HTTP stack under test.
/// Closed on `deinit`.
public final class RawHTTPConnection {
    /// A response as read off the wire.
    public struct Response: Sendable {
        /// The status code.
        public let status: Int
        /// The header fields, in order, names as sent.
        public let headers: [(name: String, value: String)]
        /// The body (empty for a HEAD, whatever Content-Length says).
        public let body: [UInt8]

        /// The first value of the header `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The body as UTF-8 text.
        public var text: String { String(decoding: body, as: UTF8.self) }

        /// The body parsed as JSON.
        public func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(body)) }
    }

    /// Why a read gave up.
    public enum Failure: Error, CustomStringConvertible {
        case timedOut(after: Duration)
        case closed
        case malformed(String)

        public var description: String {
            switch self {
            case .timedOut(let after): "no complete response within \(after)"
            case .closed: "the server closed the connection"
            case .malformed(let head): "not an HTTP response head: \(head.prefix(200))"
            }
        }
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1 at the port of `url` (`http://127.0.0.1:PORT`).
    public init(url: String) throws {
        guard let port = URL(string: url)?.port else { throw POSIXError(.EINVAL) }
        // Close-on-exec: a child another test starts meanwhile must not hold this connection
        // open after the test closes it (the server would never see it close).
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let code = POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED
            close(descriptor)
            throw POSIXError(code)
        }
    }

    deinit { close(descriptor) }

    /// Sends all of `text`; false once the server has closed (or reset) the connection.
    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends `byte` every `interval` until the server answers or closes the connection (a
    /// body trickled at a client's pace): between bytes it waits on the socket itself, so it
    /// stops at the server's first word, not at the next byte.
    public func trickle(_ byte: UInt8, every interval: Duration) {
        let milliseconds = Int32(clamping: interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        var socket = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while send([byte]) {
            if poll(&socket, 1, milliseconds) != 0 { return }
        }
    }

    /// Sends all of `bytes`; false once the server has closed (or reset) the connection.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var remaining = bytes[...]
        while !remaining.isEmpty {
            let sent = remaining.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            remaining = remaining.dropFirst(sent)
        }
        return true
    }

    /// `GET`s (or `method`s) `target` with no body, and reads the response.
    public func request(_ target: String, method: String = "GET", timeout: Duration = .seconds(10)) throws -> Response {
        guard send("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") else { throw Failure.closed }
        return try readResponse(hasBody: method != "HEAD", timeout: timeout)
    }

    /// Reads one response: its head, then as many body bytes as Content-Length says
    /// (none when `hasBody` is false, as for a HEAD).
    public func readResponse(hasBody: Bool = true, timeout: Duration = .seconds(10)) throws -> Response {
        let deadline = ContinuousClock.now + timeout
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            headEnd = buffer.indices.dropLast(3).first { buffer[$0..<($0 + 4)].elementsEqual(separator) }
            if headEnd == nil { try fill(until: deadline, timeout: timeout) }
        }
        guard let headEnd else { throw Failure.closed }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw Failure.malformed(head)
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        buffer.removeFirst(headEnd + 4)
        let length = hasBody ? Int(headers.first { $0.name.lowercased() == "content-length" }?.value ?? "0") ?? 0 : 0
        while buffer.count < length { try fill(until: deadline, timeout: timeout) }
        let body = Array(buffer.prefix(length))
        buffer.removeFirst(length)
        return Response(status: status, headers: headers, body: body)
    }

    /// Reads what the server sends (an answer streamed in chunks: an event stream) until
    /// `marker` appears in it, and returns everything read up to and including it. Throws
    /// when `timeout` passes first, or the server closes the connection.
    public func read(until marker: String, timeout: Duration = .seconds(10)) throws -> String {
        let deadline = ContinuousClock.now + timeout
        let wanted = Array(marker.utf8)
        while true {
            if let start = buffer.indices.first(where: { buffer[$0...].starts(with: wanted) }) {
                let end = start + wanted.count
                let text = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end)
                return text
            }
            try fill(until: deadline, timeout: timeout)
        }
    }

    /// Waits up to `timeout` for the server to close the connection (end of stream or
    /// reset) and returns what it sent first (not yet read), or `nil` when it did not close.
    public func readUntilClose(timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                try fill(until: deadline, timeout: timeout)
            } catch Failure.closed {
                let text = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                return text
            } catch {
                return nil
            }
        }
    }

    /// Waits up to `timeout` for the server to close the connection (end of stream
    /// or reset), discarding whatever it sends first; whether it did.
    public func waitForClose(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                try fill(until: deadline, timeout: timeout)
                buffer.removeAll()
            } catch Failure.closed {
                return true
            } catch {
                return false
            }
        }
    }

    /// Waits up to `timeout` until the server has read everything sent on this
    /// connection (its socket's receive queue in `/proc/net/tcp` is empty), so a request
    /// is known to be in the server's hands, not in the kernel's; whether it happened.
    /// The kernel tells no one when a peer reads, so this polls (``Deadline/poll(every:within:until:)``).
    public func waitUntilServerHasRead(timeout: Duration = Deadline.standard) -> Bool {
        var local = sockaddr_in(), remote = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        } == 0 && withUnsafeMutablePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        } == 0
        guard named else { return false }
        // The server's end of this connection: its local port is our peer's, its remote ours.
        let serverEnd = String(format: ":%04X %@:%04X", UInt16(bigEndian: remote.sin_port), "0100007F", UInt16(bigEndian: local.sin_port))
        return Deadline.poll(within: timeout) {
            Self.contents(of: "/proc/net/tcp").split(separator: "\n").contains { line in
                // Fields: sl, local, remote, st, tx_queue:rx_queue, ...
                let fields = line.split(separator: " ")
                return line.contains(serverEnd) && fields.count > 4 && fields[4].hasSuffix(":00000000")
            }
        }
    }

    /// All of a `/proc` file, read to its end (its size says 0, so Foundation's readers
    /// can stop early on a long table).
    private static func contents(of path: String) -> String {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return "" }
        defer { close(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads what is available into `buffer`, waiting until `deadline`.
    private func fill(until deadline: ContinuousClock.Instant, timeout: Duration) throws {
        let left = deadline - .now
        guard left > .zero else { throw Failure.timedOut(after: timeout) }
        var descriptor = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
        guard poll(&descriptor, 1, milliseconds) > 0 else { throw Failure.timedOut(after: timeout) }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(self.descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw Failure.closed }  // 0: end of stream; -1: reset
        buffer.append(contentsOf: chunk[..<count])
    }
}
