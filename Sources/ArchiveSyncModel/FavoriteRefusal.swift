/// Why a favorite's fields break the rules every favorite follows
/// (``StoredArchiveObject/check()``): the favorite, the field and what is wrong with it.
public struct FavoriteRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The favorite's ID.
    public let id: Int
    /// The field that breaks a rule (`id`, `dishName`, `storedAt`, …).
    public let field: String
    /// What is wrong with it, such as "contains a NUL character".
    public let reason: String

    /// The refusal of `field` of favorite `id`, for `reason`.
    public init(id: Int, field: String, reason: String) {
        self.id = id
        self.field = field
        self.reason = reason
    }

    /// "(id 7): field 'dishName' must not be empty".
    public var description: String {
        "(id \(id)): field '\(field)' \(reason)"
    }
}
