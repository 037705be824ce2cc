import Crypto

/// One step of a schema: a version, a name and the SQL that performs it.
///
/// Its checksum (SHA-256 of the SQL's UTF-8 bytes) is recorded when it is
/// applied, so that an applied migration edited afterwards is refused.
public struct Migration: Sendable, Hashable {
    /// The version: migrations run in increasing order of it.
    public let version: Int
    /// The name, in snake case (`create_archive_objects`).
    public let name: String
    /// The SQL: one or more statements, run in one transaction.
    public let sql: String
    /// SHA-256 of `sql`, 64 lowercase hexadecimal digits.
    public let checksum: String

    /// Creates a migration from its parts.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = Self.checksum(of: sql)
    }

    /// SHA-256 of `sql`'s UTF-8 bytes as 64 lowercase hexadecimal digits: the
    /// checksum recorded in `schema_migrations` (it must never change for a given text).
    public static func checksum(of sql: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Array(sql.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// Creates a migration from a file named `NNNN_snake_name.sql` and its contents.
    ///
    /// Throws ``MigrationError/invalidFileName(_:)`` for any other name.
    public init(fileName: String, sql: String) throws {
        guard let (version, name) = Self.parse(fileName: fileName) else {
            throw MigrationError.invalidFileName(fileName)
        }
        self.init(version: version, name: name, sql: sql)
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
