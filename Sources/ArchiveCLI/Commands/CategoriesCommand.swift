import ArchiveFront
import ArgumentParser

/// `archive categories`.
struct CategoriesCommand: ArchiveSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "categories", abstract: "List the catalog's categories.")

    @OptionGroup var global: GlobalOptions
    @ParentCommand var root: ArchiveCommand

    struct Output: Encodable {
        let categories: [String]
    }

    func run() async throws {
        let api = try ArchiveSession.catalog(at: location())
        let categories: [String]
        do {
            categories = try await api.categories()
        } catch {
            throw CLIError("cannot list categories: \(error)")
        }
        if json {
            try JSONOutput.print(Output(categories: categories))
        } else {
            categories.forEach { print(TerminalText.visible($0)) }
        }
    }
}
