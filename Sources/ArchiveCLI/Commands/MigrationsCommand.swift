import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Redux
import ArgumentParser

/// `archive migrations`.
struct MigrationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrations",
        abstract: "Show the schema migrations the database has applied and those pending.",
        discussion: "Reads only: any other command applies the pending migrations when it opens the database.")

    @OptionGroup var global: GlobalOptions

    struct Output: Encodable {
        struct Applied: Encodable {
            let version: Int
            let name: String
            let checksum: String
            let appliedAt: String
        }

        struct Pending: Encodable {
            let version: Int
            let name: String
        }

        let database: String
        let applied: [Applied]
        let pending: [Pending]
    }

    func run() async throws {
        let path = global.location.databasePath
        let status = try ArchiveDatabase.migrationStatus(path: path)
        if global.json {
            try JSONOutput.print(Output(
                database: path,
                applied: status.applied.map { .init(version: $0.version, name: $0.name, checksum: $0.checksum, appliedAt: $0.appliedAt) },
                pending: status.pending.map { .init(version: $0.version, name: $0.name) }))
            return
        }
        if !status.fileExists {
            Terminal.message("no database at \(path) yet: it is created, with every migration, on first use")
        }
        for migration in status.applied {
            print("applied  \(migration.version)  \(migration.name)  \(migration.appliedAt)  \(migration.checksum.prefix(12))")
        }
        for migration in status.pending {
            print("pending  \(migration.version)  \(migration.name)")
        }
    }
}
