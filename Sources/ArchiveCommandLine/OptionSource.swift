#if canImport(Glibc)
import Glibc
#endif

/// The one rule by which every program of the project finds a setting: its flag, else its
/// environment variable (an empty one counts as unset), else its default. `archive` and
/// `archive-tui` (`ArchiveLocation`) and `archive-server` (its storage options) read their
/// settings through it, so a variable means the same in each.
public enum OptionSource {
    /// The values of the variables `names` in this process's environment (those set).
    public static func environment(_ names: [String]) -> [String: String] {
        var environment: [String: String] = [:]
        for name in names {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }

    /// The variable `name`'s value in `environment`, or `nil` when it is unset or empty.
    public static func variable(_ name: String, in environment: [String: String]) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `flag` when given, else the variable `name`'s value in `environment` (set and not
    /// empty), else `nil`: the caller's default applies.
    public static func value(flag: String?, variable name: String, in environment: [String: String]) -> String? {
        flag ?? variable(name, in: environment)
    }
}
