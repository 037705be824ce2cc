/// The result of checking a database file: SQLite's integrity and foreign-key checks and the row counts.
public struct IntegrityReport: Sendable, Hashable {
    /// The problems found; empty when the file is sound.
    public let problems: [String]
    /// The number of stored favorites.
    public let favorites: Int
    /// The number of key-value entries.
    public let keyValueEntries: Int

    /// Whether no problem was found.
    public var isOK: Bool { problems.isEmpty }

    /// Creates a report from its parts.
    public init(problems: [String], favorites: Int, keyValueEntries: Int) {
        self.problems = problems
        self.favorites = favorites
        self.keyValueEntries = keyValueEntries
    }
}
