import ArchiveFront
import ArgumentParser

/// `archive add ID` or `archive remove ID` (``Operation`` says which) and the
/// shared options, as plain values. Parsed by ArgumentParser
/// (``StorageCommand``) or by ``CommandLineShortcut``; either way it runs here.
struct StorageRequest<Operation: StorageOperation>: Equatable, Sendable {
    /// The dish's ID, positive.
    var id: Int
    /// The shared options, merged.
    var options = CommandOptions()

    /// Stores or removes the favorite through the store and confirms it (exit 1
    /// when a removal finds nothing stored).
    @MainActor
    func run() async throws {
        try await Self.perform(Operation.action(id: id), id: id, json: options.json, session: options.openSession(catalog: Operation.catalogUse))
    }

    @MainActor
    private static func perform(_ action: ArchiveAction, id: Int, json: Bool, session: ArchiveSession) async throws {
        let store = session.makeStore(effectExecutor: EffectExecution.preferred)
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
