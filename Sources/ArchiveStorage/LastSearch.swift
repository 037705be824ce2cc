/// The last catalog search and the view that was open: where a front starts
/// when the user comes back.
public struct LastSearch: Sendable, Hashable, Codable {
    /// The keyword ("" for none).
    public var keyword: String
    /// The category ("" for all).
    public var category: String
    /// The view that was open.
    public var view: ArchiveView

    /// A last search from its parts.
    public init(keyword: String = "", category: String = "", view: ArchiveView = .archive) {
        self.keyword = keyword
        self.category = category
        self.view = view
    }
}
