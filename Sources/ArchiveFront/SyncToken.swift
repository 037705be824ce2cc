import ArchiveSearch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The token `archive sync --server` sends: `--token`, else `ARCHIVE_SYNC_TOKEN`, else the
/// token file beside the database (`<database>.sync-token`), which only its owner may read
/// (mode 0600 or stricter). Never printed, never logged, never kept in the store's state.
public enum SyncToken {
    /// The variable that may hold the token.
    public static let variable = "ARCHIVE_SYNC_TOKEN"

    /// The token file of the database at `databasePath`.
    public static func filePath(forDatabase databasePath: String) -> String {
        databasePath + ".sync-token"
    }

    /// The token: `explicit`, the variable, or the token file of `databasePath`.
    public static func resolve(explicit: String?, databasePath: String) throws(SyncTokenError) -> String {
        if let explicit { return try checked(explicit, source: "--token") }
        if let value = getenv(variable), value.pointee != 0 { return try checked(String(cString: value), source: variable) }
        let path = filePath(forDatabase: databasePath)
        var info = stat()
        guard stat(path, &info) == 0 else { throw .missing(tokenFile: path) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .unusableFile(path: path, reason: "it is not a regular file") }
        guard info.st_mode & 0o077 == 0 else {
            throw .unusableFile(path: path, reason: "others may read it (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 \(path)")
        }
        // Its size is checked before it is read: a token file is never more than a line.
        guard info.st_size <= 4_096 else { throw .unusableFile(path: path, reason: "it is larger than 4 KiB: a token file holds one token") }
        guard let data = FileManager.default.contents(atPath: path), data.count <= 4_096 else {
            throw .unusableFile(path: path, reason: "it cannot be read, or grew past 4 KiB while read")
        }
        return try checked(String(decoding: data, as: UTF8.self).trimmingWhitespace(), source: path)
    }

    private static func checked(_ token: String, source: String) throws(SyncTokenError) -> String {
        guard !token.isEmpty, token.utf8.count <= 512, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .malformed(source: source)
        }
        return token
    }
}

/// Why no token could be found for `archive sync --server`.
public enum SyncTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// None given, and no token file.
    case missing(tokenFile: String)
    /// The token file cannot be used.
    case unusableFile(path: String, reason: String)
    /// The token from `source` is empty, too long, or has spaces or control characters.
    case malformed(source: String)

    /// What is wrong and what to do.
    public var description: String {
        switch self {
        case .missing(let file):
            "no sync token: give --token, set \(SyncToken.variable), or put it in \(file) (mode 600); archive-server users add NAME prints one"
        case .unusableFile(let path, let reason):
            "the token file \(path) cannot be used: \(reason)"
        case .malformed(let source):
            "the token from \(source) is not a token (printable characters, no spaces, at most 512)"
        }
    }
}
