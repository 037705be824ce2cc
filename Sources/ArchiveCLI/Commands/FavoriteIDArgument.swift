import ArchiveFront
import ArgumentParser

/// The one ID `archive add` and `archive remove` take, taken whole so that `-5`
/// is reported as a bad ID rather than as an unknown option.
struct FavoriteIDArgument: ParsableArguments {
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The dish's ID, a positive integer.", valueName: "id"))
    var arguments: [String] = []

    /// The ID arguments, without the `--` that ends options (`archive add -- 17`).
    private var ids: [String] { arguments.filter { $0 != "--" } }

    /// The ID, once ``validate()`` accepted it.
    var id: Int { ids.first.flatMap { Int($0) } ?? 0 }

    func validate() throws {
        let ids = self.ids
        guard let text = ids.first else {
            throw ValidationError("give the dish's ID, a positive integer (see `archive search`)")
        }
        guard ids.count == 1 else {
            throw ValidationError("give one ID, got \(ids.count): \(ids.joined(separator: " "))")
        }
        guard let id = Int(text), id > 0 else {
            throw ValidationError("IDs are positive integers (see `archive search`), got '\(text)'")
        }
    }
}
