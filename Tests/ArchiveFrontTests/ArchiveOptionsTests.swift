import ArchiveFront
import ArgumentParser
import Testing

@Suite(.timeLimit(.minutes(5)))
struct ArchiveOptionsTests {
    @Test func aFlagBeatsTheEnvironmentWhichBeatsTheDefault() throws {
        let environment = ["ARCHIVE_DATABASE": "/env.sqlite3", "ARCHIVE_API_URL": "http://env", "ARCHIVE_API_TIMEOUT": "2.5", "HOME": "/home/u"]
        let fromFlags = try ArchiveLocation(databaseFlag: "/flag.sqlite3", apiURLFlag: "http://flag", apiTimeoutFlag: 7, environment: environment)
        #expect(fromFlags.databasePath == "/flag.sqlite3")
        #expect(fromFlags.apiURL == "http://flag")
        #expect(fromFlags.apiTimeout == .seconds(7))
        let fromEnvironment = try ArchiveLocation(databaseFlag: nil, apiURLFlag: nil, environment: environment)
        #expect(fromEnvironment.databasePath == "/env.sqlite3")
        #expect(fromEnvironment.apiTimeout == .milliseconds(2500))
        let defaults = try ArchiveLocation(databaseFlag: nil, apiURLFlag: nil, environment: ["HOME": "/home/u", "ARCHIVE_DATABASE": ""])
        #expect(defaults.databasePath == "/home/u/.local/share/favorite-archive/favorites.sqlite3")
        #expect(defaults.apiURL == nil)
        #expect(defaults.apiTimeout == .seconds(10))
    }

    /// A database's directory as POSIX `dirname` gives it, for the names users type
    /// (Foundation's `deletingLastPathComponent` trapped on `d/` and `é/`).
    @Test(arguments: [
        ("fav.sqlite3", "."), ("/fav.sqlite3", "/"), ("a/b/fav.sqlite3", "a/b"), ("a/b/", "a"), ("d/", "."),
        ("é/", "."), ("./x", "."), ("a//b", "a"), ("//x", "/"), ("/", "/"), ("../x", ".."),
    ])
    func theDatabaseDirectoryIsTheParentOfItsPath(path: String, directory: String) {
        #expect(ArchiveLocation.directory(containing: path) == directory, "\(path)")
    }

    @Test func theDefaultDatabaseIsUnderTheDataHome() throws {
        let location = ArchiveLocation.defaultDatabasePath(environment: ["HOME": "/home/u/"])
        #expect(location == "/home/u/.local/share/favorite-archive/favorites.sqlite3")
        #expect(ArchiveLocation.defaultDatabasePath(environment: ["XDG_DATA_HOME": "/data", "HOME": "/h"])
            == "/data/favorite-archive/favorites.sqlite3")
    }

    @Test func aRelativeXDGDataHomeIsIgnored() throws {
        let relative = try ArchiveLocation(databaseFlag: nil, apiURLFlag: nil, environment: ["HOME": "/home/u", "XDG_DATA_HOME": "data"])
        #expect(relative.databasePath == "/home/u/.local/share/favorite-archive/favorites.sqlite3")
        let absolute = try ArchiveLocation(databaseFlag: nil, apiURLFlag: nil, environment: ["HOME": "/home/u", "XDG_DATA_HOME": "/xdg"])
        #expect(absolute.databasePath == "/xdg/favorite-archive/favorites.sqlite3")
    }

    @Test(arguments: ["0", "-1", "abc", "nan", "inf", "86401", "1e300"])
    func aBadTimeoutIsRefused(text: String) {
        #expect(throws: ArchiveLocationError.self) {
            try ArchiveLocation(databaseFlag: nil, apiURLFlag: nil, environment: ["ARCHIVE_API_TIMEOUT": text])
        }
    }

    @Test func optionsAfterTheSubcommandWinOverThoseBefore() throws {
        let before = try ArchiveOptions.parse(["--database", "/before", "--timeout", "3"])
        let after = try ArchiveOptions.parse(["--database", "/after"])
        let merged = after.merged(over: before)
        #expect(merged.database == "/after")
        #expect(merged.timeout == 3)
        #expect(merged.apiURL == nil)
    }

    @Test func anEmptyDatabasePathIsAUsageError() {
        #expect(throws: (any Error).self) { try ArchiveOptions.parse(["--database", ""]) }
        #expect(throws: (any Error).self) { try ArchiveOptions.parse(["--timeout", "0"]) }
    }
}
