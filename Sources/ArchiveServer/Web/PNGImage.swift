import CompressNIO
import NIOCore

/// An RGBA image written as a PNG file (8 bits a channel, no interlacing): what the web app
/// manifest's icons are, drawn at start rather than shipped as files (``AppIcon``). The
/// pixels' rows are deflated by compress-nio's zlib; the chunks' CRC-32 is computed here (zlib's
/// own is not part of compress-nio's API).
struct PNGImage {
    let width: Int
    let height: Int
    /// Red, green, blue and alpha of each pixel, row after row.
    let rgba: [UInt8]

    /// The PNG file's bytes.
    func encoded() throws -> [UInt8] {
        var rows = ByteBufferAllocator().buffer(capacity: height * (width * 4 + 1))
        for row in 0..<height {
            rows.writeInteger(UInt8(0))  // filter: none
            rows.writeBytes(rgba[(row * width * 4)..<((row + 1) * width * 4)])
        }
        let deflated = try rows.compress(with: .zlib())
        var header: [UInt8] = []
        header += Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(height))
        header += [8, 6, 0, 0, 0]  // 8 bits, RGBA, deflate, adaptive filters, no interlace
        var file: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        file += Self.chunk("IHDR", header)
        file += Self.chunk("IDAT", Array(deflated.readableBytesView))
        file += Self.chunk("IEND", [])
        return file
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    /// The CRC-32 (ISO 3309, as PNG's chunks carry it) of `bytes`.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
