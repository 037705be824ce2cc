import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A listening socket on 127.0.0.1 (a free port) that hands each connection to a handler on
/// a thread of its own and closes it when `handle` returns: the tests' own servers
/// (``HostileHTTPServer``, ``LossyProxy``), on plain sockets, independent of the HTTP stacks
/// under test. Stopped on `deinit`: open connections are shut down, the listener closed.
public final class LoopbackListener: @unchecked Sendable {
    // @unchecked Sendable: `url` and `listener` are set once in `init`; `stopped` and
    // `connections` are only touched under `lock`.

    /// The base URL, such as `http://127.0.0.1:PORT`.
    public let url: String
    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private var connections: [Int32] = []

    /// Listens on a free port; connections wait for ``start(_:)``.
    public init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        guard bound == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        url = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
    }

    /// Accepts connections from now on, each handed to `handle`, then closed.
    public func start(_ handle: @escaping @Sendable (Int32) -> Void) {
        let listener = self.listener
        // The accepting thread owns the listener and closes it when it stops: `deinit` only
        // shuts it down. Closed there, its descriptor number could be reused by the next
        // test's server while this thread still called accept(2) on it, and this thread
        // would take (and close) the next server's connections: "connection refused".
        Thread.detachNewThread { [weak self] in
            defer { close(listener) }
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                // Close-on-exec (Swift's Glibc has no accept4): a child started meanwhile must
                // not keep the connection open.
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                guard let self, self.register(connection) else { close(connection); return }
                Thread.detachNewThread { [weak self] in
                    handle(connection)
                    if let self { self.unregisterAndClose(connection) } else { close(connection) }
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

    /// Sends all of `bytes` on `connection`; false once the peer is gone.
    public static func write(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var remaining = bytes[...]
        while !remaining.isEmpty {
            let sent = remaining.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            remaining = remaining.dropFirst(sent)
        }
        return true
    }
}
