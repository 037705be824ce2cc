import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Redux
import ArgumentParser

/// `archive favorites [--limit N] [--after CURSOR]`.
struct FavoritesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "favorites",
        abstract: "List stored favorites, newest first, a page at a time.",
        discussion: "The last line gives the cursor of the next page: pass it to --after.")

    @OptionGroup var global: GlobalOptions

    @Option(help: "Favorites per page (1 to \(StoredArchivePage.maximumLimit)).")
    var limit = 20

    @Option(help: ArgumentHelp("Start after this cursor, as printed with the previous page.", valueName: "cursor"))
    var after: String?

    func validate() throws {
        guard (1...StoredArchivePage.maximumLimit).contains(limit) else {
            throw ValidationError("--limit must be between 1 and \(StoredArchivePage.maximumLimit), got \(limit)")
        }
        if let after, StoredArchivePageCursor(after) == nil {
            throw ValidationError("'\(after)' is not a page cursor: pass the cursor printed with the previous page (STOREDAT_MS:ID)")
        }
    }

    func run() async throws {
        try await execute()
    }

    @MainActor
    private func execute() async throws {
        let store = try global.openSession().makeStore()
        store.dispatch(.favorites(.requestPage(after: after.flatMap(StoredArchivePageCursor.init), limit: limit)))
        await store.finishEffects()
        let state = store.state.favoritesState
        if let message = state.errorMessage {
            throw CLIError(message)
        }
        if global.json {
            try JSONOutput.print(OutputShapes.Favorites(
                total: state.totalCount, favorites: state.favorites.map(OutputShapes.favorite),
                nextCursor: state.nextCursor?.description))
            return
        }
        for favorite in state.favorites {
            print("♥ \(String(favorite.id).leftPadded(to: 4))  \(favorite.category)  \(favorite.dishName) — \(favorite.shopName)  (\(favorite.storedAt.iso8601Milliseconds))")
        }
        if let next = state.nextCursor {
            print("next: \(next)")
        }
        Terminal.message("\(state.favorites.count) of \(state.totalCount) favorites\(state.nextCursor.map { "; next page: archive favorites --after \($0)" } ?? "")")
    }
}
