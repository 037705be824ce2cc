public import ArchiveStorage

/// Writes every stored favorite, newest first, in the export format: a JSON
/// array with one record a line, fields in a fixed order —
/// `{"id":17,"photoUrl":"…","category":"洋食","dishName":"…","shopName":"…","introduction":"…","storedAt":"2026-11-22T04:19:57.123Z"}`.
///
/// It reads through keyset pages and writes in 64 KiB chunks, so memory stays
/// bounded whatever the number of favorites; a file is written back to disk as
/// it grows (``WritebackHint``).
public enum FavoritesExporter {
    /// What goes between two records.
    private static let separator: StaticString = ",\n"

    /// Writes every favorite of `favorites` to `handle`; `progress` gets the count written so far.
    /// Returns the count written.
    @discardableResult
    public static func export(
        _ favorites: any StoredArchiveDataRepository, to handle: FileDescriptorHandle, pageSize: Int = 5_000,
        progress: (Int) -> Void = { _ in }
    ) throws -> Int {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 17)
        var writeback = WritebackHint(descriptor: handle.fileDescriptor)
        func flush(force: Bool) throws {
            guard force || buffer.count >= 1 << 16 else { return }
            do {
                try handle.write(contentsOf: buffer)
                writeback.wrote(buffer.count)
            } catch {
                throw ExportError.cannotWrite(path: ExportError.unnamedOutput, reason: error.description)
            }
            buffer.removeAll(keepingCapacity: true)
        }
        buffer.append(contentsOf: "[\n".utf8)
        var count = 0
        var cursor: StoredArchivePageCursor?
        repeat {
            let page = try favorites.page(after: cursor, limit: pageSize)
            for row in page {
                if count > 0 { FavoriteRecordEncoder.literal(Self.separator, &buffer) }
                FavoriteRecordEncoder.append(row, to: &buffer)
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
}
