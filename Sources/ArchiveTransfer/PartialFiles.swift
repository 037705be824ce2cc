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

    private struct State {
        var paths: Set<String> = []
        /// Set by ``removeAll()``: the process is ending, and no file is created any more.
        var ended = false
    }

    private let state = Mutex(State())

    /// A registry of its own (tests); the process uses ``shared``.
    init() {}

    /// Creates the new file `path` (`open` with `O_CREAT | O_EXCL` added to `flags`)
    /// and records it, as one step against ``removeAll()``, which runs on another
    /// thread while the command's own goes on: the cleanup finds the file recorded,
    /// or runs before it exists and then lets no file be created (`ECANCELED`).
    /// Returns the descriptor, or -1 with `errno` set.
    func create(_ path: String, flags: Int32, mode: mode_t) -> Int32 {
        let (descriptor, code) = state.withLock { state -> (Int32, Int32) in
            guard !state.ended else { return (-1, ECANCELED) }
            let descriptor = open(path, flags | O_CREAT | O_EXCL, mode)
            guard descriptor >= 0 else { return (-1, errno) }
            state.paths.insert(path)
            return (descriptor, 0)
        }
        if descriptor < 0 { errno = code }
        return descriptor
    }

    /// Records a temporary file that something else (SQLite) may create.
    public func register(_ path: String) {
        state.withLock { _ = $0.paths.insert(path) }
    }

    /// Forgets a temporary file (renamed into place or removed).
    public func unregister(_ path: String) {
        state.withLock { _ = $0.paths.remove(path) }
    }

    /// Removes every temporary file still recorded, and lets ``create(_:flags:mode:)``
    /// make no more (from a signal's cleanup, before the process exits).
    public func removeAll() {
        state.withLock { state in
            state.ended = true
            for path in state.paths { unlink(path) }
            state.paths.removeAll()
        }
    }
}
