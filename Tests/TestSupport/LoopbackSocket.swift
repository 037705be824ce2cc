import Foundation

/// A TCP socket bound to 127.0.0.1 on a port the kernel chose, held open until released:
/// bound only, connections to its port are refused; listening (and never accepting), a
/// connection is made and no answer comes. ``freePort()`` lets one go at once, for a
/// process of the test's to bind.
public final class LoopbackSocket {
    /// The socket.
    public let descriptor: Int32
    /// Its port.
    public let port: Int

    /// A socket bound to a port of 127.0.0.1, and listening when `listening`.
    public init(listening: Bool = false) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = self.descriptor
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard descriptor >= 0, bound, !listening || listen(descriptor, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot bind a socket to 127.0.0.1: \(reason)"])
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }

    /// A port of 127.0.0.1 that nothing listens on now (bound, then let go).
    public static func freePort() throws -> Int {
        try LoopbackSocket().port
    }
}
