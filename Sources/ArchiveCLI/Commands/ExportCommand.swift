import ArchiveAPI
import ArchiveCore
import ArchiveStorage
import Redux
import ArgumentParser
import Foundation

/// `archive export [--output FILE]`.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every favorite as JSON (the import format), newest first.",
        discussion: "Without --output the JSON goes to stdout. A file is written whole or not at all.")

    @OptionGroup var global: GlobalOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of stdout.", valueName: "file"))
    var output: String?

    func run() async throws {
        let session = try global.openSession()
        let favorites = session.database.favorites
        let total = try favorites.count()
        var bar = ProgressBar()
        let progress: (Int) -> Void = { count in
            bar.update(fraction: total == 0 ? 1 : Double(count) / Double(total), label: "exported \(count) of \(total)")
        }
        guard let output else {
            let count = try FavoritesExporter.export(favorites, to: .standardOutput, progress: progress)
            bar.finish()
            Terminal.message("exported \(count) favorites")
            return
        }
        // Write next to the target, then rename: a failed export never leaves half a file.
        let temporary = output + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
            let handle = FileHandle(forWritingAtPath: temporary)
        else {
            throw CLIError("cannot write \(output): the directory does not exist or is not writable")
        }
        do {
            let count = try FavoritesExporter.export(favorites, to: handle, progress: progress)
            try handle.synchronize()
            try handle.close()
            if rename(temporary, output) != 0 {
                throw CLIError("cannot write \(output): \(String(cString: strerror(errno)))")
            }
            bar.finish()
            Terminal.message("exported \(count) favorites to \(output)")
        } catch {
            bar.finish()
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporary)
            throw error is CLIError ? error : CLIError("cannot write \(output): \(error.localizedDescription); no file was written")
        }
    }
}
