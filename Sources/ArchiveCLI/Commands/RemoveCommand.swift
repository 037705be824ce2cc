import ArchiveCore
import ArgumentParser

/// `archive remove ID`.
struct RemoveCommand: StorageCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove the favorite with this ID.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The favorite's ID (see `archive favorites`).")
    var id: Int

    var action: ArchiveAction { .deleteArchiveObject(id: id) }
    var storesFavorite: Bool { false }
}
