import ArchiveSearch
import ArchiveTransfer
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

    /// Keeps `token` in the token file of `databasePath` (mode 0600 from its creation,
    /// replaced whole: a crash leaves the old file or the new one), so that `archive sync`
    /// alone finds it next time.
    public static func keep(_ token: String, databasePath: String) throws {
        let token = try checked(token, source: "the token to keep")
        try AtomicFile(replacing: filePath(forDatabase: databasePath), mode: 0o600).write { handle in
            try handle.write(token + "\n")
        }
    }

    /// The token on standard input (`archive sync --token-stdin`): its first line, at most
    /// 4 KiB read, so that a token never has to be on a command line, where any local user
    /// can read it (`/proc/PID/cmdline`, `ps`).
    public static func fromStandardInput() throws(SyncTokenError) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while bytes.count <= 4_096, !bytes.contains(0x0A) {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: buffer[..<count])
        }
        let line = bytes.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        guard line.count <= 4_096 else { throw .malformed(source: "standard input") }
        let token = String(decoding: line, as: UTF8.self).trimmingWhitespace()
        // Nothing at all (`< /dev/null`, an empty file, an empty first line): said as such,
        // not as a token that is not one.
        guard !token.isEmpty else { throw .emptyStandardInput }
        return try checked(token, source: "standard input")
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
    /// `--token-stdin`, and standard input's first line is empty (or there is none).
    case emptyStandardInput

    /// What is wrong and what to do.
    public var description: String {
        switch self {
        case .missing(let file):
            "no sync token: give it on standard input (--token-stdin), set \(SyncToken.variable), or put it in \(file) (mode 600); archive-server devices add USER LABEL prints one for a device"
        case .unusableFile(let path, let reason):
            "the token file \(path) cannot be used: \(reason)"
        case .malformed(let source):
            "the token from \(source) is not a token (printable characters, no spaces, at most 512)"
        case .emptyStandardInput:
            "no token on standard input (--token-stdin reads its first line): printf '%s\\n' TOKEN | archive sync --server URL --token-stdin"
        }
    }
}
