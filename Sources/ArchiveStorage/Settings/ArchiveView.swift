/// The fronts' two views, as the `lastView` setting names them.
public enum ArchiveView: String, Sendable, Hashable, CaseIterable, Codable {
    /// The catalog search.
    case archive
    /// The stored favorites.
    case favorites
}
