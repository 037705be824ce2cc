import ArchiveCore
import ArgumentParser

/// `archive add ID`.
struct AddCommand: StorageCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Store the catalog dish with this ID as a favorite.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The dish's ID (see `archive search`).")
    var id: Int

    var action: ArchiveAction { .addArchiveObjectWithID(id) }
    var storesFavorite: Bool { true }
}
