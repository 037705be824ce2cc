import Foundation
import SQLite
import Testing

@Suite(.timeLimit(.minutes(5)))
struct ValueConversionTests {
    let database: Database

    init() throws {
        database = try Database(path: ":memory:")
        try database.execute("CREATE TABLE t (v)")
    }

    private func roundTrip<Value: DatabaseValueConvertible>(_ value: Value) throws -> Value? {
        try database.execute("DELETE FROM t")
        try database.execute("INSERT INTO t (v) VALUES (?)", value)
        return try database.fetchOne("SELECT v FROM t") { try $0.column(Value.self, at: 0) }
    }

    @Test func everySupportedTypeRoundTrips() throws {
        #expect(try roundTrip(42) == 42)
        #expect(try roundTrip(Int.min) == Int.min)
        #expect(try roundTrip(Int64.max) == Int64.max)
        #expect(try roundTrip(3.25) == 3.25)
        #expect(try roundTrip("チーズ🧀") == "チーズ🧀")
        #expect(try roundTrip("") == "")
        #expect(try roundTrip("a\u{0}b") == "a\u{0}b")
        #expect(try roundTrip(Data([0, 1, 2, 255])) == Data([0, 1, 2, 255]))
        #expect(try roundTrip(Data()) == Data())
        #expect(try roundTrip([UInt8]([0, 1, 2, 255])) == [0, 1, 2, 255])
        #expect(try roundTrip([UInt8]()) == [])
        #expect(try roundTrip(true) == true)
        #expect(try roundTrip(false) == false)
        #expect(try roundTrip(Int?.none) == .some(nil))
        #expect(try roundTrip(Int?.some(7)) == .some(7))
    }

    @Test func emptyTextAndBlobAreNotNull() throws {
        try database.execute("INSERT INTO t (v) VALUES (?), (?), (?)", "", Data(), [UInt8]())
        let types = try database.fetchAll("SELECT typeof(v) FROM t") { try $0.column(String.self, at: 0) }
        #expect(types == ["text", "blob", "blob"])
    }

    @Test func blobBytesAreReadInPlaceAndTextIsNotABlob() throws {
        try database.execute("INSERT INTO t (v) VALUES (x'00ff10'), (NULL)")
        let read = try database.fetchAll("SELECT v FROM t ORDER BY rowid") { row in row.withBlob(at: 0) { Array($0) } }
        #expect(read == [[0, 255, 16], []])
        try database.execute("DELETE FROM t; INSERT INTO t (v) VALUES ('ab')")
        #expect(throws: SQLiteError.self) { _ = try database.fetchOne("SELECT v FROM t") { try $0.column([UInt8].self, at: 0) } }
    }

    @Test("a row's texts read at once are each column's converted text: numbers as decimals, NULL no bytes, a column asked twice alike")
    func severalConvertedTextsAtOnce() throws {
        let row = try database.fetchOne("SELECT 'チーズ', 987654, NULL, '', x'61ff', -1.5, 'チーズ'") { row in
            row.withConvertedTexts(at: [0, 1, 2, 3, 4, 5, 0]) { texts in texts.map { Array($0) } }
        }
        let expected: [[UInt8]] = [Array("チーズ".utf8), Array("987654".utf8), [], [], [0x61, 0xFF], Array("-1.5".utf8), Array("チーズ".utf8)]
        #expect(row == expected)
    }

    @Test func readingAnotherStorageClassIsAMismatchNamingTheColumn() throws {
        try database.execute("INSERT INTO t (v) VALUES ('12')")
        let error = try #require(throws: SQLiteError.self) {
            _ = try database.fetchOne("SELECT v AS amount FROM t") { try $0.column(Int.self, at: 0) }
        }
        #expect(error.resultCode == .mismatch)
        #expect(error.message.contains("amount"))
        #expect(error.message.contains("TEXT"))
    }

    @Test func nullIsAMismatchForNonOptionals() throws {
        try database.execute("INSERT INTO t (v) VALUES (NULL)")
        #expect(throws: SQLiteError.self) {
            _ = try database.fetchOne("SELECT v FROM t") { try $0.column(String.self, at: 0) }
        }
    }

    @Test func boolAcceptsOnlyZeroAndOne() throws {
        try database.execute("INSERT INTO t (v) VALUES (2)")
        let error = try #require(throws: SQLiteError.self) {
            _ = try database.fetchOne("SELECT v FROM t") { try $0.column(Bool.self, at: 0) }
        }
        #expect(error.resultCode == .mismatch)
    }

    @Test func doubleWidensIntegers() throws {
        try database.execute("INSERT INTO t (v) VALUES (3)")
        #expect(try database.fetchOne("SELECT v FROM t") { try $0.column(Double.self, at: 0) } == 3.0)
    }

    @Test func wrongNumberOfArgumentsIsARangeError() throws {
        let error = try #require(throws: SQLiteError.self) {
            try database.execute("INSERT INTO t (v) VALUES (?)", 1, 2)
        }
        #expect(error.resultCode == .range)
    }
}
