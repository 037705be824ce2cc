/// The last catalog search and the view that was open: where a front starts
/// when the user comes back.
public struct LastSearch: Sendable, Hashable, Codable {
    /// The keyword ("" for none).
    public var keyword: String
    /// The category ("" for all).
    public var category: String
    /// The view that was open.
    public var view: ArchiveView

    /// The last search the `lastSearch*` and `lastView` settings among `entries` hold
    /// (their defaults where missing, or where a value is one `settings set` would refuse:
    /// another program may have written one of any length).
    public init(entries: [SettingEntry]) {
        func text(_ setting: ArchiveSetting) -> String {
            let value = entries.first { $0.setting == setting }?.value ?? setting.defaultValue
            if case .string(let text) = value, ArchiveSetting.isAcceptableText(text) { return text }
            return ""
        }
        self.init(
            keyword: text(.lastSearchKeyword), category: text(.lastSearchCategory),
            view: ArchiveView(rawValue: text(.lastView)) ?? .archive)
    }

    /// A last search from its parts.
    public init(keyword: String = "", category: String = "", view: ArchiveView = .archive) {
        self.keyword = keyword
        self.category = category
        self.view = view
    }
}
