import ArchiveServer
import ArchiveServerPostgres
import ArgumentParser
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `archive-server users add|list|token|revoke|remove [NAME]`.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Manage the service's users and their tokens.",
        discussion: """
            add NAME: a new user; prints its token (on stdout, once: only its hash is kept). \
            list: every user, whether its token works, its favorites and devices. \
            token NAME: a new token for NAME (the old one stops working). \
            revoke NAME: NAME's token stops working; its favorites stay. \
            remove NAME: NAME, its favorites and devices are deleted.
            """)

    /// What to do.
    enum Action: String, ExpressibleByArgument, CaseIterable {
        case add, list, token, revoke, remove
    }

    @OptionGroup var storage: ServerStorageOptions
    @ParentCommand var root: ArchiveServerCommand

    @Argument(help: "add, list, token, revoke or remove.")
    var action: Action

    @Argument(help: "The user's name (1 to 64 letters, digits, '.', '_', '-').")
    var name: String?

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func validate() throws {
        if action == .list, name != nil { throw ValidationError("users list takes no name") }
        if action != .list, name == nil { throw ValidationError("users \(action.rawValue) needs a user's name") }
    }

    func run() async throws {
        var logger = Logger(label: "archive-server")
        logger.logLevel = .warning
        let storage = self.storage.merged(over: root.storage)
        let action = self.action, name = self.name ?? "", json = self.json
        do {
            try await storage.withUsers(logger: logger) { users in
                switch action {
                case .list:
                    let list = try await users.list()
                    if json {
                        print(try Self.json(["users": list]))
                    } else if list.isEmpty {
                        print("no users: archive-server users add NAME")
                    } else {
                        for user in list {
                            print("\(user.name)\t\(user.hasToken ? "token" : "revoked")\t\(user.favorites) favorites\t\(user.devices) devices")
                        }
                    }
                case .add, .token:
                    // Names ignore case: said as stored.
                    let name = (try? UserStore.canonicalName(name)) ?? name
                    let token = action == .add
                        ? try await users.add(name, now: Int64(Date().timeIntervalSince1970 * 1000)) : try await users.issueToken(for: name)
                    print(json ? try Self.json(["name": name, "token": token.text]) : token.text)
                    StandardStream.error("\(action == .add ? "added \(name)" : "new token for \(name)"): the token above is shown this once; give it to \(name)'s devices (archive sync --token, ARCHIVE_SYNC_TOKEN)\n")
                case .revoke:
                    try await users.revoke(name)
                    StandardStream.error("\(name)'s token no longer works; its favorites stay (users token \(name) lets it back in)\n")
                case .remove:
                    try await users.remove(name)
                    StandardStream.error("removed \(name), its favorites and devices\n")
                }
            }
        } catch let error as ServerStorageError {
            throw ServerCLIError(error.description)
        } catch let error as PostgresStorageError {
            throw ServerCLIError(error.description)
        }
    }

    private static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
