import ArchiveFront
import ArgumentParser

/// What `archive add` and `archive remove` share: one ID, one storage action
/// through the store, one confirmation.
protocol StorageCommand: ArchiveSubcommand {
    /// The ID as typed: taken whole, so that `-5` is reported as a bad ID, not as an unknown option.
    var idArgument: [String] { get }
    /// Declared in each command: `@Argument(parsing: .allUnrecognized) var idArgument: [String]`.
    /// The action that stores or unstores `id`.
    func action(id: Int) -> ArchiveAction
    /// Whether the command talks to the catalog.
    static var catalogUse: ArchiveSession.CatalogUse { get }
}

extension StorageCommand {
    /// The ID arguments, without the `--` that ends options (`archive add -- 17`).
    private var ids: [String] { idArgument.filter { $0 != "--" } }

    /// The ID, once ``validate()`` accepted it.
    var id: Int { ids.first.flatMap { Int($0) } ?? 0 }

    func validate() throws {
        let idArgument = ids
        guard let text = idArgument.first else {
            throw ValidationError("give the dish's ID, a positive integer (see `archive search`)")
        }
        guard idArgument.count == 1 else {
            throw ValidationError("give one ID, got \(idArgument.count): \(idArgument.joined(separator: " "))")
        }
        guard let id = Int(text), id > 0 else {
            throw ValidationError("IDs are positive integers (see `archive search`), got '\(TerminalText.visible(text))'")
        }
    }

    func run() async throws {
        try await Self.perform(action(id: id), id: id, json: json, session: openSession(catalog: Self.catalogUse))
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
