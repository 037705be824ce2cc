import ArchiveAPI

/// The Archive screen's pure reducer.
public enum ArchiveReducer {
    /// Applies `action` to `state`. Pure: no I/O, no clock, no randomness.
    public static func reduce(_ state: inout ArchiveState, _ action: ArchiveAction) {
        switch action {
        // MARK: Search
        case .requestWithInputText(let text):
            state.inputText = text
            startLoading(&state)
        case .requestWithSelectedCategory(let category):
            state.selectedCategory = category
            startLoading(&state)
        case .requestWithNoConditions:
            state.inputText = ""
            state.selectedCategory = ""
            startLoading(&state)
        case .requestWithConditions(let text, let category):
            state.inputText = text
            state.selectedCategory = category
            startLoading(&state)
        case .retry:
            startLoading(&state)
        case .success(let entities, let storedIDs):
            show(entities, storedIDs: storedIDs, from: .catalog, in: &state)
        case .failure(let message):
            fail(message, in: &state)
        case .catalogFailed(let reason, .found(let favorites, let total)):
            // Offline-first: the favorites that match answer instead of an error screen.
            show(favorites, storedIDs: Set(favorites.map(\.id)), from: .favorites(reason: reason, total: total), in: &state)
        case .catalogFailed(let reason, .failed(let favoritesError)):
            fail("search failed: \(reason); your favorites could not be read either: \(favoritesError)", in: &state)

        // MARK: Store and unstore
        case .addArchiveObject(let object):
            beginStorage(&state, id: object.id)
        case .addArchiveObjectWithID(let id), .deleteArchiveObject(let id):
            beginStorage(&state, id: id)
        case .addArchiveObjectSucceeded(let id, let wasStored):
            confirm(&state, id: id, isStored: true)
            state.lastStorageChange = StorageChange(id: id, isStored: true, changed: !wasStored)
        case .deleteArchiveObjectSucceeded(let id, let wasStored):
            confirm(&state, id: id, isStored: false)
            state.lastStorageChange = StorageChange(id: id, isStored: false, changed: wasStored)
        case .addArchiveObjectFailed(let id, let message), .deleteArchiveObjectFailed(let id, let message):
            state.pendingStorageIDs.remove(id)
            state.storageErrorMessage = message
        case .refreshStoredStatus:
            break
        case .storedStatusRefreshed(let storedIDs, let ids):
            let asked = Set(ids)
            for index in state.archiveCellViewObjects.indices {
                let id = state.archiveCellViewObjects[index].id
                guard asked.contains(id), !state.pendingStorageIDs.contains(id) else { continue }
                state.archiveCellViewObjects[index].isStored = storedIDs.contains(id)
            }
        case .dismissStorageError:
            state.storageErrorMessage = nil
        }
    }

    /// Shows a search's rows, `isStored` merged from `storedIDs` under what was
    /// confirmed while the search was in flight.
    private static func show(_ entities: [ArchiveSceneEntity], storedIDs: Set<Int>, from source: ArchiveSource, in state: inout ArchiveState) {
        let changes = state.storedChangesDuringSearch
        state.archiveCellViewObjects = entities.map { entity in
            ArchiveCellViewObject(entity: entity, isStored: changes[entity.id] ?? storedIDs.contains(entity.id))
        }
        state.source = source
        state.isLoading = false
        state.isError = false
        state.errorMessage = nil
        state.hasLoaded = true
        state.storedChangesDuringSearch = [:]
    }

    private static func fail(_ message: String, in state: inout ArchiveState) {
        state.isLoading = false
        state.isError = true
        state.errorMessage = message
        state.storedChangesDuringSearch = [:]
    }

    private static func startLoading(_ state: inout ArchiveState) {
        state.isLoading = true
        state.isError = false
        state.errorMessage = nil
        state.storedChangesDuringSearch = [:]
    }

    private static func beginStorage(_ state: inout ArchiveState, id: Int) {
        state.pendingStorageIDs.insert(id)
        state.storageErrorMessage = nil
    }

    private static func confirm(_ state: inout ArchiveState, id: Int, isStored: Bool) {
        state.pendingStorageIDs.remove(id)
        for index in state.archiveCellViewObjects.indices where state.archiveCellViewObjects[index].id == id {
            state.archiveCellViewObjects[index].isStored = isStored
        }
        if state.isLoading {
            state.storedChangesDuringSearch[id] = isStored
        }
    }
}
