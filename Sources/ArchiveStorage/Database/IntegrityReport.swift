#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The result of checking a database file: SQLite's integrity and foreign-key
/// checks, the archive's own rules, and the row counts.
///
/// Encodes as `{"database", "ok", "problems": ["one line each"], "favorites",
/// "keyValueEntries", "installDate"}`, the shape `archive check --json` prints
/// (`installDate` is an ISO 8601 date, or null for a database created before
/// dates were recorded).
public struct IntegrityReport: Sendable, Hashable, Encodable {
    /// The database file.
    public let database: String
    /// The problems found, one line each; empty when the file is sound.
    public let problems: [String]
    /// The number of stored favorites.
    public let favorites: Int
    /// The number of key-value entries.
    public let keyValueEntries: Int
    /// When the database was created (``ArchiveSetting/installDate``), if recorded.
    public let installDate: Date?

    /// Whether no problem was found.
    public var isOK: Bool { problems.isEmpty }

    /// Creates a report from its parts; each problem is folded onto one line.
    public init(database: String, problems: [String], favorites: Int, keyValueEntries: Int, installDate: Date? = nil) {
        self.database = database
        self.problems = problems.map { $0.split(whereSeparator: \.isNewline).joined(separator: " ") }
        self.favorites = favorites
        self.keyValueEntries = keyValueEntries
        self.installDate = installDate
    }

    private enum CodingKeys: String, CodingKey {
        case database, ok, problems, favorites, keyValueEntries, installDate
    }

    /// Encodes the documented shape, with `ok` derived from the problems.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(database, forKey: .database)
        try container.encode(isOK, forKey: .ok)
        try container.encode(problems, forKey: .problems)
        try container.encode(favorites, forKey: .favorites)
        try container.encode(keyValueEntries, forKey: .keyValueEntries)
        try container.encode(installDate.map { SettingValue.date($0) }, forKey: .installDate)
    }
}
