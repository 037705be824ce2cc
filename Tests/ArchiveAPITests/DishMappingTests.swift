import ArchiveAPI
import ArchiveSyncModel
import ArchiveSyncWire
import Foundation
import Testing

/// A dish is the same six fields on every side: the catalog's entity, the favorite a heart
/// stores (the one mapping, `ArchiveSceneEntity+StoredArchiveObject.swift`), and the wire's
/// favorite a sync carries (`WireFavorite`, its ID the change's); each way there and back
/// gives back what it was given, for every dish of the catalog and for texts at their edges.
@Suite(.timeLimit(.minutes(5)))
struct DishMappingTests {
    static let edges = [
        ArchiveSceneEntity(id: Int.max, photoUrl: "", category: "", dishName: "x", shopName: "", introduction: ""),
        ArchiveSceneEntity(id: 1, photoUrl: "https://example.org/ａ.jpg?q=\"'", category: "洋食", dishName: "Ｃａｆé\u{301} 🍰", shopName: "\u{3000}", introduction: String(repeating: "é", count: 5_000)),
    ]

    @Test func aDishIsTheSameAsAFavoriteAndOnTheWire() throws {
        for (index, dish) in (BundledCatalog.entities + Self.edges).enumerated() {
            let favorite = dish.favorite(storedAtMilliseconds: 1_700_000_000_000 + Int64(index))
            #expect(ArchiveSceneEntity(favorite) == dish)
            #expect(favorite.storedAtMilliseconds == 1_700_000_000_000 + Int64(index))
            let wire = WireFavorite(favorite)
            #expect(wire.object(id: dish.id) == favorite)
            // Through the wire's JSON too.
            let decoded = try JSONDecoder().decode(WireFavorite.self, from: try JSONEncoder().encode(wire))
            #expect(ArchiveSceneEntity(decoded.object(id: dish.id)) == dish)
        }
    }
}
