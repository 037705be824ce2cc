import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Foundation
import Redux
import TestSupport
import Testing
import ArchiveSyncModel

/// A catalog API whose answers the test releases one by one: a search for a
/// keyword that has a gate waits until the test opens it.
struct ControllableArchiveAPI: RequestArchiveRepository {
    let catalog = BundledArchiveRepository()
    var gates: [String: Gate] = [:]
    var failures: Recorder<String>? = nil
    let calls = Recorder<String>()
    /// Reached by every search once it has its answer (open: never blocks).
    let answered = Gate(open: true)

    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "the catalog is down" }
    }

    /// Fails the next searches whose keyword is recorded in `failures`, once each.
    func getArchiveResponse(keyword: String, category: String) async throws -> [ArchiveSceneEntity] {
        calls.append(keyword)
        if let gate = gates[keyword] { await gate.wait() }
        if let failures, failures.values.filter({ $0 == keyword }).count >= calls.values.filter({ $0 == keyword }).count {
            throw Unavailable()
        }
        let entities = try await catalog.getArchiveResponse(keyword: keyword, category: category)
        await answered.wait()
        return entities
    }

    func getArchiveEntity(id: Int) async throws -> ArchiveSceneEntity {
        try await catalog.getArchiveEntity(id: id)
    }

    func categories() async throws -> [String] {
        try await catalog.categories()
    }
}

/// Favorites over a real database whose writes all fail.
struct FailingWritesRepository: ForwardingFavoritesRepository {
    let base: SQLiteStoredArchiveDataRepository
    struct DiskFull: Error, CustomStringConvertible {
        var description: String { "disk full" }
    }

    func create(_ object: StoredArchiveObject) throws -> Bool { throw DiskFull() }
    func create(from next: () throws -> StoredArchiveObject?, progress: (Int) -> Void) throws -> Int {
        throw DiskFull()
    }
    func delete(id: Int) throws -> Bool { throw DiskFull() }
}

extension Store where State == AppState, Action == AppAction {
    /// Searches チーズ, whose answer waits on `slow` (a ``ControllableArchiveAPI`` gate),
    /// then 餃子, which answers at once; then releases the older answer, too late,
    /// and waits until every effect (the cancelled one too) has returned.
    func searchOvertakenByANewerOne(slow: Gate) async {
        dispatch(.archive(.requestWithInputText("チーズ")))
        await slow.waitForArrivals(1)
        dispatch(.archive(.requestWithInputText("餃子")))
        await waitUntil { !$0.archiveState.isLoading }
        await slow.open()
        await settle()
    }
}

extension ArchiveState {
    /// `[id: isStored]` of the rows shown.
    var hearts: [Int: Bool] {
        Dictionary(uniqueKeysWithValues: archiveCellViewObjects.map { ($0.id, $0.isStored) })
    }
}

func storedObject(_ id: Int) async throws -> StoredArchiveObject {
    let entity = try await BundledArchiveRepository().getArchiveEntity(id: id)
    return StoredArchiveObject(
        id: entity.id, photoUrl: entity.photoUrl, category: entity.category, dishName: entity.dishName,
        shopName: entity.shopName, introduction: entity.introduction)
}
