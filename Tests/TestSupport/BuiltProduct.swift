public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Executables built by this package, found next to the running test binary.
public enum BuiltProduct {
    /// The path of the executable product `name` (`archive`, `archive-tui`).
    public static func url(named name: String) -> URL {
        let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // The test binary is .build/<triple>/debug/<Package>PackageTests.xctest (a file on Linux,
        // a bundle elsewhere): walk up until the product is beside us.
        while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent(name).path),
            directory.path != "/"
        {
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent(name)
    }

    /// Runs a program to completion and returns its exit status and stdout.
    ///
    /// Spawned with `posix_spawn` and reaped with `waitpid`, not with `Process`:
    /// Foundation's `Process` on Linux waits on a descriptor the child inherits,
    /// so a program that leaves a daemon behind (tmux's server) would never be
    /// seen to exit.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("built-product-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { variables.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, variables)
        guard spawned == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: executable])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let data = FileManager.default.contents(atPath: outputPath) ?? Data()
        return (exitStatus, String(decoding: data, as: UTF8.self))
    }
}
