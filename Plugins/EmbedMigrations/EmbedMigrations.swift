import Foundation
import PackagePlugin

/// Compiles the top-level `Migrations/*.sql` files into the target that applies
/// this plugin, as a generated `EmbeddedMigrations.swift`.
///
/// The schema so ships inside the binary: a program copied alone to another
/// directory still creates and migrates a new database.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let directory = context.package.directoryURL.appending(path: "Migrations")
        let files = try FileManager.default
            .contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) migrations from Migrations/",
                executable: try context.tool(named: "MigrationsEmbedder").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}
