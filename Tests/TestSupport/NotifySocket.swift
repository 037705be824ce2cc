import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A service manager's notification socket, as systemd makes for a `Type=notify` unit: a
/// Unix datagram socket bound at a path, given to the service as `NOTIFY_SOCKET`, on which
/// ``next(within:)`` reads what the service says (`READY=1`, `STOPPING=1`, …). Closed and
/// unlinked on `deinit`.
public final class NotifySocket {
    /// The socket's path (what `NOTIFY_SOCKET` says).
    public let path: String
    private let descriptor: Int32

    /// Binds a datagram socket at `path`, readable and writable by every user (a sandboxed
    /// service runs as another one).
    public init(path: String) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw POSIXError(.ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, chmod(path, 0o666) == 0 else {
            let code = errno
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// The next datagram's text, or `nil` when none came within `limit`.
    public func next(within limit: Duration = Deadline.standard) -> String? {
        let deadline = ContinuousClock.now + limit
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var watched = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let (seconds, attoseconds) = left.components
            let ready = poll(&watched, 1, Int32(min(seconds * 1_000 + attoseconds / 1_000_000_000_000_000 + 1, Int64(Int32.max))))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            return String(decoding: buffer[..<count], as: UTF8.self)
        }
    }
}
