public import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An open file descriptor that the import reads and the export, the fronts'
/// output and messages write: what the package uses where Foundation's
/// `FileHandle` was.
///
/// `FileHandle` is the one type that made the `archive` binary link the whole of
/// Foundation (with CoreFoundation and ICU): about 30,000 of its relocations,
/// CoreFoundation's and ICU's constructors, and Foundation's class setup at the
/// first use of `FileHandle.standardOutput`, at every start. Everything else the
/// package needs is in FoundationEssentials. The writing itself is swift-system's
/// (`FileDescriptor.writeAll`: every byte, retried on `EINTR`); this class adds
/// what it does not do: owning the descriptor (closed when the handle goes
/// away, as GRDB's connection finalizes its pointer) and errors that read as
/// `strerror`.
public final class FileDescriptorHandle: Sendable {
    /// A write failed (the disk is full, the reader of a pipe went away).
    public struct WriteFailed: Error, CustomStringConvertible {
        /// What write(2) said.
        public let errno: Errno

        /// The system's message for ``errno`` ("No space left on device").
        public var description: String { errno.description }
    }

    /// Standard input (never closed by the handle).
    public static let standardInput = FileDescriptorHandle(fileDescriptor: STDIN_FILENO, closeOnDealloc: false)
    /// Standard output (never closed by the handle).
    public static let standardOutput = FileDescriptorHandle(fileDescriptor: STDOUT_FILENO, closeOnDealloc: false)
    /// Standard error (never closed by the handle).
    public static let standardError = FileDescriptorHandle(fileDescriptor: STDERR_FILENO, closeOnDealloc: false)

    /// The descriptor.
    public let fileDescriptor: Int32
    private let closesOnDeinit: Bool

    /// A handle on `fileDescriptor`, which it closes when it goes away if `closeOnDealloc`.
    public init(fileDescriptor: Int32, closeOnDealloc: Bool) {
        self.fileDescriptor = fileDescriptor
        self.closesOnDeinit = closeOnDealloc
    }

    /// Opens `path` for reading (`O_RDONLY | O_CLOEXEC`), or `nil` with `errno` set.
    public convenience init?(forReadingAtPath path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.init(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    deinit {
        if closesOnDeinit { close(fileDescriptor) }
    }

    // MARK: - Writing

    /// Writes every byte of `bytes`, or throws ``WriteFailed``.
    public func write(contentsOf bytes: [UInt8]) throws(WriteFailed) {
        try bytes.withUnsafeBytes { writeAll($0) }.get()
    }

    /// Writes every byte of `buffer`, or throws ``WriteFailed``.
    public func write(_ buffer: UnsafeRawBufferPointer) throws(WriteFailed) {
        try writeAll(buffer).get()
    }

    /// Writes the UTF-8 of `text`, or throws ``WriteFailed``.
    public func write(_ text: String) throws(WriteFailed) {
        var text = text
        try text.withUTF8 { writeAll(UnsafeRawBufferPointer($0)) }.get()
    }

    private func writeAll(_ buffer: UnsafeRawBufferPointer) -> Result<Void, WriteFailed> {
        do {
            try FileDescriptor(rawValue: fileDescriptor).writeAll(buffer)
            return .success(())
        } catch let error as Errno {
            return .failure(WriteFailed(errno: error))
        } catch {
            return .failure(WriteFailed(errno: .ioError))  // writeAll throws nothing but Errno
        }
    }
}
