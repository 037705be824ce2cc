/// The catalog API of the Archive screen: searches dishes and reads one by ID.
///
/// Two implementations: ``BundledArchiveRepository`` (compiled in, the embedded
/// default) and ``HTTPArchiveRepository`` (a json-server-style endpoint).
/// Errors are ``ArchiveAPIError``.
public protocol RequestArchiveRepository: Sendable {
    /// The dishes matching `keyword` and `category` (json-server semantics, see
    /// ``ArchiveSceneEntity/matches(keyword:category:)``), by ID.
    func getArchiveResponse(keyword: String, category: String) async throws -> [ArchiveSceneEntity]

    /// The dish with this ID; throws ``ArchiveAPIError/notFound(id:source:)`` when there is none.
    func getArchiveEntity(id: Int) async throws -> ArchiveSceneEntity

    /// The categories of the catalog, in catalog order.
    func categories() async throws -> [String]
}
