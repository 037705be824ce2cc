public import ArchiveSyncModel

/// Where a newest-first page of favorites ends: the `(storedAt, id)` of its last row.
///
/// The next page starts strictly after it (keyset pagination), so rows added
/// meanwhile, which are newer, never shift or repeat later pages. Its text form
/// is `STOREDAT_MS:ID`, as printed by the CLI.
public struct StoredArchivePageCursor: Sendable, Hashable, Codable, LosslessStringConvertible {
    /// `storedAt` of the last row, in milliseconds since 1970.
    public let storedAtMilliseconds: Int64
    /// `id` of the last row.
    public let id: Int

    /// Creates a cursor from its parts.
    public init(storedAtMilliseconds: Int64, id: Int) {
        self.storedAtMilliseconds = storedAtMilliseconds
        self.id = id
    }

    /// The cursor just after `object`.
    public init(after object: StoredArchiveObject) {
        self.init(storedAtMilliseconds: object.storedAt.millisecondsSince1970, id: object.id)
    }

    /// The cursor just after `row`.
    public init(after row: StoredArchiveRow) {
        self.init(storedAtMilliseconds: row.storedAtMilliseconds, id: row.id)
    }

    /// Parses `STOREDAT_MS:ID`; `nil` for any other text.
    public init?(_ description: String) {
        let parts = description.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let storedAt = Int64(parts[0]), let id = Int(parts[1]) else { return nil }
        self.init(storedAtMilliseconds: storedAt, id: id)
    }

    /// Parses `STOREDAT_MS:ID`, throwing ``ArchiveStorageError/invalidCursor(_:)`` for any other text.
    public static func parse(_ text: String) throws(ArchiveStorageError) -> StoredArchivePageCursor {
        guard let cursor = StoredArchivePageCursor(text) else { throw .invalidCursor(text) }
        return cursor
    }

    /// `STOREDAT_MS:ID`.
    public var description: String { "\(storedAtMilliseconds):\(id)" }
}
