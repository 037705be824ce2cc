import Foundation
import TestSupport
import Testing

@Suite(.blockingWork, .serialized, .timeLimit(.minutes(5)))
struct CLITransferTests {
    let cli: CLI

    init() throws {
        cli = try CLI()
    }

    func write(_ text: String, to name: String) throws -> String {
        let path = cli.directory.path(name)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    @Test func oneHundredThousandFavoritesRoundTripThroughExportAndImport() throws {
        var text = "[\n"
        for id in 1...100_000 {
            if id > 1 { text += ",\n" }
            let milliseconds = 1_700_000_000_000 + id * 1_000
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let iso = date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: true).timeSeparator(.colon))
            text += #"{"id":\#(id),"photoUrl":"https://p/\#(id).jpg","category":"洋食","dishName":"料理 \#(id) \"特製\"","shopName":"店\\\#(id)","introduction":"紹介\n\#(id)","storedAt":"\#(iso)Z"}"#
        }
        let source = try write(text + "\n]\n", to: "source.json")
        let imported = try cli.run(["import", source, "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try imported.json() as? [String: Int] == ["records": 100_000, "imported": 100_000])

        let exported = cli.directory.path("export.json")
        let export = try cli.run(["export", "--output", exported])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stderr.contains("exported 100000 favorites"))

        // The export re-imports into a fresh database to the same contents.
        let second = try CLI()
        #expect(try second.run(["import", exported]).status == 0)
        let reexported = second.directory.path("again.json")
        #expect(try second.run(["export", "-o", reexported]).status == 0)
        #expect(FileManager.default.contents(atPath: exported) == FileManager.default.contents(atPath: reexported))

        let records = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: exported))) as? [[String: Any]])
        #expect(records.count == 100_000)
        #expect(records.first?["id"] as? Int == 100_000)  // newest first
        #expect(records.last?["dishName"] as? String == "料理 1 \"特製\"")
        #expect(records.last?["shopName"] as? String == "店\\1")
        #expect(records.last?["introduction"] as? String == "紹介\n1")
        #expect(records.last?["storedAt"] as? String == "2023-11-14T22:13:21.000Z")
    }

    @Test func exportToStdoutWritesTheDocumentedFormat() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        let result = try cli.run(["export"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "[")
        #expect(lines.last == "]")
        #expect(lines[1].hasPrefix(#"{"id":17,"photoUrl":"https://photos.favorite-archive.example/dishes/0017.jpg","category":"洋食","dishName":"チーズハンバーグ""#))
        let emptyCLI = try CLI()
        #expect(try emptyCLI.run(["onboarding"]).status == 0)  // creates an empty database
        let empty = try emptyCLI.run(["export"])
        #expect(empty.stdout == "[\n]\n")
    }

    @Test(arguments: [
        (#"[{"id":1,"photoUrl":"u","category":"c","dishName":"d","shopName":"s","introduction":"i"}, {"id":2,"photoUrl":"u","category":"c","dishName":"","shopName":"s","introduction":"i"}]"#, "record 1: field 'dishName' must not be empty"),
        (#"[{"id":"1","photoUrl":"u","category":"c","dishName":"d","shopName":"s","introduction":"i"}]"#, "record 0: field 'id' must be an integer, found a string"),
        (#"[{"id":1,"photoUrl":"u","category":"c","dishName":"d","shopName":"s"}]"#, "record 0: field 'introduction' is missing"),
        (#"[{"id":-4,"photoUrl":"u","category":"c","dishName":"d","shopName":"s","introduction":"i"}]"#, "record 0: field 'id' must be a positive integer"),
        (#"[{"id":99999999999999999999,"photoUrl":"u","category":"c","dishName":"d","shopName":"s","introduction":"i"}]"#, "out of the 64-bit integer range"),
        (#"[{"id":1,"photoUrl":"u","category":"c","dishName":"d","shopName":"s","introduction":"i","storedAt":"yesterday"}]"#, "field 'storedAt' must be an ISO 8601 date"),
        (#"[{"id":1,"photoUrl":"u","category":"c","dishName":"a\u0000b","shopName":"s","introduction":"i"}]"#, "NUL"),
        (#"[{"id":1,"photoUrl":"u","category":"c","dishName":"d","shopName":"s","introduction":"i"},]"#, "line 1"),
        (#"{"id":1}"#, "expected '['"),
        (#"[{"id":1,"photoUrl":"u""#, "the file ends inside record 0"),
        ("", "expected '['"),
        (#"[] trailing"#, "after the closing ']'"),
    ])
    func aBadImportFileNamesTheRecordAndFieldAndImportsNothing(text: String, message: String) throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        let good = (1...500).map { #"{"id":\#($0 + 1000),"photoUrl":"u","category":"c","dishName":"d","shopName":"s","introduction":"i"}"# }
        let path = try write(text, to: "bad.json")
        let snapshot = FileSnapshot(path: cli.database)
        let result = try cli.run(["import", path])
        #expect(result.status == 1)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.contains("nothing was imported"))
        #expect(snapshot.isUnchanged)

        // A bad record after many good ones still imports nothing.
        let late = try write("[" + good.joined(separator: ",") + "," + String(text.dropFirst()), to: "late.json")
        if text.hasPrefix("[{") {
            #expect(try cli.run(["import", late]).status == 1)
            #expect(snapshot.isUnchanged)
        }
        let count = try #require(try cli.run(["favorites", "--json"]).json() as? [String: Any])
        #expect(count["total"] as? Int == 1)
    }

    @Test func aMissingImportFileIsAClearError() throws {
        let result = try cli.run(["import", cli.directory.path("nowhere.json")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no such file"))
        let directory = try cli.run(["import", cli.directory.url.path])
        #expect(directory.stderr.contains("is a directory"))
    }

    @Test func anExportToAnUnwritablePlaceLeavesNoFile() throws {
        #expect(try cli.run(["add", "17"]).status == 0)
        let result = try cli.run(["export", "--output", "/proc/favorite-archive-export.json"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot write"))
    }
}
