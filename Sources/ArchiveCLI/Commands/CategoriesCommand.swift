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
        // The action log as every command takes it: opened first, a path that cannot be
        // written refused before anything else (this command dispatches no action to log).
        let location = try location()
        _ = try ArchiveSession.openActionLog(of: location)
        let api = try ArchiveSession.catalog(at: location)
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
