import Foundation
import TestSupport
import Testing

@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct CLICommandTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    @Test func searchShowsHeartsForStoredFavoritesAndItsJSONShape() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        #expect(try cli.run(["add", "33"]).status == 0)
        let text = try cli.run(["search", "チーズ", "--category", "洋食"])
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }
        #expect(lines == [
            "♥   17  洋食  チーズハンバーグ — 洋食屋 グリル銀河",
            "♡   21  洋食  マカロニグラタン — 喫茶 カナリヤ",
            "♥   33  洋食  チーズオムレツ — 喫茶 カナリヤ",
        ])
        #expect(text.stderr.contains("3 results for \"チーズ\" in 洋食, 2 stored"))
        #expect(!text.stdout.contains("\u{1B}["))  // not a terminal: no colors
        // The summary names only the conditions given.
        #expect(try cli.run(["search", "--category", "洋食"]).stderr.contains("12 results in 洋食, 2 stored"))
        #expect(try cli.run(["search", "チーズ"]).stderr.contains("8 results for \"チーズ\", 2 stored"))
        #expect(try cli.run(["search"]).stderr.contains("66 results, 2 stored"))

        let json = try #require(try cli.run(["search", "チーズ", "--category", "洋食", "--json"]).json() as? [String: Any])
        #expect(json["keyword"] as? String == "チーズ")
        #expect(json["category"] as? String == "洋食")
        #expect(json["count"] as? Int == 3)
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(results.map { $0["id"] as? Int } == [17, 21, 33])
        #expect(results.map { $0["isStored"] as? Bool } == [true, false, true])
        #expect(Set(results[0].keys) == ["id", "photoUrl", "category", "dishName", "shopName", "introduction", "isStored"])
    }

    @Test func categoriesListTheCatalogs() throws {
        let result = try cli.run(["categories"])
        #expect(result.stdout == "和食\n洋食\n中華\nイタリアン\nエスニック\nスイーツ\n")
        let json = try #require(try cli.run(["categories", "--json"]).json() as? [String: [String]])
        #expect(json["categories"]?.count == 6)
    }

    @Test func addAndRemoveGoThroughTheStoreAndReportClearly() throws {
        let added = try cli.run(["add", "21", "--json"])
        #expect(added.status == 0)
        let addedJSON = try #require(try added.json() as? [String: Any])
        #expect(addedJSON["id"] as? Int == 21 && addedJSON["isStored"] as? Bool == true && addedJSON["changed"] as? Bool == true)
        let removed = try #require(try cli.run(["remove", "21", "--json"]).json() as? [String: Any])
        #expect(removed["id"] as? Int == 21 && removed["isStored"] as? Bool == false && removed["changed"] as? Bool == true)
        let again = try cli.run(["remove", "21"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("21 is not a stored favorite"))
        let unknown = try cli.run(["add", "999"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no dish with ID 999"))
    }

    @Test func favoritesPageNewestFirstWithACursor() throws {
        for id in [1, 2, 3, 4, 5] {
            #expect(try cli.run(["add", String(id)]).status == 0)
        }
        let first = try #require(try cli.run(["favorites", "--limit", "2", "--json"]).json() as? [String: Any])
        #expect(first["total"] as? Int == 5)
        let firstIDs = (first["favorites"] as? [[String: Any]])?.map { $0["id"] as? Int }
        #expect(firstIDs == [5, 4])
        let cursor = try #require(first["nextCursor"] as? String)

        let second = try cli.run(["favorites", "--limit", "2", "--after", cursor])
        #expect(second.status == 0)
        let rows = second.stdout.split(separator: "\n")
        #expect(rows.count == 3)
        #expect(rows[0].hasPrefix("♥    3"))
        #expect(rows[1].hasPrefix("♥    2"))
        #expect(rows[2].hasPrefix("next: "))

        let last = try #require(try cli.run(["favorites", "--limit", "2", "--after", String(rows[2].dropFirst(6)), "--json"]).json() as? [String: Any])
        #expect((last["favorites"] as? [[String: Any]])?.map { $0["id"] as? Int } == [1])
        #expect(last["nextCursor"] is NSNull)
        let favorite = try #require((last["favorites"] as? [[String: Any]])?.first)
        #expect(Set(favorite.keys) == ["id", "photoUrl", "category", "dishName", "shopName", "introduction", "storedAt"])
    }

    @Test func onboardingStatusDismissAndReset() throws {
        #expect(try cli.run(["onboarding", "--json"]).json() as? [String: Bool] == ["showOnboarding": true])
        #expect(try cli.run(["onboarding", "dismiss", "--json"]).json() as? [String: Bool] == ["showOnboarding": false])
        #expect(try cli.run(["onboarding", "status"]).stdout == "onboarding: dismissed\n")
        #expect(try cli.run(["onboarding", "reset", "--json"]).json() as? [String: Bool] == ["showOnboarding": true])
        #expect(try cli.run(["onboarding", "--json"]).json() as? [String: Bool] == ["showOnboarding": true])
    }

    @Test func commandsThatOnlyReadNeverCreateADatabaseAndCheckIsOK() throws {
        for command in [["migrations"], ["check"], ["export"], ["migrations", "--json"], ["check", "--json"]] {
            let result = try cli.run(command)
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains("no database at \(cli.database)"), "\(command): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(command)")
            #expect(!FileManager.default.fileExists(atPath: cli.database), "\(command)")
        }
        // Not even its directory.
        let nested = cli.directory.path("not/there/favorites.sqlite3")
        #expect(try cli.run(["check", "--database", nested], useDatabase: false).status == 1)
        #expect(!FileManager.default.fileExists(atPath: cli.directory.path("not")))

        #expect(try cli.run(["onboarding"]).status == 0)  // a command that writes creates it
        let check = try cli.run(["check", "--json"])
        #expect(check.status == 0)
        let report = try #require(try check.json() as? [String: Any])
        #expect(report["ok"] as? Bool == true)
        #expect(report["favorites"] as? Int == 0)

        let after = try #require(try cli.run(["migrations", "--json"]).json() as? [String: Any])
        #expect((after["applied"] as? [[String: Any]])?.map { $0["name"] as? String } == ["create_archive_objects", "create_key_value_store", "create_favorites_search", "create_search_runs", "file_search_blocks_by_integer", "sync"])
        #expect((after["pending"] as? [Any])?.isEmpty == true)
    }

    @Test func theDatabaseLocationFlagBeatsTheEnvironmentWhichBeatsTheDefault() throws {
        let fromEnvironment = cli.directory.path("env.sqlite3")
        #expect(try cli.run(["add", "1"], useDatabase: false, environment: ["ARCHIVE_DATABASE": fromEnvironment]).status == 0)
        #expect(FileManager.default.fileExists(atPath: fromEnvironment))

        #expect(try cli.run(["add", "2"], environment: ["ARCHIVE_DATABASE": fromEnvironment]).status == 0)
        #expect(FileManager.default.fileExists(atPath: cli.database))

        #expect(try cli.run(["add", "3"], useDatabase: false).status == 0)
        #expect(FileManager.default.fileExists(atPath: cli.directory.path(".local/share/favorite-archive/favorites.sqlite3")))

        let xdg = cli.directory.path("xdg")
        #expect(try cli.run(["add", "4"], useDatabase: false, environment: ["XDG_DATA_HOME": xdg]).status == 0)
        #expect(FileManager.default.fileExists(atPath: xdg + "/favorite-archive/favorites.sqlite3"))
    }

    @Test func aBinaryCopiedAloneStillCreatesAndMigratesADatabase() throws {
        let lonely = cli.directory.url.appendingPathComponent("alone", isDirectory: true)
        try FileManager.default.createDirectory(at: lonely, withIntermediateDirectories: true)
        let copy = lonely.appendingPathComponent("archive")
        try TestFile.copyExecutable(from: CLI.executable, to: copy)
        #expect(try cli.run(["add", "17"], executable: copy).status == 0)
        let result = try cli.run(["check", "--json"], executable: copy)
        #expect(result.status == 0)
        #expect((try result.json() as? [String: Any])?["ok"] as? Bool == true)
        let migrations = try #require(try cli.run(["migrations", "--json"], executable: copy).json() as? [String: Any])
        #expect((migrations["applied"] as? [Any])?.count == 6)
    }
}
