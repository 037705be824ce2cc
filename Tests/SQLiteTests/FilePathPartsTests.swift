import SQLite
import Testing

@Suite(.timeLimit(.minutes(5)))
struct FilePathPartsTests {
    @Test(arguments: [
        ("a/b", "a", "b"),
        ("b", ".", "b"),
        ("/b", "/", "b"),
        ("/", "/", "/"),
        ("//", "/", "/"),
        ("a/b/", "a", "b"),
        ("a//b//", "a", "b"),
        ("d/", ".", "d"),          // Foundation's deletingLastPathComponent traps here
        ("./", ".", "."),
        ("é/", ".", "é"),
        ("/tmp/x/y", "/tmp/x", "y"),
        ("", ".", ""),
    ])
    func splitsAsDirnameAndBasename(path: String, directory: String, name: String) {
        let parts = FilePathParts(path)
        #expect(parts.directory == directory, "\(path)")
        #expect(parts.name == name, "\(path)")
    }

    @Test func siblingsShareTheDirectoryWithoutDoublingTheRootSlash() {
        #expect(FilePathParts("/db").sibling(named: ".db.partial") == "/.db.partial")
        #expect(FilePathParts("a/db").sibling(named: "x/y") == "a/x/y")
        #expect(FilePathParts("db").sibling(named: ".db.partial") == "./.db.partial")
        #expect(FilePathParts.joining("/tmp", "f") == "/tmp/f")
        #expect(FilePathParts.joining("/", "f") == "/f")
    }
}
