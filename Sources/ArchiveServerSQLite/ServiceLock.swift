#if canImport(Glibc)
import Glibc
#endif

/// The mark that a service runs on a SQLite database: a `flock` on `PATH-lock`, shared by
/// every `archive-server serve` on it for as long as it runs, exclusive for `archive-server
/// restore`, which must not replace a file a running service writes to (its writes would go
/// to the replaced file and be lost, and it would keep serving what the restore undid), nor
/// let a service start on the file it is replacing.
///
/// A file of its own, not the database: closing any descriptor of the database would drop
/// the POSIX locks SQLite holds on it in this process. The kernel lets the lock go when its
/// holder ends, however it ends; the file stays (empty) and is never read.
public final class ServiceLock {
    private let descriptor: Int32
    /// The lock file's path.
    public let path: String

    /// Takes the lock of the database at `database`, shared (a service) or `exclusive` (a
    /// restore), or throws ``ServiceLockError/held(database:)`` when a service holds it and
    /// an exclusive lock was asked, or a restore holds it.
    public init(database: String, exclusive: Bool) throws(ServiceLockError) {
        path = database + "-lock"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else {
            let failure = errno
            close(descriptor)
            if failure == EWOULDBLOCK { throw .held(database: database) }
            throw .cannotOpen(path: path, reason: String(cString: strerror(failure)))
        }
    }

    deinit { close(descriptor) }
}

/// Why ``ServiceLock`` was not taken.
public enum ServiceLockError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A service runs on `database`, or a restore of it does.
    case held(database: String)
    /// The lock file at `path` could not be opened or locked, for `reason`.
    case cannotOpen(path: String, reason: String)

    /// What failed and what to do.
    public var description: String {
        switch self {
        case .held(let database):
            "an archive-server serves \(database), or restores a backup over it (either holds \(database)-lock): a restore needs the service stopped (systemctl stop archive-server), a service the restore ended"
        case .cannotOpen(let path, let reason):
            "cannot lock \(path): \(reason); it marks that a service runs on the database beside it: let the service's user write in that directory"
        }
    }
}
