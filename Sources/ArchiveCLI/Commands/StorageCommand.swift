import ArchiveFront
import ArgumentParser

/// `archive add ID` and `archive remove ID`: one ID, one storage action through
/// the store, one confirmation. ``Operation`` says which.
struct StorageCommand<Operation: StorageOperation>: ArchiveSubcommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: Operation.name, abstract: Operation.abstract)
    }

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand
    @OptionGroup var target: FavoriteIDArgument

    func run() async throws {
        try await Self.perform(Operation.action(id: target.id), id: target.id, json: json, session: openSession(catalog: Operation.catalogUse))
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
            case (false, false): Terminal.message("\(id) is not a stored favorite; nothing was removed (see `archive favorites`)")
            }
        }
        if !change.isStored, !change.changed {
            throw ExitCode.failure
        }
    }
}

/// What a ``StorageCommand`` does.
protocol StorageOperation {
    static var name: String { get }
    static var abstract: String { get }
    /// Whether it talks to the catalog.
    static var catalogUse: ArchiveSession.CatalogUse { get }
    /// The action that stores or unstores `id`.
    static func action(id: Int) -> ArchiveAction
}

/// `archive add ID`: fetches the dish from the catalog and stores it.
enum AddOperation: StorageOperation {
    static let name = "add"
    static let abstract = "Store the catalog dish with this ID as a favorite."
    static let catalogUse = ArchiveSession.CatalogUse.needed
    static func action(id: Int) -> ArchiveAction { .addArchiveObjectWithID(id) }
}

/// `archive remove ID`: unstores the favorite (exit 1 when it is not stored).
enum RemoveOperation: StorageOperation {
    static let name = "remove"
    static let abstract = "Remove the favorite with this ID (exit 1 when it is not stored)."
    static let catalogUse = ArchiveSession.CatalogUse.unused
    static func action(id: Int) -> ArchiveAction { .deleteArchiveObject(id: id) }
}
