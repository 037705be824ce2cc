import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Redux
import ArgumentParser

/// `archive search [KEYWORD] [--category C]`.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the catalog by keyword and category; ♥ marks stored favorites.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Text to find in the dish name, shop name or introduction (all dishes when omitted).")
    var keyword: String = ""

    @Option(name: .shortAndLong, help: "Only this category (exact match; see `archive categories`).")
    var category: String = ""

    func run() async throws {
        try await execute()
    }

    @MainActor
    private func execute() async throws {
        let session = try global.openSession()
        let store = session.makeStore()
        store.dispatch(.archive(.requestWithConditions(inputText: keyword, selectedCategory: category)))
        await store.finishEffects()
        let state = store.state.archiveState
        if state.isError {
            throw CLIError(state.errorMessage ?? "the search failed")
        }
        let rows = state.archiveCellViewObjects
        if global.json {
            try JSONOutput.print(OutputShapes.Search(
                keyword: keyword, category: category, count: rows.count, results: rows.map(OutputShapes.row)))
            return
        }
        let colors = Terminal.colorsOnStdout
        for row in rows {
            let heart = row.isStored ? "♥" : "♡"
            let name = Terminal.highlighting(keyword, in: row.dishName, enabled: colors)
            let shop = Terminal.highlighting(keyword, in: row.shopName, enabled: colors)
            let categoryText = Terminal.styled(row.category, Terminal.bold, enabled: colors && !category.isEmpty)
            print("\(heart) \(String(row.id).leftPadded(to: 4))  \(categoryText)  \(name) — \(shop)")
            print("        \(Terminal.highlighting(keyword, in: row.introduction, enabled: colors))")
        }
        let conditions = [keyword.isEmpty ? nil : "\"\(keyword)\"", category.isEmpty ? nil : "in \(category)"]
            .compactMap { $0 }.joined(separator: " ")
        let stored = rows.filter(\.isStored).count
        Terminal.message("\(rows.count) result\(rows.count == 1 ? "" : "s")\(conditions.isEmpty ? "" : " for " + conditions), \(stored) stored")
        if rows.isEmpty, !category.isEmpty {
            let categories = (try? await session.api.categories()) ?? []
            if !categories.isEmpty, !categories.contains(category) {
                Terminal.message("note: the catalog has no category '\(category)'; its categories are \(categories.joined(separator: ", "))")
            }
        }
    }
}

extension String {
    /// The string with spaces before it up to `width` characters.
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
