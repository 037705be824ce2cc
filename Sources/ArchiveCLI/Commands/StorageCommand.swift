import ArchiveFront
import ArgumentParser

/// What `archive add` and `archive remove` share: one ID, one storage action
/// through the store, one confirmation.
protocol StorageCommand: ArchiveSubcommand {
    /// The ID.
    var target: FavoriteIDArgument { get }
    /// The action that stores or unstores `id`.
    func action(id: Int) -> ArchiveAction
    /// Whether the command talks to the catalog.
    static var catalogUse: ArchiveSession.CatalogUse { get }
}

extension StorageCommand {
    func run() async throws {
        try await Self.perform(action(id: target.id), id: target.id, json: json, session: openSession(catalog: Self.catalogUse))
    }

    @MainActor
    private static func perform(_ action: ArchiveAction, id: Int, json: Bool, session: ArchiveSession) async throws {
        let store = session.makeStore()
        store.dispatch(.archive(action))
        await store.finishEffects()
        let state = store.state.archiveState
        if let message = state.storageErrorMessage {
            throw CLIError(message)
        }
        guard let change = state.lastStorageChange, change.id == id else {
            throw CLIError("cannot tell whether \(id) changed: the store reported nothing")
        }
        if json {
            try JSONOutput.print(change)
        } else {
            switch (change.isStored, change.changed) {
            case (true, true): Terminal.message("♥ \(id) stored")
            case (true, false): Terminal.message("♥ \(id) was already stored (its fields were refreshed)")
            case (false, true): Terminal.message("♡ \(id) removed")
            case (false, false): break
            }
        }
        if !change.isStored, !change.changed {
            if !json { Terminal.message("\(id) is not a stored favorite; nothing was removed (see `archive favorites`)") }
            throw ExitCode.failure
        }
    }
}
