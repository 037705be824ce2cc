import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Foundation
import Redux
import TestSupport
import Testing
import ArchiveSyncModel

/// Where a database stands with sync, through the store: the changes waiting and when it
/// last synced, read after each change to the favorites and after each sync.
@MainActor
@Suite(.timeLimit(.minutes(5)))
struct SyncStatusStoreTests {
    @Test func theChangesWaitingFollowTheHeartsAndASyncClearsThem() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("phone.sqlite3"), other = directory.path("laptop.sqlite3")
        let database = try ArchiveDatabase(path: path)
        _ = try ArchiveDatabase(path: other)
        let store = AppStore(environment: ArchiveEnvironment(database: database))

        store.dispatch(.sync(.refreshStatus))
        await store.settle()
        #expect(store.state.syncState.status == SyncStatus(lastSync: nil, waiting: 0))

        store.dispatch(.archive(.addArchiveObjectWithID(17)))
        store.dispatch(.archive(.addArchiveObjectWithID(21)))
        await store.settle()
        #expect(store.state.syncState.status?.waiting == 2)
        store.dispatch(.archive(.deleteArchiveObject(id: 17)))
        await store.settle()
        // One change a favorite: 17's removal replaced its heart in the feed, and is sent.
        #expect(store.state.syncState.status?.waiting == 2)

        let before = Date()
        store.dispatch(.sync(.start(.file(path: other))))
        await store.settle()
        #expect(store.state.syncState.lastSummary?.sent.applied == 2)
        let synced = try #require(store.state.syncState.status)
        #expect(synced.waiting == 0)
        #expect(try #require(synced.lastSync) >= before.addingTimeInterval(-1))
        // Changes received by a sync are not waiting: only this database's own are.
        let laptop = try ArchiveDatabase(path: other)
        try laptop.favorites.create(StoredArchiveObject(
            id: 33, photoUrl: "https://example.com/33.jpg", category: "和食", dishName: "親子丼", shopName: "店",
            introduction: "紹介", storedAt: Date()))
        store.dispatch(.sync(.start(.file(path: other))))
        await store.settle()
        #expect(store.state.syncState.lastSummary?.received.applied == 1)
        #expect(store.state.syncState.status?.waiting == 0)
        // It is kept in the database: `settings` shows it, another store reads it.
        #expect(try database.settings.entry(.lastSync).value != nil)
        #expect(try database.syncStatus() == store.state.syncState.status)
    }
}
