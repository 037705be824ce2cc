import ArchiveFront
import ArgumentParser

/// `archive remove ID`.
struct RemoveCommand: StorageCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove the favorite with this ID (exit 1 when it is not stored).")
    static let catalogUse = ArchiveSession.CatalogUse.unused

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand
    @OptionGroup var target: FavoriteIDArgument

    func action(id: Int) -> ArchiveAction { .deleteArchiveObject(id: id) }
}
