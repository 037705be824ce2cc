import Foundation
import PackagePlugin

/// Compiles a target's migrations into it, as a generated `EmbeddedMigrations.swift`:
/// the top-level `Migrations/*.sql` for the engine (`ArchiveStorage`), `Migrations/Server/*.sql`
/// for the sync service's own database (`ArchiveServerSQLite`), `Migrations/Postgres/*.sql` for
/// the service on PostgreSQL (`ArchiveServerPostgres`).
///
/// The schema so ships inside the binary: a program copied alone to another
/// directory still creates and migrates a new database.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let folders = ["ArchiveServerSQLite": "Migrations/Server", "ArchiveServerPostgres": "Migrations/Postgres"]
        let folder = folders[target.name] ?? "Migrations"
        let directory = context.package.directoryURL.appending(path: folder)
        let files = try FileManager.default
            .contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) migrations from \(folder)/",
                executable: try context.tool(named: "MigrationsEmbedder").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}
