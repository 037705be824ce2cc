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
        try await request.run()
    }

    /// What this command line asks for, as plain values.
    var request: StorageRequest<Operation> {
        StorageRequest(id: target.id, options: commandOptions)
    }
}

/// What a ``StorageCommand`` does.
protocol StorageOperation: Sendable {
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
