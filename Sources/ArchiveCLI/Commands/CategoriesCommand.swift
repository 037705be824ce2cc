import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Redux
import ArgumentParser

/// `archive categories`.
struct CategoriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "categories", abstract: "List the catalog's categories.")

    @OptionGroup var global: GlobalOptions

    struct Output: Encodable {
        let categories: [String]
    }

    func run() async throws {
        let session = try global.openSession()
        let categories: [String]
        do {
            categories = try await session.api.categories()
        } catch {
            throw CLIError("cannot list categories: \(error)")
        }
        if global.json {
            try JSONOutput.print(Output(categories: categories))
        } else {
            categories.forEach { print($0) }
        }
    }
}
