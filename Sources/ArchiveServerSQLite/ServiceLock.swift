#if canImport(Glibc)
import Glibc
#endif

/// The mark that a process owns a SQLite database of the service: an exclusive `flock` on
/// `PATH-lock`, held by `archive-server serve` for as long as it runs and by `archive-server
/// restore` while it replaces the file. The SQLite backend is one process by construction
/// (one writer; the open event streams and the page's sessions are the process's own), so a
/// second `serve` on the same file is refused at start, saying which process holds it; a
/// restore must not replace a file a running service writes to (its writes would go to the
/// replaced file and be lost, and it would keep serving what the restore undid), nor let a
/// service start on the file it is replacing.
///
/// A file of its own, not the database: closing any descriptor of the database would drop
/// the POSIX locks SQLite holds on it in this process. The kernel lets the lock go when its
/// holder ends, however it ends; the file stays and holds the last holder's role and process
/// ID, read only to say who holds the lock.
public final class ServiceLock {
    /// Who holds (or asks for) the lock.
    public enum Holder: String, Sendable, Hashable {
        /// `archive-server serve`.
        case serve
        /// `archive-server restore`.
        case restore
    }

    private let descriptor: Int32
    /// The lock file's path.
    public let path: String

    /// Takes the lock of the database at `database` for `holder`, or throws
    /// ``ServiceLockError/held(database:by:pid:asking:)`` when another process holds it.
    public init(database: String, for holder: Holder) throws(ServiceLockError) {
        path = database + "-lock"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure = errno
            let (owner, pid) = Self.holder(in: descriptor)
            close(descriptor)
            if failure == EWOULDBLOCK { throw .held(database: database, by: owner, pid: pid, asking: holder) }
            throw .cannotOpen(path: path, reason: String(cString: strerror(failure)))
        }
        // Who holds it, for the message of whoever is refused next (best effort: the lock
        // itself is what refuses).
        let line = Array("\(holder.rawValue) \(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = line.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    deinit { close(descriptor) }

    /// The role and process ID the lock file names, when it names them.
    private static func holder(in descriptor: Int32) -> (Holder?, Int32?) {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return (nil, nil) }
        let words = String(decoding: buffer[..<count], as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard words.count == 2 else { return (nil, nil) }
        return (Holder(rawValue: String(words[0])), Int32(words[1]))
    }
}

/// Why ``ServiceLock`` was not taken.
public enum ServiceLockError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Another process holds the lock of `database`: `by` (a service or a restore, `nil`
    /// when the lock file does not say), process `pid`; `asking` is who was refused.
    case held(database: String, by: ServiceLock.Holder?, pid: Int32?, asking: ServiceLock.Holder)
    /// The lock file at `path` could not be opened or locked, for `reason`.
    case cannotOpen(path: String, reason: String)

    /// What failed and what to do.
    public var description: String {
        switch self {
        case .held(let database, let owner, let pid, let asking):
            let process = pid.map { " (pid \($0))" } ?? ""
            switch (owner, asking) {
            case (.serve, .serve):
                return "another archive-server\(process) already serves \(database): the SQLite backend is one process (one writer; each process has its own event streams and sessions), so a second server on the same file is refused; stop the other one, or, for several servers behind a load balancer, use PostgreSQL (--postgres; docs/SCALING.md)"
            case (.serve, .restore):
                return "an archive-server\(process) serves \(database): a restore needs the service stopped (systemctl stop archive-server)"
            case (.restore, _):
                return "archive-server restore\(process) is replacing \(database): wait for it to end, then start again"
            case (nil, _):
                return "another process holds \(database)-lock (an archive-server serving \(database), or restoring a backup over it): stop it first (systemctl stop archive-server)"
            }
        case .cannotOpen(let path, let reason):
            return "cannot lock \(path): \(reason); it marks that a service runs on the database beside it: let the service's user write in that directory"
        }
    }
}
