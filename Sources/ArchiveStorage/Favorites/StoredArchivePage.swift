public import ArchiveSyncModel

/// One newest-first page of favorites and the cursor of the next one, kept as
/// the bytes SQLite returned: a page costs one copy of its rows' text, and each
/// text becomes a `String` only when it is read.
///
/// A page is a random-access collection of ``StoredArchiveRow``s (newest first).
/// Read a row's fields where they are shown (`row.dishName`); ask ``objects``
/// (or `row.object`) only where whole ``StoredArchiveObject``s are needed, which
/// decodes every text of those rows.
public struct StoredArchivePage: Sendable, Hashable, RandomAccessCollection {
    /// The largest page one call may ask for.
    public static let maximumLimit = 10_000

    /// Every row's five texts, UTF-8, one after the other, in row order.
    let text: [UInt8]
    /// Where each row's fields are.
    let layouts: [StoredArchiveRow.Layout]
    /// Where the next page starts, or `nil` when this page is the last.
    public let nextCursor: StoredArchivePageCursor?

    /// The position of the first row.
    public var startIndex: Int { 0 }
    /// The position after the last row.
    public var endIndex: Int { layouts.count }

    /// The row at `position`.
    public subscript(position: Int) -> StoredArchiveRow {
        StoredArchiveRow(text: text, layout: layouts[position])
    }

    /// The favorites as objects, every text decoded.
    public var objects: [StoredArchiveObject] { map(\.object) }

    /// A page holding `objects` (for tests and other repositories).
    public init(objects: [StoredArchiveObject], nextCursor: StoredArchivePageCursor?) {
        var builder = Builder(capacity: objects.count)
        for object in objects {
            builder.beginRow(id: object.id, storedAtMilliseconds: object.storedAt.millisecondsSince1970)
            for text in [object.photoUrl, object.category, object.dishName, object.shopName, object.introduction] {
                var text = text
                text.withUTF8 { builder.appendText($0) }
            }
            builder.endRow()
        }
        let built = builder.page(limit: objects.count)
        self.init(text: built.text, layouts: built.layouts, nextCursor: nextCursor)
    }

    init(text: [UInt8], layouts: [StoredArchiveRow.Layout], nextCursor: StoredArchivePageCursor?) {
        self.text = text
        self.layouts = layouts
        self.nextCursor = nextCursor
    }

    // MARK: - Building

    /// Collects rows as they are read: their integers, and their texts copied once.
    struct Builder {
        private var text: [UInt8] = []
        private var layouts: [StoredArchiveRow.Layout] = []

        init(capacity: Int) {
            layouts.reserveCapacity(capacity)
            text.reserveCapacity(capacity * 256)
        }

        private var row = StoredArchiveRow.Layout(id: 0, storedAtMilliseconds: 0, start: 0)
        private var field = 0

        /// Starts a row; its five texts follow (``appendText(_:)``), then ``endRow()``.
        mutating func beginRow(id: Int, storedAtMilliseconds: Int64) {
            row = StoredArchiveRow.Layout(id: id, storedAtMilliseconds: storedAtMilliseconds, start: text.count)
            field = 0
        }

        /// Copies the row's next text (photo URL, category, dish name, shop name, introduction).
        mutating func appendText(_ bytes: UnsafeBufferPointer<UInt8>) {
            text.append(contentsOf: bytes)
            row.setEnd(of: field, to: text.count)
            field += 1
        }

        /// Ends the row begun last.
        mutating func endRow() {
            layouts.append(row)
        }

        /// The page of the first `limit` rows; a row beyond them means a next page,
        /// which starts after the last row kept. Consumes the builder (no copy).
        consuming func page(limit: Int) -> StoredArchivePage {
            guard layouts.count > limit else { return StoredArchivePage(text: text, layouts: layouts, nextCursor: nil) }
            text.removeSubrange(layouts[limit].start...)
            layouts.removeSubrange(limit...)
            let next = layouts.last.map { StoredArchivePageCursor(storedAtMilliseconds: $0.storedAtMilliseconds, id: $0.id) }
            return StoredArchivePage(text: text, layouts: layouts, nextCursor: next)
        }
    }
}
