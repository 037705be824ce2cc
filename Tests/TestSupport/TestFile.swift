public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Files a test makes, written in place.
///
/// Not `FileManager.createFile(atPath:contents:)`, nor `write(…, atomically: true)`:
/// swift-corelibs-foundation writes those through a `TemporaryDirectory.*` folder it
/// makes in the system's temporary directory and leaves behind (`.ci/run` fails a run
/// that leaves files there). A test's files live in its own ``TemporaryDirectory``.
public enum TestFile {
    /// Creates (or truncates) the file at `path` with `contents`; whether it worked.
    @discardableResult
    public static func create(atPath path: String, contents: Data? = nil) -> Bool {
        (try? (contents ?? Data()).write(to: URL(fileURLWithPath: path))) != nil
    }

    /// Copies the executable at `source` to `destination` (a new file, mode 755), through a
    /// descriptor that no child inherits (`O_CLOEXEC`). FileManager's copy keeps its
    /// descriptor inheritable: a process another test spawned meanwhile (a server that
    /// lives for seconds) kept the copy open for writing, and running it failed with
    /// "Text file busy" (a fresh-clone CI run).
    public static func copyExecutable(from source: URL, to destination: URL) throws {
        let contents = try Data(contentsOf: source)
        let descriptor = open(destination.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        try contents.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                offset += written
            }
        }
    }
}
