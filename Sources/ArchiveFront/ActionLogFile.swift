public import ArchiveCore
import ArchiveStorage
import ArchiveTransfer
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The action log's file (`--log-actions FILE`, env `ARCHIVE_LOG_ACTIONS`):
/// lines appended with one `write(2)` each, from any thread.
///
/// Opening refuses, before anything else is done, what would lose data or hang:
/// the database itself (or its journal files, through a symbolic link too), a
/// directory, a FIFO that nobody reads, a path that cannot be written. A FIFO
/// whose reader goes away or stops reading, or a full disk, stops the log
/// (``failure`` says why) without stopping the program: a log never costs the
/// user their work, and never makes the program wait.
public final class ActionLogFile: ActionLogSink {
    // Sendable: the descriptor and the first failure are only touched inside `state`'s lock.
    private struct State {
        var descriptor: Int32
        var failure: String?
        /// Bytes a FIFO or device did not take yet (its reader is behind), oldest first.
        var pending: [UInt8] = []
    }

    /// How much may wait for a reader that is behind before the log stops: writes never
    /// wait (a reader that stopped reading must not stall the store, or the TUI's keys).
    public static let maximumPendingBytes = 1 << 20
    private let state: Mutex<State>
    private let onFailure: @Sendable (String) -> Void
    /// The path the log was opened at.
    public let path: String

    /// Opens (creating, or appending to) the log at `path` for the database at
    /// `databasePath`; `onFailure` hears once why the log stopped, if it does.
    public init(path: String, databasePath: String, onFailure: @escaping @Sendable (String) -> Void = { _ in }) throws(ActionLogError) {
        self.path = path
        self.onFailure = onFailure
        guard !path.isEmpty else { throw .cannotOpen(path: path, reason: "an empty path is not a file") }
        // The export's own guard: the database's files by whatever name (DatabaseFiles).
        let database = DatabaseFiles(databasePath: databasePath)
        if database.contains(path: path) { throw .isTheDatabase(path: path, database: databasePath) }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            // ENXIO is a FIFO without a reader, or a device with nothing behind it
            // (`/dev/tty` in a process without a terminal): say which.
            var info = stat()
            let isFIFO = stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO
            throw code == ENXIO && isFIFO
                ? .cannotOpen(path: path, reason: "it is a FIFO (named pipe) that nobody is reading; start its reader first")
                : .cannotOpen(path: path, reason: String(cString: strerror(code)))
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG || kind == S_IFCHR || kind == S_IFIFO else {
            close(descriptor)
            throw .cannotOpen(path: path, reason: "it is not a file, a FIFO or a device")
        }
        // What was opened, in case the path changed between the check and the open.
        if database.contains(descriptor: descriptor) {
            close(descriptor)
            throw .isTheDatabase(path: path, database: databasePath)
        }
        // Opened without waiting for a FIFO's reader, and kept non-blocking: a write that a
        // pipe cannot take now is kept (up to maximumPendingBytes) and sent with the next.
        state = Mutex(State(descriptor: descriptor))
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { close(state.descriptor) }
        }
    }

    /// Why the log stopped, if it did (a full disk, a reader that went away).
    public var failure: String? {
        state.withLock { $0.failure }
    }

    /// Appends `line` and a newline, without ever waiting: what a FIFO's reader has not
    /// taken yet waits in memory, up to ``maximumPendingBytes``, past which the log stops
    /// (with one warning through `onFailure`). After a failure, does nothing.
    public func write(line: String) {
        let failure: String? = state.withLock { state in
            guard state.descriptor >= 0 else { return nil }
            state.pending.append(contentsOf: line.utf8)
            state.pending.append(UInt8(ascii: "\n"))
            let reason: String?
            switch Self.writeAvailable(state.pending, to: state.descriptor) {
            case .written(let count):
                state.pending.removeFirst(count)
                reason = state.pending.count > Self.maximumPendingBytes
                    ? "its reader has not read the last \(Self.maximumPendingBytes >> 20) MiB" : nil
            case .failed(let message):
                reason = message
            }
            guard let reason else { return nil }
            state.failure = "the action log \(path) stopped: \(reason); the program goes on without it"
            close(state.descriptor)
            state.descriptor = -1
            state.pending = []
            return state.failure
        }
        if let failure { onFailure(failure) }
    }

    private enum WriteOutcome {
        /// This many bytes were written (fewer than all when a pipe is full).
        case written(Int)
        case failed(String)
    }

    /// Writes what the descriptor takes now: all of `bytes`, or as much as a full pipe
    /// takes (`EAGAIN`). A reader that went away is EPIPE here, not a SIGPIPE that would
    /// kill the process (the signal is blocked around the write, then discarded).
    private static func writeAvailable(_ bytes: [UInt8], to descriptor: Int32) -> WriteOutcome {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.write(descriptor, base + offset, buffer.count - offset)
            }
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { return .written(offset) }
                if code == EPIPE {
                    var none = timespec()
                    _ = sigtimedwait(&pipeSignal, nil, &none)  // consume the SIGPIPE this write raised
                }
                return .failed(String(cString: strerror(code)))
            }
            offset += written
        }
        return .written(offset)
    }
}
