import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Redux
import ArgumentParser

/// `archive remove ID`.
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove the favorite with this ID.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The favorite's ID (see `archive favorites`).")
    var id: Int

    func validate() throws {
        guard id > 0 else { throw ValidationError("ID must be a positive integer, got \(id)") }
    }

    func run() async throws {
        try await execute()
    }

    @MainActor
    private func execute() async throws {
        let store = try global.openSession().makeStore()
        store.dispatch(.archive(.deleteArchiveObject(id: id)))
        await store.finishEffects()
        let state = store.state.archiveState
        if let message = state.storageErrorMessage {
            throw CLIError(message)
        }
        guard let change = state.lastStorageChange, change.changed else {
            throw CLIError("\(id) is not a stored favorite; nothing was removed (see `archive favorites`)")
        }
        if global.json {
            try JSONOutput.print(OutputShapes.StorageChange(id: id, isStored: false, changed: true))
        } else {
            Terminal.message("♡ \(id) removed")
        }
    }
}
