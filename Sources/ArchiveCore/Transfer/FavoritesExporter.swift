public import ArchiveStorage
public import Foundation

/// Writes every stored favorite, newest first, in the export format: a JSON
/// array with one record a line, fields in a fixed order —
/// `{"id":17,"photoUrl":"…","category":"洋食","dishName":"…","shopName":"…","introduction":"…","storedAt":"2026-11-22T04:19:57.123Z"}`.
///
/// It reads through keyset pages and writes in 64 KiB chunks, so memory stays
/// bounded whatever the number of favorites.
public enum FavoritesExporter {
    /// Writes every favorite of `favorites` to `handle`; `progress` gets the count written so far.
    /// Returns the count written.
    @discardableResult
    public static func export(
        _ favorites: any StoredArchiveDataRepository, to handle: FileHandle, pageSize: Int = 5_000,
        progress: (Int) -> Void = { _ in }
    ) throws -> Int {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 17)
        func flush(force: Bool) throws {
            guard force || buffer.count >= 1 << 16 else { return }
            try handle.write(contentsOf: buffer)
            buffer.removeAll(keepingCapacity: true)
        }
        buffer.append(contentsOf: "[\n".utf8)
        var count = 0
        var cursor: StoredArchivePageCursor?
        repeat {
            let page = try favorites.page(after: cursor, limit: pageSize)
            for object in page.objects {
                if count > 0 { buffer.append(contentsOf: ",\n".utf8) }
                append(object, to: &buffer)
                count += 1
                try flush(force: false)
            }
            progress(count)
            cursor = page.nextCursor
        } while cursor != nil
        buffer.append(contentsOf: (count > 0 ? "\n]\n" : "]\n").utf8)
        try flush(force: true)
        return count
    }

    /// Appends one record, as a single line of JSON, to `output`.
    static func append(_ object: StoredArchiveObject, to output: inout [UInt8]) {
        output.append(contentsOf: #"{"id":"#.utf8)
        output.append(contentsOf: String(object.id).utf8)
        field("photoUrl", object.photoUrl, &output)
        field("category", object.category, &output)
        field("dishName", object.dishName, &output)
        field("shopName", object.shopName, &output)
        field("introduction", object.introduction, &output)
        output.append(contentsOf: #","storedAt":""#.utf8)
        ISO8601Milliseconds.append(object.storedAt.millisecondsSince1970, to: &output)
        output.append(contentsOf: #""}"#.utf8)
    }

    private static func field(_ name: String, _ value: String, _ output: inout [UInt8]) {
        output.append(contentsOf: #",""#.utf8)
        output.append(contentsOf: name.utf8)
        output.append(contentsOf: #"":""#.utf8)
        appendEscaped(value, to: &output)
        output.append(UInt8(ascii: "\""))
    }

    /// Appends `value` as the inside of a JSON string: quotes, backslashes and control characters escaped.
    static func appendEscaped(_ value: String, to output: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case 0x0A: output.append(contentsOf: #"\n"#.utf8)
            case 0x0D: output.append(contentsOf: #"\r"#.utf8)
            case 0x09: output.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0xF)])
            default: output.append(byte)
            }
        }
    }
}
