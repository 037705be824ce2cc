import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Waits for files in one directory to be created or written, on the kernel's word
/// (inotify), instead of looking again and again: a test that must act when a process
/// makes a file (talk to a server once its socket exists) blocks until the event.
/// Closed on `deinit`.
public final class FileEvents {
    private let descriptor: Int32
    private var pending: [UInt8] = []

    /// Watches `directory` for files created, written, or moved in. Start watching before
    /// the process that writes, so that no event is missed.
    public init(watching directory: String) throws {
        descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard inotify_add_watch(descriptor, directory, UInt32(IN_CREATE | IN_MODIFY | IN_MOVED_TO)) >= 0 else {
            let code = errno
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    deinit { close(descriptor) }

    /// Waits until a file named `name` has been created or written `count` times since the
    /// last call (or since watching began), for at most `limit`; whether it was.
    public func wait(for name: String, times count: Int = 1, within limit: Duration = Deadline.standard) -> Bool {
        let deadline = ContinuousClock.now + limit
        var seen = 0
        while seen < count {
            let left = deadline - .now
            guard left > .zero else { return false }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return false }
            var buffer = [UInt8](repeating: 0, count: 16_384)
            let read = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard read > 0 else { continue }
            seen += Self.names(in: buffer[..<read]).filter { $0 == name }.count
        }
        return true
    }

    /// The file names of the events in `bytes` (struct inotify_event: wd, mask, cookie, len, name).
    private static func names(in bytes: ArraySlice<UInt8>) -> [String] {
        var names: [String] = []
        var offset = bytes.startIndex
        let header = 16
        while offset + header <= bytes.endIndex {
            let length = bytes[(offset + 12)..<(offset + 16)].reversed().reduce(0) { $0 << 8 | Int($1) }
            let nameBytes = bytes[(offset + header)..<min(offset + header + length, bytes.endIndex)].prefix { $0 != 0 }
            names.append(String(decoding: nameBytes, as: UTF8.self))
            offset += header + length
        }
        return names
    }
}
