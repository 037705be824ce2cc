import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Redux
import ArgumentParser
import Foundation

/// `archive import FILE`.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store every favorite of a JSON file (the export format), all or nothing.",
        discussion: """
            Every record is validated first; the first bad one is reported with its index and \
            field, and nothing is stored. Records whose ID is already stored update its fields.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The JSON file, as written by `archive export`.")
    var file: String

    struct Output: Encodable {
        let imported: Int
    }

    func run() async throws {
        let session = try global.openSession()
        var bar = ProgressBar()
        let count = try FavoritesImporter(path: file).run(into: session.database.favorites) { progress in
            let fraction = progress.totalBytes == 0 ? 1 : Double(progress.bytesRead) / Double(progress.totalBytes)
            bar.update(fraction: fraction, label: "\(progress.phase.rawValue) \(progress.records) records")
        }
        bar.finish()
        if global.json {
            try JSONOutput.print(Output(imported: count))
        } else {
            Terminal.message("imported \(count) favorites")
        }
    }
}
