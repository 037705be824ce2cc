#if canImport(Glibc)
import Glibc
#endif

/// Tells the service manager (systemd, `Type=notify`) what `archive-server serve` is doing,
/// by the `sd_notify` protocol: one datagram a message, sent to the Unix socket named by
/// `NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace).
///
/// `READY=1` goes once every listener listens, which is after the signals are trapped:
/// systemd holds a `systemctl reload` (SIGHUP) of a unit that has not said it is ready, so
/// no reload can reach the process while SIGHUP still has its default action (to end it).
/// `STOPPING=1` goes as a graceful stop begins. `STATUS=` carries a line for
/// `systemctl status`.
///
/// Written here rather than linking libsystemd's `sd_notify`: the protocol is a few bytes on
/// a datagram socket, systemd documents it as stable for other implementations, and the
/// service would otherwise need libsystemd at run time on every machine, systemd or not.
/// Without `NOTIFY_SOCKET` (run by hand, or `Type=exec`) it does nothing.
struct ServiceManagerNotifier: Sendable {
    /// The socket's address as the environment gave it, or `nil` when none was given.
    let socket: String?

    /// The notifier of this process's environment (`NOTIFY_SOCKET`).
    static func fromEnvironment() -> ServiceManagerNotifier {
        ServiceManagerNotifier(socket: getenv("NOTIFY_SOCKET").map { String(cString: $0) })
    }

    /// What went wrong sending a notification: said in the log, never fatal (the service
    /// serves whether or not its manager hears it).
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The service listens: `READY=1`, with `status` for `systemctl status`.
    func ready(status: String) throws(Failure) {
        try send("READY=1\nSTATUS=\(Self.oneLine(status))\n")
    }

    /// A graceful stop begins: `STOPPING=1`.
    func stopping(status: String) throws(Failure) {
        try send("STOPPING=1\nSTATUS=\(Self.oneLine(status))\n")
    }

    /// `text` as one line (a status with a newline would start a field of its own).
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    /// Sends `message` as one datagram to ``socket``; nothing when there is none.
    func send(_ message: String) throws(Failure) {
        guard let socket, !socket.isEmpty else { return }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socket.utf8)
        // The abstract namespace: a leading NUL instead of the `@`, and the length counts
        // exactly the name's bytes (no terminating NUL).
        let abstract = path.first == UInt8(ascii: "@")
        guard abstract || path.first == UInt8(ascii: "/") else {
            throw Failure(description: "NOTIFY_SOCKET=\(socket.prefix(200).debugDescription) is neither a path nor an abstract name (@…); systemd was not told")
        }
        if abstract { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else {
            throw Failure(description: "NOTIFY_SOCKET is \(path.count) bytes, past a socket address's \(capacity - 1); systemd was not told")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path)
        }
        // `sun_path` follows `sun_family` with no padding between them.
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (abstract ? 0 : 1))
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot open a socket to tell systemd: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array(message.utf8)
        var sent: Int
        repeat {
            sent = bytes.withUnsafeBytes { body in
                withUnsafePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(descriptor, body.baseAddress, body.count, Int32(MSG_NOSIGNAL), $0, length) }
                }
            }
        } while sent < 0 && errno == EINTR
        guard sent == bytes.count else {
            throw Failure(description: "cannot tell systemd at \(socket.prefix(200)): \(sent < 0 ? String(cString: strerror(errno)) : "a short send")")
        }
    }
}
