#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOPosix

/// A failed connection, bind or socket operation said in one plain phrase ("the connection
/// was refused"), for every message that reaches a person: `archive sync --server`, the
/// catalog client, `archive-server`'s bind and its PostgreSQL connection. SwiftNIO's own
/// descriptions name the system call and the errno (`connection reset (error set):
/// Connection refused) (errno: 111)`), which tell a user nothing they can act on.
public enum NetworkFailure {
    /// The phrase for `error` when it is a system or connection failure SwiftNIO reports
    /// (an `IOError`, a `NIOConnectionError`, a `ChannelError`), else `nil`.
    public static func phrase(for error: any Error) -> String? {
        switch error {
        case let error as IOError:
            return phrase(errno: error.errnoCode)
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil {
                return "the host name \(error.host) could not be resolved"
            }
            // Each address tried failed; the first one's reason stands for them.
            guard let first = error.connectionErrors.first else { return "no address of \(error.host) could be connected to" }
            return phrase(for: first.error) ?? "the connection failed"
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return "the connection timed out"
            case .ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed, .inputClosed: return "the connection was closed"
            default: return nil
            }
        default:
            return nil
        }
    }

    /// The phrase for a system error number, lower case, no number in it.
    public static func phrase(errno code: Int32) -> String {
        switch code {
        case ECONNREFUSED: "the connection was refused (nothing listens at that address and port)"
        case ECONNRESET: "the connection was reset"
        case ECONNABORTED: "the connection was aborted"
        case EPIPE: "the connection was closed"
        case ETIMEDOUT: "the connection timed out"
        case EHOSTUNREACH, EHOSTDOWN: "the host cannot be reached"
        case ENETUNREACH, ENETDOWN: "the network cannot be reached"
        case EADDRINUSE: "the address is already in use"
        case EADDRNOTAVAIL: "the address is not one of this machine's"
        case EACCES, EPERM: "permission denied"
        case EMFILE, ENFILE: "too many open files"
        case ENOENT: "no such file or directory (no server's socket there)"
        default: lowercasingFirst(String(cString: strerror(code)))
        }
    }

    private static func lowercasingFirst(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
