import Foundation
import SQLite
import TestSupport
import Testing

/// `archive settings`, `search --last` and `check`'s install date, on the real binary.
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct CLISettingsTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    @Test func listGetSetResetWithTheirJSONShapes() throws {
        #expect(try cli.run(["settings", "list"]).status == 1, "list never creates a database")
        #expect(!FileManager.default.fileExists(atPath: cli.database))
        #expect(try cli.run(["add", "1"]).status == 0)

        let list = try #require(try cli.run(["settings", "list", "--json"]).json() as? [[String: Any]])
        #expect(list.compactMap { $0["key"] as? String } == ["onboardingStatus", "installDate", "lastSearchKeyword", "lastSearchCategory", "lastView", "syncServer", "syncCAFile", "lastSync", "deviceID"])
        #expect(list[8]["readOnly"] as? Bool == true && (list[8]["value"] as? String)?.count == 32, "the device ID: \(list[8])")
        #expect(list[7]["readOnly"] as? Bool == true && list[7]["isSet"] as? Bool == false, "never synced: \(list[7])")
        #expect(Set(list[0].keys) == ["key", "type", "value", "default", "isSet", "readOnly", "summary"])
        #expect(list[1]["readOnly"] as? Bool == true && list[1]["isSet"] as? Bool == true)
        let installed = try #require(list[1]["value"] as? String)
        #expect(installed.hasSuffix("Z") && installed.count == 24)

        let set = try cli.run(["settings", "set", "lastView", "favorites"])
        #expect(set.status == 0 && set.stdout == "lastView = favorites\n")
        #expect(try cli.run(["settings", "get", "lastView"]).stdout == "favorites\n")
        let got = try #require(try cli.run(["settings", "get", "lastView", "--json"]).json() as? [String: Any])
        #expect(got["value"] as? String == "favorites" && got["default"] as? String == "archive" && got["isSet"] as? Bool == true)
        #expect(try cli.run(["settings", "reset", "lastView"]).stdout == "lastView reset to its default: archive\n")
        #expect(try cli.run(["settings", "set", "onboardingStatus", "false"]).status == 0)
        #expect(try cli.run(["onboarding"]).stdout == "onboarding: dismissed\n")

        let table = try cli.run(["settings"])
        #expect(table.stdout.contains("installDate         date    \(installed)  (read-only)"))
        #expect(table.stdout.contains("onboardingStatus    bool    false  (default true, set)"))
    }

    @Test func badKeysValuesAndShapesAreRefusedAndNothingIsWritten() throws {
        #expect(try cli.run(["add", "1"]).status == 0)
        let cases: [([String], String)] = [
            (["settings", "get", "theme"], "no setting is named 'theme'; the settings are: onboardingStatus"),
            (["settings", "set", "onboardingStatus", "yes"], "expected a bool: true or false"),
            (["settings", "set", "lastView", "Favorites"], "expected one of archive, favorites"),
            (["settings", "set", "installDate", "2020-01-01T00:00:00Z"], "installDate cannot be changed: it is written once"),
            (["settings", "set", "lastSearchKeyword", "a\u{1B}[2Jb"], "expected a string"),
            (["settings", "set", "lastView"], "settings set needs a VALUE: lastView takes one of archive, favorites"),
            (["settings", "get"], "settings get needs a KEY"),
            (["settings", "get", "lastView", "extra"], "settings get takes only a KEY"),
            (["settings", "list", "lastView"], "settings list takes no key"),
            (["search", "--last", "チーズ"], "--last repeats the last search"),
            (["settings", "set", "lastSearchKeyword", String(repeating: "a", count: 100_000)], "…' (100000 characters) is not a valid value"),
        ]
        for (arguments, message) in cases {
            let result = try cli.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("\u{1B}"), "\(arguments) echoes an escape")
            #expect(result.stderr.utf8.count < 2_000, "\(arguments) echoes a long value whole")
        }
        let after = try #require(try cli.run(["settings", "list", "--json"]).json() as? [[String: Any]])
        #expect(after.filter { !["installDate", "deviceID"].contains($0["key"] as? String) }.allSatisfy { $0["isSet"] as? Bool == false })
    }

    @Test func searchLastRepeatsTheLastSearchAndCheckShowsTheInstallDate() throws {
        let first = try cli.run(["search", "チーズ", "--category", "洋食", "--json"])
        #expect(first.status == 0)
        // The search is remembered only when it changes: repeating it leaves the file
        // byte for byte as it was (no write, so no WAL to sync and checkpoint at exit).
        let remembered = FileSnapshot(path: cli.database)
        let again = try cli.run(["search", "--last", "--json"])
        #expect(again.status == 0)
        #expect(again.stdout == first.stdout)
        #expect(remembered.isUnchanged, "a repeated search wrote to the database")
        #expect(!FileManager.default.fileExists(atPath: cli.database + "-wal"))
        let shape = try #require(try again.json() as? [String: Any])
        #expect(shape["keyword"] as? String == "チーズ" && shape["category"] as? String == "洋食")
        #expect(try cli.run(["settings", "get", "lastSearchCategory"]).stdout == "洋食\n")
        #expect(try cli.run(["search", "チーズ", "--json"]).status == 0)
        #expect(!remembered.isUnchanged, "a new search is remembered")
        #expect(try cli.run(["settings", "get", "lastSearchCategory"]).stdout == "\n")

        let check = try cli.run(["check"])
        #expect(check.status == 0)
        #expect(check.stdout.contains("installed: 20"))
        let report = try #require(try cli.run(["check", "--json"]).json() as? [String: Any])
        #expect((report["installDate"] as? String)?.hasSuffix("Z") == true)
    }

    /// A read-only setting's entry of the wrong type (written by another program) made
    /// `settings list`, `search --last` and others fail with "remove the entry", while
    /// `settings reset installDate` was refused and `check` said ok. Now `check` names it
    /// with the way out, and `settings reset` removes a damaged entry (only a damaged one).
    @Test func aDamagedReadOnlySettingIsReportedAndCanBeReset() throws {
        #expect(try cli.run(["add", "1"]).status == 0)
        let healthy = try cli.run(["settings", "reset", "installDate"])
        #expect(healthy.status == 1, "\(healthy.stderr)")
        #expect(healthy.stderr.contains("installDate cannot be changed"), "\(healthy.stderr)")
        do {
            let database = try Database(path: cli.database)
            try database.execute("UPDATE key_value_store SET type = 'string', value = 'yesterday' WHERE key = 'installDate'")
        }
        #expect(try cli.run(["settings", "list"]).status == 1)
        let check = try cli.run(["check"])
        #expect(check.status == 1, "\(check.stdout)")
        #expect(check.stdout.contains("setting installDate holds a value of type string"), "\(check.stdout)")
        #expect(check.stdout.contains("archive settings reset installDate"), "\(check.stdout)")
        let reset = try cli.run(["settings", "reset", "installDate"])
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(try cli.run(["settings", "list"]).status == 0)
        #expect(try cli.run(["check"]).status == 0)
    }
}
