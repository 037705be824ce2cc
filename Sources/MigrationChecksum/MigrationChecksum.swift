/// The checksum a migration is recorded with: SHA-256 of its SQL.
///
/// Computed at build time: the `EmbedMigrations` plugin's tool writes each shipped
/// migration's checksum next to its text, so a process that opens a database
/// does not hash its migrations. A program that builds `Migration`s at run time
/// computes their checksums here. (Why SHA-256 is written here: ``SHA256Digest``.)
public enum MigrationChecksum {
    /// SHA-256 of `sql`'s UTF-8 bytes as 64 lowercase hexadecimal digits: the
    /// checksum recorded in `schema_migrations` (it must never change for a given text).
    public static func sha256(of sql: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256Digest.hash(Array(sql.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
