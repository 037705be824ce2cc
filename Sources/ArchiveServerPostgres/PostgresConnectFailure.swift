import ArchiveNetwork
import PostgresNIO

/// Why the first connection to PostgreSQL failed, in words a person can act on: what went
/// wrong (never PostgresNIO's case name, `sslUnsupported`), and what to change. Only a
/// PostgreSQL that is starting, or out of connections, gets "try again": every other
/// failure at start is a configuration to fix, which a retry does not.
struct PostgresConnectFailure: Sendable, Equatable {
    /// What went wrong.
    let reason: String
    /// What to do about it.
    let advice: String

    /// The failure `error` of a first connection to `configuration`'s server.
    init(_ error: any Error, connecting configuration: PostgresConnection.Configuration) {
        let user = configuration.username, database = configuration.database ?? user
        let place = configuration.unixSocketPath.map { "the socket \($0)" }
            ?? "\(configuration.host ?? "the host"):\(configuration.port.map(String.init) ?? "5432")"
        guard let error = error as? PSQLError else {
            self.init(network: NetworkFailure.phrase(for: error) ?? "\(error)", place: place)
            return
        }
        switch error.code {
        case .sslUnsupported:
            self.init(
                reason: "PostgreSQL at \(place) does not offer TLS, and the URL requires it (sslmode=require)",
                advice: "turn TLS on in postgresql.conf (ssl = on, with ssl_cert_file and ssl_key_file), or give sslmode=prefer or sslmode=disable on a network you trust")
        case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            self.init(
                reason: "the TLS handshake with \(place) could not begin",
                advice: "check that the URL's port is PostgreSQL's, and its TLS settings; sslmode=disable on a network you trust does without")
        case .authMechanismRequiresPassword:
            self.init(
                reason: "PostgreSQL asks for user \(user)'s password, and none was given",
                advice: "give it in PGPASSWORD, in a password file (PGPASSFILE or ~/.pgpass, mode 600), or in the URL of ARCHIVE_SERVER_POSTGRES (docs/OPERATIONS.md)")
        case .unsupportedAuthMechanism:
            self.init(
                reason: "PostgreSQL asks user \(user) for an authentication method this service does not speak",
                advice: "give the role scram-sha-256, md5 or password in pg_hba.conf (or trust, or peer over the Unix socket)")
        case .saslError:
            self.init(
                reason: "the password exchange (SCRAM) with PostgreSQL for user \(user) failed",
                advice: "check the password (PGPASSWORD, ~/.pgpass or the URL) and that the role has one (ALTER ROLE \(user) PASSWORD …)")
        case .messageDecodingFailure, .unexpectedBackendMessage:
            self.init(
                reason: "what answers at \(place) does not speak PostgreSQL's protocol",
                advice: "check the URL's host and port")
        case .server:
            self.init(server: error, user: user, database: database, place: place)
        case .serverClosedConnection, .uncleanShutdown:
            self.init(
                reason: "\(place) closed the connection before PostgreSQL's start-up was done",
                advice: "check that the URL's port is PostgreSQL's, and PostgreSQL's log (a pooler in front may refuse a start-up parameter: see its log)")
        default:
            if let underlying = error.underlying, let phrase = NetworkFailure.phrase(for: underlying) {
                self.init(network: phrase, place: place)
            } else {
                self.init(reason: "\(error.code)", advice: "check the URL and PostgreSQL's log")
            }
        }
    }

    private init(reason: String, advice: String) {
        self.reason = reason
        self.advice = advice
    }

    /// A connection that never reached PostgreSQL: `phrase` says why (``NetworkFailure``).
    private init(network phrase: String, place: String) {
        let advice = if phrase.contains("could not be resolved") {
            "check the URL's host name"
        } else if phrase.contains("reset") || phrase.contains("closed") {
            "check that the URL's port is PostgreSQL's, and PostgreSQL's log (a pooler in front may refuse a start-up parameter: see its log)"
        } else if phrase.contains("refused") || phrase.contains("no such file") {
            "check that PostgreSQL runs and listens there (listen_addresses, port, unix_socket_directories) and that the URL's host and port are its"
        } else {
            "check that the host can be reached from here (network, firewall) and that the URL's port is PostgreSQL's (another service there may answer nothing)"
        }
        self.init(reason: "\(place): \(phrase)", advice: advice)
    }

    /// PostgreSQL's own refusal, by its SQLSTATE.
    private init(server error: PSQLError, user: String, database: String, place: String) {
        let message = error.serverInfo?[.message] ?? "an error"
        let state = error.serverInfo?[.sqlState] ?? ""
        let reason = "PostgreSQL said: \(message)" + (state.isEmpty ? "" : " (SQLSTATE \(state))")
        let advice = switch state {
        case "28P01":
            "check the user and its password (PGPASSWORD, ~/.pgpass or the URL)"
        case "28000" where message.contains("does not exist"):
            "create the role: runuser -u postgres -- createuser --pwprompt \(user) (docs/OPERATIONS.md, \"PostgreSQL from nothing\")"
        case "28000":
            "pg_hba.conf has no line that lets user \(user) reach database \(database) from here: add one (host \(database) \(user) ADDRESS scram-sha-256) and reload PostgreSQL"
        case "3D000":
            "create it, owned by the service's role: runuser -u postgres -- createdb -O \(user) \(database) (docs/OPERATIONS.md, \"PostgreSQL from nothing\")"
        case "42501":
            "grant user \(user) CONNECT on database \(database), or use the role that owns it"
        case "53300":
            "PostgreSQL has no connection left: try again shortly, or raise max_connections (or lower the service's --postgres-connections)"
        case "57P03":
            "PostgreSQL is starting up or recovering: try again shortly"
        default:
            "check the URL and PostgreSQL's log"
        }
        self.init(reason: reason, advice: advice)
    }
}
