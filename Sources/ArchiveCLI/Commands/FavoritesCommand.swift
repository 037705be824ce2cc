import ArchiveFront
import ArgumentParser

/// `archive favorites [--search KEYWORD] [--category C] [--limit N] [--after CURSOR]`.
struct FavoritesCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "favorites",
        abstract: "List (or search) stored favorites, newest first, a page at a time.",
        discussion: """
            When more follow, the last line gives the next page's cursor: pass it as --after=CURSOR \
            (with the same --search and --category). A keyword matches as the catalog search does: \
            contained, ignoring case, in any text field; one or two characters (蕎, 寿司) work too.
            """)

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    // Unconditional: `--limit -1` is a value to refuse by its range, not a missing one.
    @Option(parsing: .unconditional, help: "Favorites per page (1 to \(StoredArchivePage.maximumLimit)).")
    var limit = Self.defaultLimit

    /// A page's size when `--limit` is not given.
    static let defaultLimit = 20

    @Option(help: ArgumentHelp("Start after this cursor, as printed with the previous page (--after=CURSOR).", valueName: "cursor"))
    var after: String?

    @Option(help: ArgumentHelp("Only favorites containing this keyword in a text field, ignoring case.", valueName: "keyword"))
    var search = ""

    @Option(help: ArgumentHelp("Only favorites of this category (exactly).", valueName: "category"))
    var category = ""

    func validate() throws {
        guard (1...StoredArchivePage.maximumLimit).contains(limit) else {
            throw ValidationError("--limit must be between 1 and \(StoredArchivePage.maximumLimit), got \(limit)")
        }
        if let after, StoredArchivePageCursor(after) == nil {
            throw ValidationError("'\(after)' is not a page cursor: pass the cursor printed with the previous page (STOREDAT_MS:ID)")
        }
    }

    func run() async throws {
        try await execute(session: openSession(catalog: .unused))
    }

    @MainActor
    private func execute(session: ArchiveSession) async throws {
        let store = session.makeStore()
        let query = FavoritesQuery(keyword: search, category: category)
        store.dispatch(.favorites(.search(query, after: after.flatMap(StoredArchivePageCursor.init), limit: limit)))
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
        let total = state.totalCount.map(String.init) ?? "many"
        let what = query.isEmpty ? "favorites" : "matching favorites"
        Terminal.message("\(state.favorites.count) of \(total) \(what)\(state.nextCursor.map { "; next page: \(nextCommand(after: $0))" } ?? "")")
    }

    /// The command that prints the next page, the conditions quoted for a POSIX shell, and
    /// the page's size when it is not the default (a next page of another size is no page of
    /// the same listing).
    private func nextCommand(after cursor: StoredArchivePageCursor) -> String {
        var command = "archive favorites"
        if !search.isEmpty { command += " --search \(Terminal.shellQuoted(search))" }
        if !category.isEmpty { command += " --category \(Terminal.shellQuoted(category))" }
        if limit != Self.defaultLimit { command += " --limit \(limit)" }
        return command + " --after=\(cursor)"
    }

    /// `{"favorites": [records], "nextCursor": "…" or null, "total": N or null}`, each
    /// record written by the export's own encoder (``FavoriteRecordEncoder``). `total`
    /// counts what the listing matches (every favorite without --search/--category);
    /// it is null when a keyword matches too many to count without reading them all.
    static func json(_ state: FavoritesState) -> String {
        var bytes = Array("{\n  \"favorites\" : [".utf8)
        for (index, favorite) in state.favorites.enumerated() {
            bytes += (index == 0 ? "\n    " : ",\n    ").utf8
            FavoriteRecordEncoder.append(favorite, to: &bytes)
        }
        var text = String(decoding: bytes, as: UTF8.self)
        text += state.favorites.isEmpty ? "],\n" : "\n  ],\n"
        // A cursor's text is digits, '-' and ':' only: safe inside quotes.
        text += "  \"nextCursor\" : \(state.nextCursor.map { "\"\($0)\"" } ?? "null"),\n"
        text += "  \"total\" : \(state.totalCount.map(String.init) ?? "null")\n}\n"
        return text
    }
}
