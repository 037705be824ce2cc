import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A misbehaving HTTP server on 127.0.0.1, for client tests: plain sockets and a
/// thread per connection, independent of the HTTP stacks under test. It reads
/// the request head, then does what ``Behavior`` says. Stopped on `deinit`.
public final class HostileHTTPServer: @unchecked Sendable {
    // @unchecked Sendable: `listener` is set once in `init`; the two counts are only
    // touched under `counters`.

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
    public var url: String { listener.url }
    private let listener: LoopbackListener
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
        listener = try LoopbackListener()
        listener.start { [weak self] connection in
            Self.serve(connection, behavior) { self?.requestReceived() }
            self?.connectionClosed()
        }
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
        LoopbackListener.write(connection, Array(text.utf8))
    }
}
