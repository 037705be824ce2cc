import ArgumentParser

/// `archive serve`, which served the catalog until `archive-server` took it over: says
/// where it went (a usage error, exit 64), so a script that still calls it learns why.
struct MovedServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Moved: archive-server serves the catalog (and the sync API).",
        shouldDisplay: false)

    @Argument(parsing: .allUnrecognized)
    var arguments: [String] = []

    func validate() throws {
        throw ValidationError(
            "archive serve moved to archive-server, which serves the catalog at /archive_images beside the sync API: archive-server --port 3000 (its --delay and --fail-rate as before)")
    }
}
