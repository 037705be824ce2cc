import ArchiveServerPostgres
import ArchiveServerStorage
import ArchiveSyncModel
import Foundation
import PostgresNIO
import Testing

/// `Benchmarks/load/push.sql` and `pull.sql`, the statements pgbench runs beside the
/// service as the limit of any service on that PostgreSQL, are the PostgreSQL backend's own:
/// each statement of a file is the backend's statement (``PostgresSyncStorage/authenticateStatement(hash:now:)``,
/// ``PostgresSyncStorage/pushStatement(_:count:from:through:seen:now:for:)``,
/// ``PostgresSyncStorage/pullStatement(for:device:after:limit:now:)``) with each bind
/// replaced by the pgbench expression the file's header lists for it ("binds of …"), equal
/// up to whitespace. A change to a statement that the file does not follow is red here
/// (before: a hand copy, "keep in step"). What pgbench gives each bind is the header's to
/// say (its differences from the server's values are said there); every clause, column and
/// bind's place is the backend's.
@Suite(.timeLimit(.minutes(5)))
struct LoadStatementTests {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Benchmarks/load")

    /// A file's statements (after its comments and `\set` lines) and, for each, its binds' expressions.
    static func parse(_ name: String) throws -> [(statement: String, binds: [Int: String])] {
        let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        var binds: [[Int: String]] = []
        var body: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("-- binds of ") {
                binds.append([:])
            } else if line.hasPrefix("--   $"), let equals = line.firstRange(of: " = "), let index = Int(line[line.index(line.startIndex, offsetBy: 6)..<equals.lowerBound]) {
                binds[binds.count - 1][index] = String(line[equals.upperBound...])
            } else if !line.hasPrefix("--"), !line.hasPrefix("\\set") {
                body.append(String(line))
            }
        }
        let statements = body.joined(separator: "\n").split(separator: ";").map(normalized).filter { !$0.isEmpty }
        return zip(statements, binds).map { ($0, $1) }
    }

    /// `text` with each run of whitespace made one space, none at either end.
    static func normalized(_ text: some StringProtocol) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// `query`'s SQL with each `$N` replaced by `binds[N]`; every bind must have one.
    static func substituted(_ query: PostgresQuery, _ binds: [Int: String]) throws -> String {
        #expect(binds.count == query.binds.count && Set(binds.keys) == Set(1...query.binds.count), "the header lists \(binds.count) binds, the statement has \(query.binds.count)")
        var sql = query.sql
        for index in binds.keys.sorted(by: >) {
            sql = sql.replacingOccurrences(of: "$\(index)", with: try #require(binds[index]))
        }
        return normalized(sql)
    }

    static let user = AuthenticatedUser.forStatements
    static let device = DeviceID(bytes: Array(repeating: 7, count: 16))!
    static let token = [UInt8](repeating: 1, count: 32)

    @Test func pushSQLIsTheBackendsTokenCheckAndPush() throws {
        let file = try Self.parse("push.sql")
        try #require(file.count == 2, "push.sql: the token check, then the push")
        let object = StoredArchiveObject(id: 1, photoUrl: "p", category: "c", dishName: "d", shopName: "s", introduction: "i", storedAtMilliseconds: 0)
        let changes = (1...5).map {
            FavoriteChange(id: $0, stamp: ChangeStamp(time: HybridTimestamp(rawValue: 1), device: Self.device), state: .stored(object))
        }
        let check = PostgresSyncStorage.authenticateStatement(hash: Self.token, now: 0)
        #expect(try Self.substituted(check, file[0].binds) == file[0].statement)
        let push = PostgresSyncStorage.pushStatement(
            PostgresMergeBatch(changes), count: changes.count, from: Self.device, through: 1, seen: 0, now: 0, for: Self.user)
        #expect(try Self.substituted(push, file[1].binds) == file[1].statement)
    }

    @Test func pullSQLIsTheBackendsTokenCheckAndPull() throws {
        let file = try Self.parse("pull.sql")
        try #require(file.count == 2, "pull.sql: the token check, then the pull")
        let check = PostgresSyncStorage.authenticateStatement(hash: Self.token, now: 0)
        #expect(try Self.substituted(check, file[0].binds) == file[0].statement)
        let pull = PostgresSyncStorage.pullStatement(for: Self.user, device: Self.device, after: 0, limit: 100, now: 0)
        #expect(try Self.substituted(pull, file[1].binds) == file[1].statement)
    }
}

extension AuthenticatedUser {
    /// A user whose values the statements bind (the files replace them all).
    static let forStatements = AuthenticatedUser(
        id: 1, name: "u", feed: FeedID(of: DeviceID(bytes: Array(repeating: 9, count: 16))!), token: 1, device: "d1")
}
