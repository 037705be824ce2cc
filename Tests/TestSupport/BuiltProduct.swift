public import Foundation

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
}
