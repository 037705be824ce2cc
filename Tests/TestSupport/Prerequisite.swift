import Foundation

/// A program some tests run that is not part of the project: found where Debian
/// installs it, or the test fails saying which package brings it (README lists
/// them all; `.ci/run` installs them). A missing prerequisite never skips a test.
public enum Prerequisite {
    /// What is missing and how to install it.
    public struct Missing: Error, CustomStringConvertible {
        /// The message.
        public let description: String
    }

    /// The path of the program `name` (in /usr/bin, /usr/local/bin or /bin), or
    /// ``Missing`` naming `debianPackage`.
    public static func path(of name: String, debianPackage: String) throws -> String {
        for directory in ["/usr/bin", "/usr/local/bin", "/bin"] {
            let path = directory + "/" + name
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw Missing(description: "this test needs \(name), which is not installed: apt-get install -y \(debianPackage) (README, \"Tests\")")
    }
}
