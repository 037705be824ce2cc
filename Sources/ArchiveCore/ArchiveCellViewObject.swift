public import ArchiveAPI

/// A row of the Archive screen: a catalog dish and whether it is stored (hearted).
///
/// The dish's fields read through to its entity: `row.dishName`, `row.category`...
@dynamicMemberLookup
public struct ArchiveCellViewObject: Sendable, Hashable, Identifiable {
    /// The catalog dish the row shows.
    public let entity: ArchiveSceneEntity
    /// Whether the dish is a stored favorite. Changes only through the store's actions.
    public var isStored: Bool

    /// The row of `entity`.
    public init(entity: ArchiveSceneEntity, isStored: Bool) {
        self.entity = entity
        self.isStored = isStored
    }

    /// The catalog ID.
    public var id: Int { entity.id }

    /// A field of the dish.
    public subscript<Value>(dynamicMember keyPath: KeyPath<ArchiveSceneEntity, Value>) -> Value {
        entity[keyPath: keyPath]
    }
}
