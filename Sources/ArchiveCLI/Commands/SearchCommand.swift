import ArchiveFront
import ArgumentParser

/// `archive search [KEYWORD] [--category C]`, or `archive search --last`.
struct SearchCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the catalog by keyword and category; ♥ marks stored favorites.")

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    @Argument(help: "Text to find, ignoring case, in the dish name, shop name or introduction (all dishes when omitted).")
    var keyword: String = ""

    @Option(name: .shortAndLong, help: "Only this category (exact match; see `archive categories`).")
    var category: String = ""

    @Flag(help: "Repeat the last search (from either front), with its keyword and category.")
    var last = false

    func validate() throws {
        if last, !keyword.isEmpty || !category.isEmpty {
            throw ValidationError("--last repeats the last search's keyword and category: give no KEYWORD or --category with it")
        }
    }

    func run() async throws {
        try await request.run()
    }

    /// What this command line asks for, as plain values.
    var request: SearchRequest {
        SearchRequest(keyword: keyword, category: category, last: last, options: commandOptions)
    }
}
