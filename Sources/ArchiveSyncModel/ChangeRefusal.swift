/// Why a change cannot be applied anywhere (``FavoriteChange/check()``): the one refusal of
/// a change, whichever side meets it (a device's database, the service's push, either
/// backend), so that every side refuses the same changes for the same reason.
public struct ChangeRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The favorite the change is of.
    public let id: Int
    /// What is wrong with it, such as "the ID must be a positive integer".
    public let reason: String

    /// The refusal of a change of favorite `id`, for `reason`.
    public init(id: Int, reason: String) {
        self.id = id
        self.reason = reason
    }

    /// "favorite 7: field 'dishName' must not be empty".
    public var description: String {
        "favorite \(id): \(reason)"
    }
}
