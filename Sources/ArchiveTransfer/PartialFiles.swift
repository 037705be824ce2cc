#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The temporary files this process is writing (an export's `.partial-*`, an
/// import's spool), so that a signal that ends the process early can remove
/// them: no failure path leaves one behind.
public final class PartialFiles: Sendable {
    /// The process's registry.
    public static let shared = PartialFiles()

    private let paths = Mutex<Set<String>>([])

    private init() {}

    /// Records a temporary file being written.
    public func register(_ path: String) {
        paths.withLock { _ = $0.insert(path) }
    }

    /// Forgets a temporary file (renamed into place or removed).
    public func unregister(_ path: String) {
        paths.withLock { _ = $0.remove(path) }
    }

    /// Removes every temporary file still registered (from a signal handler before exiting).
    public func removeAll() {
        let current = paths.withLock { paths in
            defer { paths.removeAll() }
            return paths
        }
        for path in current { unlink(path) }
    }
}
