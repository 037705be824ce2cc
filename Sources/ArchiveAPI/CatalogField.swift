/// A field of an ``ArchiveSceneEntity`` as json-server names it: what a query's
/// field filters (`category=洋食`, `id=17`) and `_sort` refer to.
public enum CatalogField: String, CaseIterable, Sendable {
    /// The catalog ID (a number; filtered by its decimal text, as json-server does).
    case id
    /// The photo's URL.
    case photoUrl
    /// The category.
    case category
    /// The dish's name.
    case dishName
    /// The shop's name.
    case shopName
    /// The introduction text.
    case introduction

    /// The field's value in `entity` as text (the ID in decimal).
    public func text(of entity: ArchiveSceneEntity) -> String {
        switch self {
        case .id: String(entity.id)
        case .photoUrl: entity.photoUrl
        case .category: entity.category
        case .dishName: entity.dishName
        case .shopName: entity.shopName
        case .introduction: entity.introduction
        }
    }

    /// Whether `first` comes before `second` by this field: IDs as numbers, text
    /// by UTF-16 code units (JavaScript's order, which json-server sorts by).
    func ascending(_ first: ArchiveSceneEntity, _ second: ArchiveSceneEntity) -> Bool {
        switch self {
        case .id: first.id < second.id
        default: text(of: first).utf16.lexicographicallyPrecedes(text(of: second).utf16)
        }
    }

    /// The field names, for messages: `id, photoUrl, …`.
    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
