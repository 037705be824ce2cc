import ArchiveCommandLine
import ArchiveServerStorage
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
        abstract: "Manage the service's users.",
        discussion: """
            add NAME: a new user; prints the token of its first device (--device LABEL, \
            default "first"; on stdout, once: only its hash is kept). More devices: \
            archive-server devices add NAME LABEL. \
            list: every user, whether a token of it works, its favorites and devices. \
            token NAME: every token of NAME stops working and its devices are forgotten; \
            prints one new token (a lost token: each device signs in again). \
            revoke NAME: every token of NAME stops working; its favorites stay. \
            remove NAME: NAME, its favorites, tokens and devices are deleted.
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

    @Option(help: ArgumentHelp("The label of the device the new token is for (add, token).", valueName: "label"))
    var device = DeviceAccount.firstLabel

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func validate() throws {
        if action == .list, name != nil { throw ValidationError("users list takes no name") }
        if action != .list, name == nil { throw ValidationError("users \(action.rawValue) needs a user's name") }
        if action != .add, action != .token, device != DeviceAccount.firstLabel {
            throw ValidationError("--device goes with users add and users token")
        }
        // A name or label no user can have is a usage error (64), found before any database opens.
        do {
            if let name { _ = try AccountName.user(name) }
            _ = try AccountName.device(device)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() async throws {
        var logger = Logger(label: "archive-server")
        logger.logLevel = .warning
        let storage = self.storage.merged(over: root.storage)
        let action = self.action, name = self.name ?? "", json = self.json, device = self.device
        do {
            try await storage.withUsers(logger: logger, creating: action != .list) { users in
                switch action {
                case .list:
                    let list = try await users.list()
                    if json {
                        print(try ServerJSON.text(["users": list]))
                    } else if list.isEmpty {
                        print("no users: archive-server users add NAME")
                    } else {
                        for user in list {
                            print("\(user.name)\t\(user.hasToken ? "token" : "revoked")\t\(user.favorites) favorites\t\(user.devices) devices")
                        }
                    }
                case .add, .token:
                    // Names and labels ignore case: said as stored.
                    let name = try AccountName.user(name)
                    let label = try AccountName.device(device)
                    let now = Int64(Date().timeIntervalSince1970 * 1000)
                    let token = action == .add
                        ? try await users.add(name, device: label, now: now) : try await users.issueToken(for: name, device: label, now: now)
                    try ShownSecret.show(
                        json ? try ServerJSON.text(["name": name, "device": label, "token": token.text]) : token.text,
                        lost: (action == .add ? "added \(name), but" : "every earlier token of \(name) stopped working, and")
                            + " the new token of its device \(label) could not be shown, and no one has it: archive-server users token \(name) makes another")
                    let what = action == .add ? "added \(name)" : "every earlier token of \(name) stopped working and its devices were forgotten"
                    StandardStream.error(
                        "\(what): the token above is for \(name)'s device \(label), shown this once (give it to archive sync --token-stdin or "
                            + "ARCHIVE_SYNC_TOKEN); it binds to the first device that syncs with it. Each other device: archive-server devices add \(name) LABEL\n")
                case .revoke:
                    try await users.revoke(name)
                    StandardStream.error("every token of \(name) stopped working and its devices were forgotten; its favorites stay (users token \(name) lets it back in)\n")
                case .remove:
                    try await users.remove(name)
                    StandardStream.error("removed \(name), its favorites, tokens and devices\n")
                }
            }
        } catch let error as ServerStorageError {
            throw ServerCLIError(error.description)
        } catch let error as PostgresStorageError {
            throw ServerCLIError(error.description)
        }
    }
}
