import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Redux
import ArgumentParser

/// `archive add ID`.
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Store the catalog dish with this ID as a favorite.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The dish's ID (see `archive search`).")
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
        store.dispatch(.archive(.addArchiveObjectWithID(id)))
        await store.finishEffects()
        let state = store.state.archiveState
        if let message = state.storageErrorMessage {
            throw CLIError(message)
        }
        if global.json {
            try JSONOutput.print(OutputShapes.StorageChange(id: id, isStored: true, changed: true))
        } else {
            Terminal.message("♥ \(id) stored")
        }
    }
}
