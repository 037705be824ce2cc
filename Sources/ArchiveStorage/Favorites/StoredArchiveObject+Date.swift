#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import ArchiveSyncModel

/// The engine's view of a favorite's stored time, as a `Date`, and its rules as the
/// engine's errors.
extension StoredArchiveObject {
    /// Creates an object; `storedAt` is rounded to the millisecond.
    public init(
        id: Int, photoUrl: String, category: String, dishName: String, shopName: String,
        introduction: String, storedAt: Date = Date()
    ) {
        self.init(
            id: id, photoUrl: photoUrl, category: category, dishName: dishName, shopName: shopName,
            introduction: introduction, storedAtMilliseconds: storedAt.millisecondsSince1970)
    }

    /// When the item was stored (millisecond precision).
    public var storedAt: Date {
        get { Date(millisecondsSince1970: storedAtMilliseconds) }
        set { storedAtMilliseconds = newValue.millisecondsSince1970 }
    }

    /// Checks the rules a stored object must follow (``StoredArchiveObject/check()``).
    ///
    /// Throws ``ArchiveStorageError/invalidObject(index:id:field:reason:)`` naming the first
    /// broken rule, and `index`, the object's place in a batch, when given.
    public func validate(index: Int? = nil) throws(ArchiveStorageError) {
        do {
            try check()
        } catch {
            throw .invalidObject(index: index, id: error.id, field: error.field, reason: error.reason)
        }
    }
}
