#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Reads a file in chunks of up to 64 KiB and hands out its bytes one at a time, counting lines.
/// Memory stays bounded by the chunk size, whatever the file's size. Each chunk
/// can be copied to a second file as it is read (an import's spool).
struct JSONByteReader {
    /// Writing a chunk to the copy failed (the disk is full, say).
    struct CopyFailed: Error {
        /// The write's error.
        let underlying: FileDescriptorHandle.WriteFailed
    }

    /// Reading the file failed.
    struct ReadFailed: Error {
        /// What read(2) said (strerror).
        let reason: String
    }

    /// The most bytes one read asks for.
    private static let chunkSize = 1 << 16

    private let handle: FileDescriptorHandle
    /// Where every chunk read is also written, if anywhere.
    private let copy: FileDescriptorHandle?
    private var buffer: [UInt8] = []
    private var position = 0
    private var consumedBeforeBuffer = 0
    private var atEnd = false
    /// The 1-based line of the next byte (counted in whitespace, where JSON allows newlines).
    var line = 1

    /// A reader of `handle` that also writes every chunk it reads to `copy`.
    init(handle: FileDescriptorHandle, copyingTo copy: FileDescriptorHandle? = nil) {
        self.handle = handle
        self.copy = copy
    }

    /// How many bytes have been consumed.
    var offset: Int { consumedBeforeBuffer + position }

    /// The next byte without consuming it; `nil` at the end of the file.
    mutating func peek() throws -> UInt8? {
        if position < buffer.count { return buffer[position] }
        try refill()
        return position < buffer.count ? buffer[position] : nil
    }

    /// Consumes the byte `peek()` returned.
    mutating func advance() {
        position += 1
    }

    /// Consumes and returns the next byte; `nil` at the end of the file.
    mutating func next() throws -> UInt8? {
        guard let byte = try peek() else { return nil }
        position += 1
        return byte
    }

    /// Appends the bytes from here up to the next `"`, `\\` or control byte (or the end
    /// of the buffered chunk) to `output`, and consumes them.
    mutating func appendPlainStringBytes(to output: inout [UInt8]) throws {
        if position >= buffer.count { try refill() }
        let start = position
        var end = start
        buffer.withUnsafeBufferPointer { bytes in
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                end += 1
            }
        }
        if end > start {
            output.append(contentsOf: buffer[start..<end])
            position = end
        }
    }

    /// Skips JSON whitespace, counting newlines.
    mutating func skipWhitespace() throws {
        while let byte = try peek() {
            switch byte {
            case 0x0A:
                line += 1
            case 0x20, 0x09, 0x0D:
                break
            default:
                return
            }
            position += 1
        }
    }

    /// Reads the next chunk: what read(2) returns, which for a pipe, a FIFO or a
    /// terminal is what has arrived so far (Foundation's `FileHandle.read(upToCount:)` would
    /// wait for a whole chunk or the end, so a bad record in a stream that stays
    /// open would never be seen).
    private mutating func refill() throws {
        guard !atEnd else { return }
        consumedBeforeBuffer += buffer.count
        position = 0
        let descriptor = handle.fileDescriptor
        var result = 0
        var failure: Int32 = 0
        buffer = [UInt8](unsafeUninitializedCapacity: Self.chunkSize) { bytes, initializedCount in
            repeat {
                result = read(descriptor, bytes.baseAddress, bytes.count)
            } while result < 0 && errno == EINTR
            if result < 0 { failure = errno }
            initializedCount = max(result, 0)
        }
        guard result >= 0 else {
            throw ReadFailed(reason: String(cString: strerror(failure)))
        }
        guard result > 0 else {
            atEnd = true
            return
        }
        if let copy {
            do {
                try copy.write(contentsOf: buffer)
            } catch {
                throw CopyFailed(underlying: error)
            }
        }
    }
}
