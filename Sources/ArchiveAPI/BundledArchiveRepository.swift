/// ``RequestArchiveRepository`` over a catalog held in memory: by default the
/// ``BundledCatalog`` compiled into the program. No I/O, never fails but for unknown IDs.
public struct BundledArchiveRepository: RequestArchiveRepository {
    /// The dishes, by ID.
    public let entities: [ArchiveSceneEntity]
    private let byID: [Int: ArchiveSceneEntity]
    /// Each dish's searchable text, lowercased once: a search is on every keystroke of the TUI.
    private let searchTexts: [SearchText]

    /// A repository over `entities` (the bundled catalog by default).
    public init(entities: [ArchiveSceneEntity] = BundledCatalog.entities) {
        self.entities = entities.sorted { $0.id < $1.id }
        self.byID = Dictionary(entities.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.searchTexts = self.entities.map(SearchText.init)
    }

    public func getArchiveResponse(keyword: String, category: String) async throws -> [ArchiveSceneEntity] {
        let category = category.trimmingWhitespace()
        let keyword = SearchKeyword(keyword)
        var results: [ArchiveSceneEntity] = []
        for (entity, text) in zip(entities, searchTexts) where text.matches(keyword, category: category, of: entity) {
            results.append(entity)
        }
        return results
    }

    /// The dishes whose text matches `keyword` (``ArchiveSceneEntity/searchableFields``), by ID.
    public func entities(matching keyword: SearchKeyword) -> [ArchiveSceneEntity] {
        guard !keyword.isEmpty else { return entities }
        var results: [ArchiveSceneEntity] = []
        for (entity, text) in zip(entities, searchTexts) where text.matches(keyword, category: "", of: entity) {
            results.append(entity)
        }
        return results
    }

    public func getArchiveEntity(id: Int) async throws -> ArchiveSceneEntity {
        guard let entity = byID[id] else { throw ArchiveAPIError.notFound(id: id, source: "the bundled catalog") }
        return entity
    }

    public func categories() async throws -> [String] {
        var seen = Set<String>()
        return entities.map(\.category).filter { seen.insert($0).inserted }
    }
}

