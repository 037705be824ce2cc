import ArchiveServerSQLite
import ArchiveServer
import Foundation
import SQLite
import TestSupport
import Testing

/// The page's search rule runs twice: in Swift on SQLite (`archive_contains`, a linear-time
/// matcher) and as SQL on PostgreSQL (`strpos(lower(text), lower(search COLLATE "C"))`).
/// The same 3,000 pairs of texts and searches, drawn from ASCII letters of both cases,
/// LIKE's wildcards, accented and Japanese letters, through both: the same answers. Seen
/// red with the Swift matcher folding É to é (the last byte of its UTF-8 folded too).
@Suite(.blockingWork, .timeLimit(.minutes(5)))
struct FoldedSubstringDifferentialTests {
    static let alphabet: [String] = ["a", "A", "b", "B", "ab", "é", "É", "ア", "%", "_", "\\", " ", "'"]

    @Test func theSwiftMatcherAndPostgreSQLsStrposAgree() throws {
        var generator = SeededGenerator(seed: 0x5EA2C4)
        func word(_ count: Int) -> String {
            (0..<count).map { _ in Self.alphabet[Int(generator.next() % UInt64(Self.alphabet.count))] }.joined()
        }
        var pairs: [(text: String, search: String)] = []
        for _ in 0..<3_000 {
            let text = word(Int(generator.next() % 12))
            // Half the searches are a piece of the text, with one letter's case swapped now and then.
            var search = word(Int(generator.next() % 4))
            if generator.next() % 2 == 0, !text.isEmpty {
                let scalars = Array(text.unicodeScalars)
                let start = Int(generator.next() % UInt64(scalars.count))
                let end = min(scalars.count, start + 1 + Int(generator.next() % 4))
                search = String(String.UnicodeScalarView(scalars[start..<end]))
                if generator.next() % 3 == 0 { search = search.uppercased() }
            }
            pairs.append((text, search))
        }

        let database = try ServerDatabase(path: Database.inMemoryPath)
        let swift = try database.queue.read { db in
            try pairs.map { pair in try db.fetchOne("SELECT archive_contains(?, ?)", pair.text, pair.search) { try $0.int(at: 0) } ?? -1 }
        }
        func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        let postgres = try TestPostgres.server()
        let rows = pairs.enumerated().map { "(\($0.offset), \(literal($0.element.text)), \(literal($0.element.search)))" }
        let answers = try postgres.query("""
            SELECT string_agg(CASE WHEN strpos(lower(t COLLATE "C"), lower(s COLLATE "C")) > 0 THEN '1' ELSE '0' END, '' ORDER BY n)
            FROM (VALUES \(rows.joined(separator: ", "))) AS pairs (n, t, s)
            """, in: try postgres.newDatabase())
        #expect(answers.count == pairs.count, "\(answers.prefix(100))")
        var disagreements: [String] = []
        for ((pair, mine), theirs) in zip(zip(pairs, swift), answers) where String(mine) != String(theirs) {
            disagreements.append("\(pair.text) ∋ \(pair.search): Swift \(mine), PostgreSQL \(theirs)")
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
        #expect(swift.filter { $0 == 1 }.count > 500, "too few matches to prove anything")
    }
}
