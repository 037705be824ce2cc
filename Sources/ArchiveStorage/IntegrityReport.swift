/// The result of checking a database file: SQLite's integrity and foreign-key
/// checks, the archive's own rules, and the row counts.
///
/// Encodes as `{"database", "ok", "problems": ["one line each"], "favorites",
/// "keyValueEntries"}`, the shape `archive check --json` prints.
public struct IntegrityReport: Sendable, Hashable, Encodable {
    /// The database file.
    public let database: String
    /// The problems found, one line each; empty when the file is sound.
    public let problems: [String]
    /// The number of stored favorites.
    public let favorites: Int
    /// The number of key-value entries.
    public let keyValueEntries: Int

    /// Whether no problem was found.
    public var isOK: Bool { problems.isEmpty }

    /// Creates a report from its parts; each problem is folded onto one line.
    public init(database: String, problems: [String], favorites: Int, keyValueEntries: Int) {
        self.database = database
        self.problems = problems.map { $0.split(whereSeparator: \.isNewline).joined(separator: " ") }
        self.favorites = favorites
        self.keyValueEntries = keyValueEntries
    }

    private enum CodingKeys: String, CodingKey {
        case database, ok, problems, favorites, keyValueEntries
    }

    /// Encodes the documented shape, with `ok` derived from the problems.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(database, forKey: .database)
        try container.encode(isOK, forKey: .ok)
        try container.encode(problems, forKey: .problems)
        try container.encode(favorites, forKey: .favorites)
        try container.encode(keyValueEntries, forKey: .keyValueEntries)
    }
}
