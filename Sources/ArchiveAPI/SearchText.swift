/// A dish's dish name, shop name and introduction as lowercased UTF-8: the one
/// implementation of json-server's search semantics, used by
/// ``ArchiveSceneEntity/matches(keyword:category:)`` and, precomputed once per
/// dish, by ``BundledArchiveRepository`` (a search runs on every keystroke of the TUI).
struct SearchText: Sendable {
    let fields: [[UInt8]]

    init(_ entity: ArchiveSceneEntity) {
        fields = [entity.dishName, entity.shopName, entity.introduction].map { Array($0.lowercased().utf8) }
    }

    /// The keyword as searched: trimmed and lowercased UTF-8 (empty matches everything).
    static func needle(for keyword: String) -> [UInt8] {
        Array(keyword.trimmingWhitespace().lowercased().utf8)
    }

    /// Whether `entity` (whose text this is) matches: an empty category or needle
    /// matches everything, a category must be equal, a needle contained in a field.
    func matches(_ needle: [UInt8], category: String, of entity: ArchiveSceneEntity) -> Bool {
        if !category.isEmpty, entity.category != category { return false }
        return needle.isEmpty || contains(needle)
    }

    /// Whether one of the fields contains `needle`.
    func contains(_ needle: [UInt8]) -> Bool {
        fields.contains { field in
            guard field.count >= needle.count, let first = needle.first else { return false }
            var start = 0
            while start + needle.count <= field.count {
                if field[start] == first, field[start..<(start + needle.count)].elementsEqual(needle) { return true }
                start += 1
            }
            return false
        }
    }
}
