import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Redux
import TestSupport
import Testing

/// The settings through the store, on an in-memory database.
@MainActor
@Suite(.timeLimit(.minutes(5)))
struct SettingsStoreTests {
    let database: ArchiveDatabase
    let store: AppStore

    init() throws {
        database = try ArchiveDatabase.inMemory()
        store = AppStore(environment: ArchiveEnvironment(database: database))
    }

    @Test func theSearchIsRememberedWithItsMergedConditionsWhenTheFrontSaysSo() async throws {
        store.dispatch(.archive(.requestWithInputText("チーズ")))
        store.dispatch(.archive(.requestWithSelectedCategory("洋食")))
        await store.settle()
        #expect(try database.settings.lastSearch() == LastSearch(), "searching alone writes nothing")
        store.dispatch(.settings(.rememberSearch))
        await store.settle()
        #expect(try database.settings.lastSearch() == LastSearch(keyword: "チーズ", category: "洋食"))
        store.dispatch(.settings(.rememberView(.favorites)))
        store.dispatch(.settings(.load))
        await store.settle()
        #expect(store.state.settingsState.lastSearch == LastSearch(keyword: "チーズ", category: "洋食", view: .favorites))
        #expect(store.state.settingsState.entries.map(\.setting) == ArchiveSetting.all)
    }

    @Test func setAndResetGoThroughTheStoreAndBadValuesFailClearly() async throws {
        store.dispatch(.settings(.set(key: "lastView", value: "favorites")))
        await store.settle()
        #expect(store.state.settingsState.entries.first { $0.setting == .lastView }?.value == .string("favorites"))
        store.dispatch(.settings(.set(key: "onboardingStatus", value: "perhaps")))
        await store.settle()
        #expect(store.state.settingsState.errorMessage?.contains("expected a bool: true or false") == true)
        store.dispatch(.settings(.set(key: "colour", value: "red")))
        await store.settle()
        #expect(store.state.settingsState.errorMessage?.contains("no setting is named 'colour'") == true)
        store.dispatch(.settings(.reset(key: "lastView")))
        await store.settle()
        #expect(store.state.settingsState.errorMessage == nil)
        #expect(store.state.settingsState.entries.first { $0.setting == .lastView }?.storedValue == nil)
        #expect(try database.onboarding.shouldShowOnboarding())
    }
}
