import Foundation
import TestSupport
import Testing

/// `scripts/install.sh`, the one install command, without the release build it would
/// pay for: `--dry-run` prints what it would run, and `--binary` runs the checks it
/// makes on what it built, here on binaries that keep and break its promises.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct InstallScriptTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = root.appendingPathComponent("scripts/install.sh").path

    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func install(_ arguments: [String], prefix: String? = nil) throws -> ChildProcess.Result {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.url.path
        environment["PREFIX"] = prefix
        return try ChildProcess.run("/bin/bash", [Self.script] + arguments, environment: environment)
    }

    @Test func aDryRunPrintsTheBuildAndWhereItInstalls() throws {
        let defaultPrefix = try install(["--dry-run"])
        #expect(defaultPrefix.status == 0, "\(defaultPrefix.stderr)")
        #expect(defaultPrefix.stdout.contains("-t '\(directory.url.path)/.local/bin'"), "\(defaultPrefix.stdout)")
        let prefixed = try install(["--dry-run"], prefix: directory.path("usr"))
        #expect(prefixed.stdout.contains("-t '\(directory.path("usr"))/bin'"), "\(prefixed.stdout)")
        let builds = prefixed.stdout.split(separator: "\n").filter { $0.hasPrefix("swift build ") }
        #expect(builds.count == 3, "one build per product: \(prefixed.stdout)")
        for build in builds {
            #expect(build.contains("-c release --static-swift-stdlib --disable-local-rpath -Xlinker --no-export-dynamic"))
        }
        #expect(builds.first?.hasSuffix("--product archive ") == true)
        #expect(builds.last?.hasSuffix("--product archive-server ") == true)
        #expect(prefixed.stdout.contains("/release/archive-server'"), "\(prefixed.stdout)")
    }

    /// `--service` installs the unit with ExecStart on the installed binary; a prefix the
    /// service cannot use (a home directory, hidden from it; a path ExecStart would split or
    /// sed would mangle) is refused before anything is built.
    @Test func theServiceUnitGoesBesideTheBinariesOrIsRefused() throws {
        let elsewhere = try TemporaryDirectory()  // outside HOME (the test's directory)
        let prefix = elsewhere.path("usr")
        let service = try install(["--dry-run", "--service"], prefix: prefix)
        #expect(service.status == 0, "\(service.stderr)")
        #expect(service.stdout.contains("s\\|/usr/local/bin/archive-server\\|\(prefix)/bin/archive-server\\|g"), "\(service.stdout)")
        #expect(service.stdout.contains("> '/etc/systemd/system/archive-server.service'"), "\(service.stdout)")
        for refused in [directory.path(".local"), directory.path("a b"), directory.path("a|b"), "relative"] {
            let home = refused.hasSuffix(".local")
            var environment = ProcessInfo.processInfo.environment
            environment["HOME"] = directory.url.path
            environment["PREFIX"] = home ? nil : refused
            let result = try ChildProcess.run("/bin/bash", [Self.script, "--dry-run", "--service"], environment: environment)
            #expect(result.status == 64 && result.stdout.isEmpty, "\(refused): \(result.stdout)\(result.stderr)")
        }
    }

    /// The debug build breaks two promises: SwiftPM's `$ORIGIN` runpath, and (where
    /// `libstdc++.a` exists, so the install would link it in) a loaded libstdc++.so.
    @Test func theChecksRefuseABinaryThatBreaksThePromises() throws {
        let result = try install(["--dry-run", "--binary", CLI.executable.path])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("has a runpath"), "\(result.stderr)")
        if result.stdout.contains("libstdc++.a") {
            #expect(result.stderr.contains("loads libstdc++.so"), "\(result.stderr)")
        }
        #expect(!result.stdout.contains("checks passed"))
    }

    /// A binary with neither (a C program of the system's) passes.
    @Test func theChecksPassABinaryThatKeepsThem() throws {
        let result = try install(["--dry-run", "--binary", "/bin/true"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("checks passed: /bin/true"))
    }

    /// What `readelf -S` lists of `path`'s sections.
    private func sections(_ path: String) throws -> String {
        try ChildProcess.run("/usr/bin/readelf", ["-S", "-W", path]).stdout
    }

    /// The install strips each binary (no symbol table, no debug info) and says its size;
    /// with `--keep-symbols` they go beside it, named by the binary's `.gnu_debuglink`.
    /// On the real `archive` of this build (a debug build: its debug info is most of it),
    /// which still runs stripped.
    @Test func theInstallStripsEachBinaryAndCanKeepItsSymbolsBeside() throws {
        let built = CLI.executable.path
        let dryRun = try install(["--dry-run"])
        #expect(dryRun.stdout.contains("objcopy --strip-all '") && dryRun.stdout.contains("/stripped/archive-server'"), "\(dryRun.stdout)")
        let plain = directory.path("plain")
        let stripped = try install(["--strip", built, plain])
        #expect(stripped.status == 0, "\(stripped.stderr)")
        let size = try #require(FileManager.default.attributesOfItem(atPath: plain + "/archive")[.size] as? Int)
        let original = try #require(FileManager.default.attributesOfItem(atPath: built)[.size] as? Int)
        #expect(size < original * 3 / 4, "\(size) of \(original) bytes")
        #expect(stripped.stdout == "archive \(String(format: "%.1f", Double(size) / 1_000_000)) MB\n", "\(stripped.stdout)")
        for section in [".symtab", ".debug_info", ".gnu_debuglink"] { #expect(try !sections(plain + "/archive").contains(section), "\(section)") }
        let runs = try ChildProcess.run(plain + "/archive", ["categories", "--database", directory.path("a.sqlite3")])
        #expect(runs.status == 0 && runs.stdout.contains("和食"), "\(runs.stderr)")
        let kept = directory.path("kept")
        #expect(try install(["--keep-symbols", "--strip", built, kept]).status == 0)
        #expect(try sections(kept + "/archive").contains(".gnu_debuglink") && !sections(kept + "/archive").contains(".debug_info"))
        #expect(try sections(kept + "/.debug/archive.debug").contains(".debug_info") && sections(kept + "/.debug/archive.debug").contains(".symtab"))
        let debuglink = try ChildProcess.run("/usr/bin/readelf", ["--string-dump=.gnu_debuglink", kept + "/archive"]).stdout
        #expect(debuglink.contains("archive.debug"), "\(debuglink)")
    }

    @Test(arguments: [["--bogus"], ["--binary"], ["--strip", "/nonexistent", "/tmp"], ["--strip", "/bin/true"], ["--binary", "/bin/true"], ["--dry-run", "--binary", "/nonexistent"]])
    func badArgumentsAreRefused(arguments: [String]) throws {
        let result = try install(arguments)
        #expect(result.status != 0)
        #expect(result.stderr.contains("error:"), "\(arguments): \(result.stderr)")
    }
}
