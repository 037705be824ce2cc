/// A dish's searchable fields, folded once (``SearchKeyword``'s folding): the
/// bundled catalog keeps one per dish, as a search runs on every keystroke of the TUI.
struct SearchText: Sendable {
    let fields: [[UInt8]]

    init(_ entity: ArchiveSceneEntity) {
        fields = entity.searchableFields.map(SearchKeyword.fold)
    }

    /// Whether the dish (whose text this is) matches: an empty category or keyword
    /// matches everything, a category must be equal, a keyword contained in a field.
    func matches(_ keyword: SearchKeyword, category: String, of entity: ArchiveSceneEntity) -> Bool {
        if !category.isEmpty, entity.category != category { return false }
        return keyword.isEmpty || fields.contains { SearchKeyword.firstMatch(of: keyword.needle, in: $0, from: 0) != nil }
    }
}
