/// One step of a schema: a version, a name and the SQL that performs it.
///
/// Its checksum (SHA-256 of the SQL's UTF-8 bytes) is recorded when it is
/// applied, so that an applied migration edited afterwards is refused. This
/// module does not hash: the checksum is given (computed at build time for the
/// shipped migrations, or by the `MigrationChecksum` module).
public struct Migration: Sendable, Hashable {
    /// The version: migrations run in increasing order of it.
    public let version: Int
    /// The name, in snake case (`create_archive_objects`).
    public let name: String
    /// The SQL: one or more statements, run in one transaction.
    public let sql: String
    /// SHA-256 of `sql`, 64 lowercase hexadecimal digits.
    public let checksum: String

    /// Creates a migration from its parts; `checksum` is SHA-256 of `sql` as 64
    /// lowercase hexadecimal digits (``MigrationChecksum`` computes it; the shipped
    /// migrations carry theirs from the build).
    public init(version: Int, name: String, sql: String, checksum: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = checksum
    }

    /// Creates a migration from a file named `NNNN_snake_name.sql` and its contents.
    ///
    /// Throws ``MigrationError/invalidFileName(_:)`` for any other name.
    public init(fileName: String, sql: String, checksum: String) throws {
        guard let (version, name) = Self.parse(fileName: fileName) else {
            throw MigrationError.invalidFileName(fileName)
        }
        self.init(version: version, name: name, sql: sql, checksum: checksum)
    }

    /// The file name this migration has in `Migrations/`, such as `0001_create_archive_objects.sql`.
    public var fileName: String {
        let digits = String(version)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "_" + name + ".sql"
    }

    /// Splits `0001_create_things.sql` into `(1, "create_things")`; `nil` when the name has another shape.
    public static func parse(fileName: String) -> (version: Int, name: String)? {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let digits = stem[..<underscore]
        let name = stem[stem.index(after: underscore)...]
        guard digits.count >= 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let version = Int(digits), version > 0,
            let first = name.first, first.isASCII, first.isLowercase,
            name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") })
        else { return nil }
        return (version, String(name))
    }
}
