import ArchiveFront
import ArgumentParser

/// `archive favorites [--limit N] [--after CURSOR]`.
struct FavoritesCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "favorites",
        abstract: "List stored favorites, newest first, a page at a time.",
        discussion: "When more follow, the last line gives the next page's cursor: pass it as --after=CURSOR.")

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    @Option(help: "Favorites per page (1 to \(StoredArchivePage.maximumLimit)).")
    var limit = 20

    @Option(help: ArgumentHelp("Start after this cursor, as printed with the previous page (--after=CURSOR).", valueName: "cursor"))
    var after: String?

    func validate() throws {
        guard (1...StoredArchivePage.maximumLimit).contains(limit) else {
            throw ValidationError("--limit must be between 1 and \(StoredArchivePage.maximumLimit), got \(limit)")
        }
        if let after, StoredArchivePageCursor(after) == nil {
            throw ValidationError("'\(TerminalText.visible(after))' is not a page cursor: pass the cursor printed with the previous page (STOREDAT_MS:ID)")
        }
    }

    func run() async throws {
        try await execute(session: openSession(catalog: .unused))
    }

    @MainActor
    private func execute(session: ArchiveSession) async throws {
        let store = session.makeStore()
        store.dispatch(.favorites(.requestPage(after: after.flatMap(StoredArchivePageCursor.init), limit: limit)))
        await store.finishEffects()
        let state = store.state.favoritesState
        if let message = state.errorMessage {
            throw CLIError(message)
        }
        if json {
            print(Self.json(state), terminator: "")
            return
        }
        for favorite in state.favorites {
            print("♥ \(String(favorite.id).leftPadded(to: 4))  \(TerminalText.visible(favorite.category))  \(TerminalText.visible(favorite.dishName)) — \(TerminalText.visible(favorite.shopName))  (\(favorite.storedAt.iso8601Milliseconds))")
        }
        if let next = state.nextCursor {
            print("next: \(next)")
        }
        Terminal.message("\(state.favorites.count) of \(state.totalCount) favorites\(state.nextCursor.map { "; next page: archive favorites --after=\($0)" } ?? "")")
    }

    /// `{"favorites": [records], "nextCursor": "…" or null, "total": N}`, each
    /// record written by the export's own encoder (``FavoriteRecordEncoder``).
    static func json(_ state: FavoritesState) -> String {
        var text = "{\n  \"favorites\" : ["
        for (index, favorite) in state.favorites.enumerated() {
            text += (index == 0 ? "\n    " : ",\n    ") + FavoriteRecordEncoder.encode(favorite)
        }
        text += state.favorites.isEmpty ? "],\n" : "\n  ],\n"
        // A cursor's text is digits, '-' and ':' only: safe inside quotes.
        text += "  \"nextCursor\" : \(state.nextCursor.map { "\"\($0)\"" } ?? "null"),\n"
        text += "  \"total\" : \(state.totalCount)\n}\n"
        return text
    }
}
