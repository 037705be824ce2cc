import Foundation

/// Reads a file in 64 KiB chunks and hands out its bytes one at a time, counting lines.
/// Memory stays bounded by the chunk size, whatever the file's size.
struct JSONByteReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var position = 0
    private var consumedBeforeBuffer = 0
    private var atEnd = false
    /// The 1-based line of the next byte (counted in whitespace, where JSON allows newlines).
    var line = 1

    init(handle: FileHandle) {
        self.handle = handle
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

    private mutating func refill() throws {
        guard !atEnd else { return }
        consumedBeforeBuffer += buffer.count
        position = 0
        guard let data = try handle.read(upToCount: 1 << 16), !data.isEmpty else {
            buffer = []
            atEnd = true
            return
        }
        buffer = [UInt8](data)
    }
}
