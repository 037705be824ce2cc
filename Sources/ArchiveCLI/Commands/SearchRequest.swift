import ArchiveFront

/// A search, as `archive search` was asked for it: `[KEYWORD] [--category C]`,
/// or `--last`, and the shared options. Parsed by ArgumentParser
/// (``SearchCommand``) or by ``CommandLineShortcut``; either way it runs here.
struct SearchRequest: Equatable, Sendable {
    /// The text to find (all dishes when empty).
    var keyword = ""
    /// Only this category (any when empty).
    var category = ""
    /// Repeat the last search instead.
    var last = false
    /// The shared options, merged.
    var options = CommandOptions()

    /// Searches and prints the rows (JSON with `--json`).
    @MainActor
    func run() async throws {
        try await execute(session: options.openSession(catalog: .needed))
    }

    @MainActor
    private func execute(session: ArchiveSession) async throws {
        let store = session.makeStore(effectExecutor: EffectExecution.preferred)
        var (keyword, category) = (self.keyword, self.category)
        if last {
            store.dispatch(.settings(.load))
            await store.finishEffects()
            if let message = store.state.settingsState.errorMessage { throw CLIError("cannot read the last search: \(message)") }
            let lastSearch = store.state.settingsState.lastSearch ?? LastSearch()
            (keyword, category) = (lastSearch.keyword, lastSearch.category)
        }
        store.dispatch(.archive(.requestWithConditions(inputText: keyword, selectedCategory: category)))
        store.dispatch(.settings(.rememberSearch))  // for `search --last` and the TUI's next start
        await store.finishEffects()
        let state = store.state.archiveState
        if state.isError {
            throw CLIError(state.errorMessage ?? "the search failed")
        }
        let rows = state.archiveCellViewObjects
        var offlineReason: String?
        if case .favorites(let reason, let total) = state.source {
            offlineReason = reason
            // The rows still answer the search: a note on stderr, exit 0.
            Terminal.message("offline — showing your favorites: \(reason)")
            if let total, total > rows.count {
                Terminal.message("note: the newest \(rows.count) of \(total) matching favorites are shown")
            } else if total == nil {
                Terminal.message("note: the newest \(rows.count) matching favorites are shown; more may match")
            }
        }
        if options.json {
            try JSONOutput.print(OutputShapes.Search(
                keyword: keyword, category: category, count: rows.count, results: rows.map(OutputShapes.Row.init),
                source: offlineReason == nil ? "catalog" : "favorites", reason: offlineReason))
            return
        }
        let colors = Terminal.colorsOnStdout
        let searched = SearchKeyword(keyword)
        func text(_ value: String) -> String { Terminal.highlighted(HighlightedText(value, keyword: searched), enabled: colors) }
        for row in rows {
            let heart = row.isStored ? "♥" : "♡"
            let categoryText = Terminal.styled(TerminalText.visible(row.category), Terminal.bold, enabled: colors && !category.isEmpty)
            print("\(heart) \(String(row.id).leftPadded(to: 4))  \(categoryText)  \(text(row.dishName)) — \(text(row.shopName))")
            print("        \(text(row.introduction))")
        }
        // "3 results for "チーズ" in 洋食", "11 results in 和食", "5 results".
        let conditions = (searched.isEmpty ? "" : " for \"\(searched.text)\"") + (category.isEmpty ? "" : " in \(category)")
        let stored = rows.filter(\.isStored).count
        Terminal.message("\(rows.count) result\(rows.count == 1 ? "" : "s")\(conditions), \(stored) stored")
        if rows.isEmpty, !category.isEmpty, offlineReason == nil {
            let categories = (try? await session.api.categories()) ?? []
            if !categories.isEmpty, !categories.contains(category) {
                Terminal.message("note: the catalog has no category '\(category)'; its categories are \(categories.joined(separator: ", "))")
            }
        }
    }
}
