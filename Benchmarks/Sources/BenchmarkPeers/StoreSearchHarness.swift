import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Redux

/// The full archive search through the Store: dispatch → bundled catalog →
/// `storedIDs(among:)` → success → reducer → new state.
@MainActor
public final class StoreSearchHarness {
    let store: AppStore
    let keywords = ["チーズ", "餃子", "カレー", "", "パスタ", "抹茶"]
    var turn = 0

    public init(path: String) throws {
        let database = try ArchiveDatabase(path: path)
        store = AppStore(environment: ArchiveEnvironment(database: database))
    }

    /// One search, awaited until the new state is in place; returns the stored rows shown.
    public func search() async -> Int {
        turn += 1
        store.dispatch(.archive(.requestWithInputText(keywords[turn % keywords.count])))
        await store.finishEffects()
        return store.state.archiveState.archiveCellViewObjects.filter(\.isStored).count
    }
}
