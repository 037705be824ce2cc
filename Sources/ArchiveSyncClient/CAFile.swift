import ArchiveSyncWire
import Dispatch
import NIOConcurrencyHelpers
import NIOSSL
#if canImport(Glibc)
import Glibc
#endif

/// The certificate authorities of `--ca-file` (or `ARCHIVE_SYNC_CA_FILE`), read so that no
/// file can hold the sync: only a regular file is read (a FIFO or a `<(…)` whose writer
/// never writes, a device, a directory is refused at once: opened without blocking, then
/// looked at), at most ``maximumBytes`` of it, and within the sync's own time limit (a
/// file on a hung mount is given up at the deadline, its read left to the kernel).
enum CAFile {
    /// The most bytes a CA file may hold (a bundle of every public root is about 250 KB).
    static let maximumBytes = 4 << 20

    /// The certificates of the PEM file at `path`, read within `limit`.
    static func certificates(at path: String, within limit: Duration) throws(SyncTransportError) -> [NIOSSLCertificate] {
        let outcome = NIOLockedValueBox<Result<[UInt8], SyncTransportError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let result = Result { () throws(SyncTransportError) in try read(path) }
            outcome.withLockedValue { $0 = result }
            done.signal()
        }
        let (seconds, attoseconds) = limit.components
        guard done.wait(timeout: .now() + Double(seconds) + Double(attoseconds) / 1e18) == .success,
              let result = outcome.withLockedValue({ $0 })
        else {
            throw .unreadableCAFile(path: path, reason: "it could not be read within \(seconds) s (--timeout): a file on a mount that does not answer?")
        }
        let bytes = try result.get()
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(bytes)
        } catch {
            throw .unreadableCAFile(path: path, reason: "it holds no PEM certificate")
        }
        guard !certificates.isEmpty else { throw .unreadableCAFile(path: path, reason: "it holds no PEM certificate") }
        return certificates
    }

    /// The bytes of the regular file at `path`.
    private static func read(_ path: String) throws(SyncTransportError) -> [UInt8] {
        // O_NONBLOCK: opening a FIFO without a writer would wait for one.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno))
            throw .unreadableCAFile(path: path, reason: reason)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .unreadableCAFile(path: path, reason: String(cString: strerror(errno))) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw .unreadableCAFile(path: path, reason: "it is a directory")
        case S_IFIFO: throw .unreadableCAFile(path: path, reason: "it is a FIFO (a pipe), not a regular file: save the authorities to a file first")
        default: throw .unreadableCAFile(path: path, reason: "it is not a regular file")
        }
        guard info.st_size <= maximumBytes else {
            throw .unreadableCAFile(path: path, reason: "it is \(info.st_size) bytes; a CA file is at most \(maximumBytes)")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.read(descriptor, base + filled, buffer.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .unreadableCAFile(path: path, reason: String(cString: strerror(errno))) }
            if count == 0 { break }
            filled += count
        }
        return Array(bytes[..<filled])
    }
}
