/// A failure the CLI reports in one line, exiting with status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
