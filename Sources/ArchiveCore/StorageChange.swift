/// A store or unstore that went through.
///
/// Encodes as `{"id", "isStored", "changed"}` (`archive add/remove --json`).
public struct StorageChange: Sendable, Hashable, Encodable {
    /// The dish's ID.
    public let id: Int
    /// Whether it is stored now.
    public let isStored: Bool
    /// Whether anything changed (`false` when unstoring an ID that was not stored).
    public let changed: Bool
}
