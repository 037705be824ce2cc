import Foundation
import NIOSSL
public import PostgresNIO

/// Where `archive-server --postgres URL` finds its PostgreSQL, parsed from a libpq-style
/// URL: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`
/// over TCP, or `postgres://USER@/DATABASE?host=/SOCKET/DIRECTORY[&port=P]` over the Unix
/// socket in that directory (`.s.PGSQL.P`, P 5432 unless given), as `psql` takes them.
public struct PostgresLocation: Sendable, CustomStringConvertible {
    /// The pool's configuration.
    public let configuration: PostgresClient.Configuration
    /// The same place for one connection of its own (``PostgresSyncStorage``'s first
    /// connection, which reports why PostgreSQL cannot be reached at once, where the pool
    /// would retry for a minute).
    let connectionConfiguration: PostgresConnection.Configuration
    /// The URL with its password replaced by `***` (for logs and errors).
    public let description: String
    /// Whether the URL itself carries a password (on a command line, every local user
    /// reads it: ``PostgresPassword`` finds one elsewhere).
    public let urlHasPassword: Bool
    /// What a person should know of where the password came from (a password file
    /// ignored, and why), to be said once.
    public let notes: [String]

    /// Parses `url`; throws ``PostgresStorageError/invalidURL(_:)`` saying what is wrong. A
    /// URL without a password takes one from `environment` as libpq does
    /// (``PostgresPassword``: `PGPASSWORD`, `PGPASSFILE`, `~/.pgpass`).
    public init(url: String, environment: [String: String]? = nil) throws {
        let environment = environment ?? ProcessInfo.processInfo.environment
        let redacted = Self.redact(url)
        guard let components = URLComponents(string: url), let scheme = components.scheme,
              scheme == "postgres" || scheme == "postgresql"
        else { throw PostgresStorageError.invalidURL("\(redacted) is not a postgres:// URL (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE)") }
        guard let user = components.user?.removingPercentEncoding, !user.isEmpty else {
            throw PostgresStorageError.invalidURL("\(redacted) names no user (postgres://USER@HOST/DATABASE)")
        }
        var password = components.password?.removingPercentEncoding
        urlHasPassword = password != nil
        var notes: [String] = []
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard let database = path.removingPercentEncoding, !database.isEmpty, !database.contains("/") else {
            throw PostgresStorageError.invalidURL("\(redacted) names no database (postgres://USER@HOST/DATABASE)")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard ["host", "port", "sslmode"].contains(item.name), let value = item.value else {
                throw PostgresStorageError.invalidURL("\(redacted): unknown parameter \(item.name) (host, port and sslmode are understood)")
            }
            query[item.name] = value
        }
        let port: Int
        if let text = query["port"] ?? components.port.map(String.init) {
            guard let number = Int(text), (1...65_535).contains(number) else {
                throw PostgresStorageError.invalidURL("\(redacted): port \(text) is not between 1 and 65535")
            }
            port = number
        } else {
            port = 5432
        }
        if let directory = query["host"] ?? (components.host?.hasPrefix("/") == true ? components.host : nil) {
            guard directory.hasPrefix("/") else {
                throw PostgresStorageError.invalidURL("\(redacted): host=\(directory) must be the socket's directory, an absolute path")
            }
            if password == nil {
                (password, notes) = PostgresPassword.find(host: directory, port: port, database: database, user: user, socket: true, environment: environment)
            }
            configuration = PostgresClient.Configuration(
                unixSocketPath: directory + "/.s.PGSQL.\(port)", username: user, password: password, database: database)
            connectionConfiguration = PostgresConnection.Configuration(
                unixSocketPath: directory + "/.s.PGSQL.\(port)", username: user, password: password, database: database)
        } else {
            guard let host = components.host, !host.isEmpty else {
                throw PostgresStorageError.invalidURL("\(redacted) names no host (postgres://USER@HOST/DATABASE, or ?host=/socket/directory)")
            }
            if password == nil {
                (password, notes) = PostgresPassword.find(host: host, port: port, database: database, user: user, socket: false, environment: environment)
            }
            let tls: PostgresClient.Configuration.TLS
            let connectionTLS: PostgresConnection.Configuration.TLS
            switch query["sslmode"] ?? "prefer" {
            case "disable":
                (tls, connectionTLS) = (.disable, .disable)
            case "prefer":
                (tls, connectionTLS) = (.prefer(.makeClientConfiguration()), .prefer(try Self.sslContext()))
            case "require":
                (tls, connectionTLS) = (.require(.makeClientConfiguration()), .require(try Self.sslContext()))
            case let mode: throw PostgresStorageError.invalidURL("\(redacted): sslmode=\(mode) is not disable, prefer or require")
            }
            configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
            connectionConfiguration = PostgresConnection.Configuration(
                host: host, port: port, username: user, password: password, database: database, tls: connectionTLS)
        }
        description = redacted
        self.notes = notes
    }

    private static func sslContext() throws -> NIOSSLContext {
        do {
            return try NIOSSLContext(configuration: .makeClientConfiguration())
        } catch {
            throw PostgresStorageError.database(what: "setting up TLS", reason: "\(error)")
        }
    }

    /// `url` with the password between `:` and `@` of its authority replaced by `***`.
    static func redact(_ url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@"),
              let colon = rest[..<at].firstIndex(of: ":")
        else { return url }
        return String(url[..<rest.index(after: colon)]) + "***" + String(rest[at...])
    }
}
