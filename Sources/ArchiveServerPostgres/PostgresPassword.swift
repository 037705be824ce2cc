import Foundation

/// Where `archive-server --postgres URL` finds the password a URL leaves out, as libpq does,
/// so that it need not be on the command line (where every local user reads it in
/// `/proc/PID/cmdline` for as long as the service runs): `PGPASSWORD`, else the password
/// file `PGPASSFILE` names (default `~/.pgpass`), lines of
/// `hostname:port:database:username:password`, each of the first four `*` for any, `\:`
/// and `\\` for a colon and a backslash in a field, `#` for a comment. A password file
/// other users can read (mode wider than 600) is ignored, as libpq ignores it, saying so.
/// For a Unix socket, its host is the socket's directory or `localhost`.
enum PostgresPassword {
    /// The password for `user` of `database` at `host`:`port`, from `environment`, and what
    /// a person should know of how it was found (a password file ignored, and why).
    static func find(
        host: String, port: Int, database: String, user: String, socket: Bool, environment: [String: String]
    ) -> (password: String?, notes: [String]) {
        if let password = environment["PGPASSWORD"], !password.isEmpty { return (password, []) }
        let path: String
        if let named = environment["PGPASSFILE"], !named.isEmpty {
            path = named
        } else if let home = environment["HOME"], !home.isEmpty {
            path = home + "/.pgpass"
        } else {
            return (nil, [])
        }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            // A missing default file is the common case; a named one that cannot be read is said.
            return (nil, environment["PGPASSFILE"] == nil ? [] : ["the password file \(path) (PGPASSFILE) cannot be read: no such file, or no permission"])
        }
        // Looked at before it is read: a FIFO in its place would hold the start.
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            return (nil, ["the password file \(path) is not a regular file; it was not read"])
        }
        let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0o777
        guard mode & 0o077 == 0 else {
            return (nil, ["the password file \(path) can be read by other users (mode \(String(mode, radix: 8))); it was ignored, as libpq ignores it: chmod 600 \(path)"])
        }
        guard (attributes[.size] as? NSNumber)?.intValue ?? 0 <= 1 << 20, let data = FileManager.default.contents(atPath: path),
              let text = String(data: data, encoding: .utf8)
        else {
            return (nil, ["the password file \(path) cannot be read as UTF-8 text of at most 1 MiB"])
        }
        let hosts = socket ? [host, "localhost"] : [host]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = Self.fields(of: line)
            guard fields.count == 5 else { continue }
            func matches(_ field: String, _ values: [String]) -> Bool { field == "*" || values.contains(field) }
            if matches(fields[0], hosts), matches(fields[1], [String(port)]), matches(fields[2], [database]), matches(fields[3], [user]) {
                return (fields[4], [])
            }
        }
        return (nil, [])
    }

    /// The fields of a password file's line: split at each `:` not escaped by `\`.
    static func fields(of line: Substring) -> [String] {
        var fields: [String] = [], current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":", fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}
