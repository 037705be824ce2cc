import Foundation
import PackagePlugin

/// Compiles `docs/openapi.yaml`, the sync API's contract, into `ArchiveServer` as a generated
/// `OpenAPIDocumentText.swift` (`let openAPIDocumentText: String`): the server serves the
/// document it was built with at `/v1/openapi.yaml`, and a binary copied alone still has it.
@main
struct EmbedOpenAPIDocument: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let document = context.package.directoryURL.appending(path: "docs/openapi.yaml")
        let output = context.pluginWorkDirectoryURL.appending(path: "OpenAPIDocumentText.swift")
        return [
            .buildCommand(
                displayName: "Embedding docs/openapi.yaml",
                executable: try context.tool(named: "MigrationsEmbedder").url,
                arguments: ["--text", "openAPIDocumentText", output.path, document.path],
                inputFiles: [document],
                outputFiles: [output]
            )
        ]
    }
}
