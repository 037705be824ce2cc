import Foundation
import TestSupport
import Testing

/// A command whose standard output cannot take what it writes fails, saying so,
/// instead of exiting 0 over an incomplete output: a full disk behind a
/// redirection (`/dev/full`), a closed descriptor. The real binary, through `sh`.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct CLIStandardOutputTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
        #expect(try cli.run(["add", "17"]).status == 0)
        #expect(try cli.run(["add", "21"]).status == 0)
    }

    /// Runs `archive ARGUMENTS --database DB` with standard output redirected as `redirection`
    /// says, after the shell commands in `prefix`.
    func run(_ arguments: [String], redirection: String, prefix: String = "") throws -> CLI.Result {
        let command = prefix + #"exec "$0" "$@" "# + redirection
        return try ChildProcess.run(
            "/bin/sh", ["-c", command, CLI.executable.path] + arguments + ["--database", cli.database],
            environment: cli.environment(), input: .null, timeout: .seconds(60))
    }

    @Test(arguments: [["search", "チーズ"], ["--json", "search", "チーズ"], ["favorites"], ["--json", "favorites"], ["--help"]])
    func aFullDiskBehindStandardOutputFailsTheCommand(arguments: [String]) throws {
        let result = try run(arguments, redirection: "> /dev/full")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cannot write to standard output: No space left on device"), "\(result.stderr)")
    }

    /// Standard output closed: SQLite keeps the database off descriptors 0-2, so
    /// nothing printed can land in it; the command fails and the database is whole.
    @Test(arguments: [["search", "チーズ"], ["--json", "search", "チーズ"], ["--json", "add", "33"]])
    func aClosedStandardOutputFailsTheCommandAndLeavesTheDatabaseWhole(arguments: [String]) throws {
        let result = try run(arguments, redirection: ">&-")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cannot write to standard output"), "\(result.stderr)")
        let check = try cli.run(["check"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let ids = try cli.run(["--json", "favorites"])
        #expect(ids.stdout.contains(#""id":17,"#) && ids.stdout.contains(#""id":21,"#), "\(ids.stdout)")
    }

    // MARK: - The file-size limit (issue 44, case 4)

    /// The limit is 64 KiB (`ulimit -f 64`): room for the database's own files (the 32 KiB
    /// `-shm`, a few WAL pages), while standard output appends to a file already 6 bytes
    /// short of it, so the command's first lines cross it.
    static let limit = "ulimit -f 64; "

    /// A file of 65,530 bytes, to append to.
    func nearlyFullFile(_ name: String) throws -> String {
        let path = cli.directory.path(name)
        #expect(TestFile.create(atPath: path, contents: Data(repeating: UInt8(ascii: "."), count: 65_530)))
        return path
    }

    /// Past `ulimit -f` a write raised SIGXFSZ, which killed the command (exit 153) with a
    /// truncated file and no message. Now it fails like a full disk.
    @Test(arguments: [["search", "チーズ"], ["--json", "search", "チーズ"], ["favorites", "--search", "チーズ"], ["--json", "favorites"], ["--help"]])
    func theFileSizeLimitBehindStandardOutputFailsTheCommand(arguments: [String]) throws {
        let output = try nearlyFullFile("limited.out")
        let result = try run(arguments, redirection: ">> '\(output)'", prefix: Self.limit)
        #expect(result.status == 1, "exit \(result.status): \(result.stderr)")
        #expect(result.stderr.contains("cannot write to standard output: File too large"), "\(result.stderr)")
    }

    /// Imports `count` favorites (IDs from 101) into the test's database.
    func importFavorites(_ count: Int) throws {
        let records = (1...count).map { id in
            #"{"id":\#(id + 100),"photoUrl":"https://p/\#(id).jpg","category":"和食","dishName":"料理 \#(id)","shopName":"店","introduction":"紹介","storedAt":"2026-01-01T00:00:00.000Z"}"#
        }
        let importFile = cli.directory.path("many-\(count).json")
        try ("[" + records.joined(separator: ",") + "]").write(toFile: importFile, atomically: false, encoding: .utf8)
        #expect(try cli.run(["import", importFile]).status == 0)
    }

    /// The export past the limit: to a file, nothing is left and the message says so; to
    /// standard output, the message says that what was written is incomplete.
    @Test func anExportPastTheFileSizeLimitSaysWhatWasLeft() throws {
        try importFavorites(1_000)
        let file = cli.directory.path("export.json")
        let toFile = try run(["export", "--output", file], redirection: "", prefix: Self.limit)
        #expect(toFile.status == 1, "exit \(toFile.status): \(toFile.stderr)")
        #expect(toFile.stderr.contains("File too large; no file was written"), "\(toFile.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file))
        let output = try nearlyFullFile("stdout.json")
        let toStandardOutput = try run(["export"], redirection: ">> '\(output)'", prefix: Self.limit)
        #expect(toStandardOutput.status == 1, "exit \(toStandardOutput.status): \(toStandardOutput.stderr)")
        #expect(toStandardOutput.stderr.contains("File too large; what it received is incomplete"), "\(toStandardOutput.stderr)")
    }

    /// A text larger than stdio's buffer is written past it: its failure left no buffer for
    /// the closing flush to fail on, only the stream's error flag, and the command exited 0
    /// over an empty or truncated output (`--limit 10` failed correctly). 5,000 favorites,
    /// about 1.5 MB of JSON: to a full disk, and past `ulimit -f 64`.
    @Test func aLargeOutputThatFailsFailsTheCommand() throws {
        try importFavorites(5_000)
        for arguments in [["--json", "favorites", "--limit", "5000"], ["favorites", "--limit", "5000"], ["--json", "search", "料理"]] {
            let full = try run(arguments, redirection: "> /dev/full")
            #expect(full.status == 1, "\(arguments): exit \(full.status): \(full.stderr)")
            #expect(full.stderr.contains("cannot write to standard output: No space left on device"), "\(arguments): \(full.stderr)")
            let limited = try run(arguments, redirection: ">> '\(try nearlyFullFile("large.out"))'", prefix: Self.limit)
            #expect(limited.status == 1, "\(arguments): exit \(limited.status): \(limited.stderr)")
            #expect(limited.stderr.contains("cannot write to standard output: File too large"), "\(arguments): \(limited.stderr)")
        }
    }
}
