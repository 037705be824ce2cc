import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A misbehaving HTTP server on 127.0.0.1, for client tests: plain sockets and a
/// thread per connection, independent of the HTTP stacks under test. It reads
/// the request head, then does what ``Behavior`` says. Stopped on `deinit`.
public final class HostileHTTPServer: @unchecked Sendable {
    // @unchecked Sendable: `url` and `listener` are set once in `init`; `stopped` and
    // `connections` are only touched under `lock`, the two counts only under `counters`.

    /// What the server does after reading a request's head.
    public enum Behavior: Sendable {
        /// Writes these bytes (a whole response, or garbage) and closes.
        case raw(String)
        /// A 200 head, then body bytes forever, as fast as the client reads.
        case endlessBody
        /// A 200 head announcing a body, then one byte every `interval`.
        case drip(interval: Duration)
        /// Never answers; keeps the connection open.
        case hang
        /// `302 Found` to the same path, forever.
        case redirectLoop
    }

    /// The base URL, such as `http://127.0.0.1:PORT`.
    public let url: String
    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private var connections: [Int32] = []
    /// Guards the two counts below, and signals when either moves.
    private let counters = NSCondition()
    private var closedCount = 0
    private var receivedCount = 0

    /// Waits until `count` connections in all have been closed by the client
    /// (or the behavior ended), or `timeout` passed; returns whether they were.
    public func waitForClosedConnections(_ count: Int, timeout: Duration) -> Bool {
        wait(timeout: timeout) { $0.closedCount >= count }
    }

    /// Waits until `count` request heads in all have been received, or `timeout` passed.
    public func waitForRequests(_ count: Int, timeout: Duration) -> Bool {
        wait(timeout: timeout) { $0.receivedCount >= count }
    }

    private func wait(timeout: Duration, until done: (HostileHTTPServer) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        counters.lock()
        defer { counters.unlock() }
        while !done(self) {
            if !counters.wait(until: deadline) { return done(self) }
        }
        return true
    }

    private func requestReceived() {
        counters.lock()
        receivedCount += 1
        counters.broadcast()
        counters.unlock()
    }

    private func connectionClosed() {
        counters.lock()
        closedCount += 1
        counters.broadcast()
        counters.unlock()
    }

    /// Starts listening and answering with `behavior`.
    public init(_ behavior: Behavior) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        guard bound == 0, listen(listener, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        url = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
        // The accepting thread owns the listener and closes it when it stops: `deinit` only
        // shuts it down. Closed there, its descriptor number could be reused by the next
        // test's server while this thread still called accept(2) on it, and this thread
        // would take (and close) the next server's connections: "connection refused".
        Thread.detachNewThread { [weak self] in
            defer { close(listener) }
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                guard let self, self.register(connection) else { close(connection); return }
                Thread.detachNewThread { [weak self] in
                    Self.serve(connection, behavior) { self?.requestReceived() }
                    if let self { self.unregisterAndClose(connection) } else { close(connection) }
                    self?.connectionClosed()
                }
            }
        }
    }

    deinit {
        lock.lock()
        stopped = true
        // Under the lock: a connection is closed (and its number free for reuse) only under
        // it too, so this never shuts down another socket that took a closed one's number.
        for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        lock.unlock()
        shutdown(listener, Int32(SHUT_RDWR))  // wakes the accepting thread, which closes it
    }

    /// Forgets and closes a connection whose exchange is over.
    private func unregisterAndClose(_ connection: Int32) {
        lock.lock()
        defer { lock.unlock() }
        connections.removeAll { $0 == connection }
        close(connection)
    }

    private func register(_ connection: Int32) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if stopped { return false }
        connections.append(connection)
        return true
    }

    /// Answers on `connection` with `behavior`; the caller closes it.
    private static func serve(_ connection: Int32, _ behavior: Behavior, received: () -> Void) {
        readHead(connection)
        received()
        switch behavior {
        case .raw(let text):
            _ = send(connection, text, text.utf8.count, Int32(MSG_NOSIGNAL))
        case .endlessBody:
            guard write(connection, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n[") else { return }
            let chunk = String(repeating: #"{"id":1},"#, count: 4096)
            while write(connection, chunk) {}
        case .drip(let interval):
            guard write(connection, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n") else { return }
            let milliseconds = Int32(clamping: interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
            // Between bytes, wait on the socket itself: a client that gives up (closes)
            // ends the drip at once instead of at the next write.
            var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            while write(connection, " ") {
                if poll(&descriptor, 1, milliseconds) != 0 { return }  // the client closed or sent more: stop
            }
        case .hang:
            var byte: UInt8 = 0
            while recv(connection, &byte, 1, 0) > 0 {}  // until the client gives up
        case .redirectLoop:
            _ = write(connection, "HTTP/1.1 302 Found\r\nLocation: /archive_images\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
    }

    /// Reads until the blank line that ends a request head (or the peer closes).
    private static func readHead(_ connection: Int32) {
        var tail: [UInt8] = []
        var byte: UInt8 = 0
        while recv(connection, &byte, 1, 0) == 1 {
            tail.append(byte)
            if tail.count > 4 { tail.removeFirst() }
            if tail == Array("\r\n\r\n".utf8) { return }
        }
    }

    /// Sends all of `text`; false once the peer is gone.
    private static func write(_ connection: Int32, _ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            bytes = bytes.dropFirst(sent)
        }
        return true
    }
}
