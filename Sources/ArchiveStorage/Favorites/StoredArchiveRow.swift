#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import ArchiveSyncModel

/// One favorite of a ``StoredArchivePage``: its ID and date at once, its texts
/// decoded from the page's bytes each time they are read.
///
/// Invalid UTF-8 (written into the file by another program) is repaired with
/// U+FFFD, as everywhere in the engine.
public struct StoredArchiveRow: Sendable, Hashable {
    /// Rows are equal when their ID, date and texts are (wherever their bytes are kept).
    public static func == (lhs: StoredArchiveRow, rhs: StoredArchiveRow) -> Bool {
        lhs.id == rhs.id && lhs.storedAtMilliseconds == rhs.storedAtMilliseconds
            && Field.allCases.allSatisfy { field in
                lhs.withUTF8(field) { left in rhs.withUTF8(field) { right in left.elementsEqual(right) } }
            }
    }

    /// Hashes the ID and the date (equal rows have equal ones).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(storedAtMilliseconds)
    }

    /// The page's text bytes (shared with the page, not copied).
    let text: [UInt8]
    /// Where this row's fields are in `text`.
    let layout: Layout

    /// The catalog ID.
    public var id: Int { layout.id }
    /// When the favorite was stored, in milliseconds since 1970.
    public var storedAtMilliseconds: Int64 { layout.storedAtMilliseconds }
    /// When the favorite was stored.
    public var storedAt: Date { Date(millisecondsSince1970: layout.storedAtMilliseconds) }
    /// The photo's URL.
    public var photoUrl: String { string(0) }
    /// The category.
    public var category: String { string(1) }
    /// The dish's name.
    public var dishName: String { string(2) }
    /// The shop's name.
    public var shopName: String { string(3) }
    /// The introduction text.
    public var introduction: String { string(4) }

    /// The row as a whole object (every text decoded).
    public var object: StoredArchiveObject {
        StoredArchiveObject(
            id: id, photoUrl: photoUrl, category: category, dishName: dishName, shopName: shopName,
            introduction: introduction, storedAt: storedAt)
    }

    /// Calls `body` with the UTF-8 bytes of the text `field` without making a
    /// `String`: for encoders that copy bytes.
    public func withUTF8<Result>(_ field: Field, _ body: (ArraySlice<UInt8>) throws -> Result) rethrows -> Result {
        try body(text[layout.range(of: field.rawValue)])
    }

    /// The five text fields, in the page's (and the table's) order.
    public enum Field: Int, CaseIterable, Sendable {
        case photoUrl, category, dishName, shopName, introduction
    }

    private func string(_ field: Int) -> String {
        String(decoding: text[layout.range(of: field)], as: UTF8.self)
    }

    // MARK: - Layout

    /// A row's integers and where its five texts end in the page's bytes.
    struct Layout: Sendable, Hashable {
        let id: Int
        let storedAtMilliseconds: Int64
        /// Where the first text starts.
        let start: Int
        private(set) var ends: (Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0)

        init(id: Int, storedAtMilliseconds: Int64, start: Int) {
            self.id = id
            self.storedAtMilliseconds = storedAtMilliseconds
            self.start = start
            ends = (start, start, start, start, start)
        }

        mutating func setEnd(of field: Int, to end: Int) {
            switch field {
            case 0: ends.0 = end
            case 1: ends.1 = end
            case 2: ends.2 = end
            case 3: ends.3 = end
            default: ends.4 = end
            }
        }

        func range(of field: Int) -> Range<Int> {
            switch field {
            case 0: start..<ends.0
            case 1: ends.0..<ends.1
            case 2: ends.1..<ends.2
            case 3: ends.2..<ends.3
            default: ends.3..<ends.4
            }
        }

        static func == (lhs: Layout, rhs: Layout) -> Bool {
            lhs.id == rhs.id && lhs.storedAtMilliseconds == rhs.storedAtMilliseconds && lhs.start == rhs.start
                && lhs.ends == rhs.ends
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            hasher.combine(storedAtMilliseconds)
            hasher.combine(start)
            hasher.combine(ends.4)
        }
    }
}
