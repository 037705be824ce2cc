import ArchiveFront
import ArgumentParser

/// `archive add ID`.
struct AddCommand: StorageCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Store the catalog dish with this ID as a favorite.")
    static let catalogUse = ArchiveSession.CatalogUse.needed

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand
    @OptionGroup var target: FavoriteIDArgument

    func action(id: Int) -> ArchiveAction { .addArchiveObjectWithID(id) }
}
