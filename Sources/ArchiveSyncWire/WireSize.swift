public import ArchiveSyncModel

/// An upper bound on the bytes a change takes on the wire (JSON in UTF-8, as a JSON encoder
/// writes it), computed without encoding: the sync service cuts its pull pages by it, and
/// the client its pushes, so that a page never passes what a client reads
/// (``SyncAPI/maximumPageBytes``) and a push never passes the body the service takes.
///
/// A text's byte counts as six when it is a control character (written `\u00XX`), two when
/// it is `"`, `\` or `/` (escaped) or part of a non-ASCII character (an encoder may write
/// one as `\uXXXX`: six bytes for the three of U+0800…U+FFFF, twelve for the four of a
/// surrogate pair), one otherwise.
public enum WireSize {
    /// Everything of a change but its texts: the keys, the ID, stamp and `storedAt` as
    /// numbers, the device's 32 digits, quotes and punctuation (about 170 bytes; kept well above).
    static let fixedBytes = 320
    /// Everything of a push or a page but its changes (its keys, device, feed and numbers).
    public static let envelopeBytes = 512

    /// At most how many bytes `change` takes on the wire, with the comma that separates it.
    public static func bound(of change: FavoriteChange) -> Int {
        guard case .stored(let object) = change.state else { return fixedBytes }
        return fixedBytes + [object.photoUrl, object.category, object.dishName, object.shopName, object.introduction]
            .reduce(0) { $0 + bound(of: $1) }
    }

    /// At most how many bytes `text` takes as a JSON string's contents.
    static func bound(of text: String) -> Int {
        var bytes = 0
        for byte in text.utf8 {
            switch byte {
            case ..<0x20: bytes += 6
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), 0x80...: bytes += 2
            default: bytes += 1
            }
        }
        return bytes
    }

    /// How many of `changes`, from the first, fit in `budget` bytes with the envelope: at
    /// least one (a change alone is never cut), at most all.
    public static func prefixFitting(_ changes: some Sequence<FavoriteChange>, budget: Int) -> Int {
        var used = envelopeBytes
        var count = 0
        for change in changes {
            used += bound(of: change)
            if used > budget, count > 0 { break }
            count += 1
        }
        return count
    }

    /// Cuts `rows`, read as up to `limit + 1` of a feed in order, to one page: at most
    /// `limit`, and as many as fit ``SyncAPI/maximumPageBytes``. Returns whether changes
    /// follow the page (a row was cut). Both of the service's backends page through it.
    public static func cutPage<Row>(_ rows: inout [Row], limit: Int, change: (Row) -> FavoriteChange) -> Bool {
        var hasMore = rows.count > limit
        if hasMore { rows.removeLast(rows.count - limit) }
        let fitting = prefixFitting(rows.lazy.map(change), budget: SyncAPI.maximumPageBytes)
        if fitting < rows.count {
            rows.removeLast(rows.count - fitting)
            hasMore = true
        }
        return hasMore
    }
}
