import ArchiveAPI
import Testing

@Suite(.timeLimit(.minutes(5)))
struct BundledArchiveRepositoryTests {
    let repository = BundledArchiveRepository()

    @Test func theCatalogHasSixtyDishesOverSixCategoriesWithCompleteFields() async throws {
        let all = try await repository.getArchiveResponse(keyword: "", category: "")
        #expect(all.count >= 60)
        #expect(Set(all.map(\.id)).count == all.count)
        #expect(all.map(\.id) == all.map(\.id).sorted())
        for entity in all {
            #expect(!entity.dishName.isEmpty && !entity.shopName.isEmpty && !entity.introduction.isEmpty)
            #expect(entity.photoUrl.hasPrefix("https://"))
        }
        let categories = try await repository.categories()
        #expect(categories == ["和食", "洋食", "中華", "イタリアン", "エスニック", "スイーツ"])
        for category in categories {
            #expect(all.filter { $0.category == category }.count >= 10, "\(category)")
        }
    }

    @Test func aKeywordAndACategoryNarrowTheSearchLikeJSONServer() async throws {
        let cheeseWestern = try await repository.getArchiveResponse(keyword: "チーズ", category: "洋食")
        #expect(cheeseWestern.map(\.id) == [17, 21, 33])

        let cheese = try await repository.getArchiveResponse(keyword: "チーズ", category: "")
        #expect(Set(cheese.map(\.category)).count > 1)
        #expect(cheese.allSatisfy { "\($0.dishName)\($0.shopName)\($0.introduction)".contains("チーズ") })

        // The keyword is searched in the shop name and the introduction too.
        let byShop = try await repository.getArchiveResponse(keyword: "カナリヤ", category: "")
        #expect(byShop.map(\.id) == [15, 21, 33, 58])
        let byIntroduction = try await repository.getArchiveResponse(keyword: "備長炭", category: "")
        #expect(byIntroduction.map(\.id) == [8])

        // Categories match exactly; blank conditions match everything.
        #expect(try await repository.getArchiveResponse(keyword: "", category: "洋").isEmpty)
        #expect(try await repository.getArchiveResponse(keyword: "  ", category: " ").count == 66)
        #expect(try await repository.getArchiveResponse(keyword: "存在しない料理", category: "").isEmpty)
    }

    @Test func keywordsAreLiteralAndCaseInsensitive() async throws {
        let entities = [
            ArchiveSceneEntity(id: 1, photoUrl: "", category: "x", dishName: "Cheese Burger", shopName: "s", introduction: "i"),
            ArchiveSceneEntity(id: 2, photoUrl: "", category: "x", dishName: "50% off'; DROP TABLE", shopName: "s", introduction: "i"),
        ]
        let repository = BundledArchiveRepository(entities: entities)
        #expect(try await repository.getArchiveResponse(keyword: "cheese", category: "").map(\.id) == [1])
        #expect(try await repository.getArchiveResponse(keyword: "'; DROP", category: "").map(\.id) == [2])
        #expect(try await repository.getArchiveResponse(keyword: "%", category: "").map(\.id) == [2])
    }

    @Test func oneDishByIDAndAClearErrorForUnknownIDs() async throws {
        #expect(try await repository.getArchiveEntity(id: 17).dishName == "チーズハンバーグ")
        await #expect(throws: ArchiveAPIError.notFound(id: 999, source: "the bundled catalog")) {
            try await repository.getArchiveEntity(id: 999)
        }
    }
}
