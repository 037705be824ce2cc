import ArchiveCore
import ArgumentParser
import Redux

/// What `archive add` and `archive remove` share: one ID, one storage action
/// through the store, one confirmation.
protocol StorageCommand: AsyncParsableCommand {
    var global: GlobalOptions { get }
    var id: Int { get }
    /// The action that stores or unstores `id`.
    var action: ArchiveAction { get }
    /// Whether the favorite is stored after success.
    var storesFavorite: Bool { get }
}

extension StorageCommand {
    func validate() throws {
        guard id > 0 else { throw ValidationError("ID must be a positive integer, got \(id)") }
    }

    func run() async throws {
        try await Self.perform(location: global.location, json: global.json, id: id, action: action, storesFavorite: storesFavorite)
    }

    @MainActor
    private static func perform(location: ArchiveLocation, json: Bool, id: Int, action: ArchiveAction, storesFavorite: Bool) async throws {
        let store = try ArchiveSession(location: location).makeStore()
        store.dispatch(.archive(action))
        await store.finishEffects()
        let state = store.state.archiveState
        if let message = state.storageErrorMessage {
            throw CLIError(message)
        }
        guard let change = state.lastStorageChange, change.id == id, change.changed else {
            throw CLIError("\(id) is not a stored favorite; nothing was removed (see `archive favorites`)")
        }
        if json {
            try JSONOutput.print(OutputShapes.StorageChange(id: id, isStored: storesFavorite, changed: true))
        } else {
            Terminal.message(storesFavorite ? "♥ \(id) stored" : "♡ \(id) removed")
        }
    }
}
