import ArchiveCommandLine
import ArchiveServerStorage
import ArchiveServer
import ArchiveServerPostgres
import ArgumentParser
import Logging

/// `archive-server renew-feeds`: every user gets a new feed, after a backup was put back.
struct RenewFeedsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "renew-feeds",
        abstract: "Give every user a new feed: run it after restoring a backup, the service stopped.",
        discussion: """
            A restored copy has forgotten what devices pushed and pulled after it was made, \
            and would give the positions of its feeds out again. With new feeds, each device \
            reads its user's feed again from its start and sends what the service lacks. \
            archive-server restore renews them itself (and keeps the revocations made since \
            the backup); a base backup of PostgreSQL put back in place needs this.
            """)

    @OptionGroup var storage: ServerStorageOptions
    @ParentCommand var root: ArchiveServerCommand

    func run() async throws {
        var logger = Logger(label: "archive-server")
        logger.logLevel = .warning
        let storage = self.storage.merged(over: root.storage)
        do {
            let count = try await storage.withUsers(logger: logger) { users in try await users.renewFeeds() }
            StandardStream.error("gave \(count) user(s) a new feed: each device reads its feed again at its next sync, and sends what the service lacks\n")
        } catch let error as ServerStorageError {
            throw ServerCLIError(error.description)
        } catch let error as PostgresStorageError {
            throw ServerCLIError(error.description)
        }
    }
}
