@testable import ArchiveSearch
import TestSupport
import Testing

/// Blocks and lists read back from disk may be damaged: every damage is an error
/// that names itself, never a crash nor a wrong list read as right.
@Suite(.timeLimit(.minutes(5)))
struct SearchRunDamageTests {
    static func list(_ ids: [Int]) -> [UInt8] {
        var bytes: [UInt8] = []
        SearchIDList.append(ids, to: &bytes)
        return bytes
    }

    static func ids(_ bytes: [UInt8]) throws(SearchRunError) -> [Int] {
        let result: Result<[Int], SearchRunError> = bytes.withUnsafeBytes { buffer in
            do throws(SearchRunError) { return .success(try SearchIDList.ids(in: buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// What `body` throws, `nil` when it throws nothing; another error fails the test.
    static func reason(_ body: () throws -> Void) -> SearchRunError.Reason? {
        do {
            try body()
            return nil
        } catch let error as SearchRunError {
            return error.reason
        } catch {
            Issue.record(error)
            return nil
        }
    }

    @Test("ID lists round-trip at the limits of Int")
    func listLimits() throws {
        let ids = [Int.min, Int.min + 1, -1_000_000, -1, 0, 1, 127, 128, 16_384, Int.max - 1, Int.max]
        #expect(try Self.ids(Self.list(ids)) == ids)
        #expect(try Self.ids(Self.list([Int.max])) == [Int.max])
        #expect(try Self.ids(Self.list([Int.min, Int.max])) == [Int.min, Int.max])
        #expect(try Self.ids([]) == [])
    }

    @Test("an integer's length is what appending it writes", arguments: [0, 1, 127, 128, 16_383, 16_384, UInt64(Int.max), .max] as [UInt64])
    func integerLength(_ value: UInt64) {
        var bytes: [UInt8] = []
        SearchIDList.appendInteger(value, to: &bytes)
        #expect(SearchIDList.integerLength(value) == bytes.count)
    }

    @Test("a list out of order, overlong or cut short is refused")
    func damagedLists() {
        #expect(Self.reason { _ = try Self.ids([5, 0]) } == .idsOutOfOrder)  // a step of 0: an ID twice
        // Int.max, then a step past it.
        #expect(Self.reason { _ = try Self.ids(Self.list([Int.max]) + [1]) } == .idsOutOfOrder)
        #expect(Self.reason { _ = try Self.ids([0x80]) } == .truncated)
        #expect(Self.reason { _ = try Self.ids(Array(repeating: 0xFF, count: 9) + [0x02]) } == .overlongInteger)
        #expect(Self.reason { _ = try Self.ids(Array(repeating: 0xFF, count: 12)) } == .overlongInteger)
    }

    static let block: SearchRunBlock = {
        var writer = SearchRunBlockWriter()
        for key in [3, 9, 27] as [UInt32] {
            _ = list([1, 5, 100 + Int(key)]).withUnsafeBytes { writer.append(key: SearchGramKey(rawValue: key), list: $0) }
        }
        return writer.finish() ?? SearchRunBlock(firstKey: SearchGramKey(rawValue: 0), bytes: [])
    }()

    static func readAll(_ block: SearchRunBlock) throws(SearchRunError) {
        try block.forEachEntry { (_, list) throws(SearchRunError) in
            try SearchIDList.forEach(in: list) { _ in }
            return true
        }
    }

    @Test("a block cut short, empty, misfiled or out of order is refused")
    func damagedBlocks() throws {
        try Self.readAll(Self.block)
        let bytes = Self.block.bytes
        #expect(try Self.block.entries().count == 3)
        for length in 0..<bytes.count {
            let cut = SearchRunBlock(firstKey: Self.block.firstKey, bytes: Array(bytes[..<length]))
            // A cut at an entry's end reads as a shorter block; anywhere else it is refused.
            let boundaries = try Self.block.entries().map(\.list.upperBound)
            let reason = Self.reason { try Self.readAll(cut) }
            if length == 0 {
                #expect(reason == .emptyBlock)
            } else if !boundaries.contains(length) {
                #expect(reason == .truncated, "cut at \(length)")
            }
        }
        #expect(Self.reason { try Self.readAll(SearchRunBlock(firstKey: SearchGramKey(rawValue: 4), bytes: bytes)) } == .firstKeyMismatch)
        var swapped = bytes
        swapped[0] = 9  // the first entry's key made equal to the second's
        #expect(Self.reason { try Self.readAll(SearchRunBlock(firstKey: SearchGramKey(rawValue: 9), bytes: swapped)) } == .keysOutOfOrder)
    }

    @Test("random damage to a real run's blocks is an error or a readable block, never a crash")
    func fuzzedBlocks() throws {
        var random = SeededGenerator(seed: 0xF022)
        var builder = SearchRunBuilder()
        for id in 0..<400 { builder.add(id: id * 3, fields: ["蕎麦 \(id)", "Crème brûlée", "番号 \(id * 7)"]) }
        let run = builder.build()
        for _ in 0..<2_000 {
            guard let block = run.blocks.randomElement(using: &random) else { continue }
            var bytes = block.bytes
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if Bool.random(using: &random) { bytes.removeLast(Int.random(in: 0..<bytes.count, using: &random)) }
            _ = Self.reason { try Self.readAll(SearchRunBlock(firstKey: block.firstKey, bytes: bytes)) }
            var once = false
            let source: () throws -> SearchRunBlock? = {
                defer { once = true }
                return once ? nil : SearchRunBlock(firstKey: block.firstKey, bytes: bytes)
            }
            do { try SearchRunMerger.merge([source]) { _ in } } catch is SearchRunError {}
        }
    }

    @Test("a run whose blocks go back in key order, or repeat a key, is refused by the merger")
    func mergerChecksOrderAcrossBlocks() throws {
        // The second block starts at the key the first one ends with (27).
        var writer = SearchRunBlockWriter()
        for key in [27, 30] as [UInt32] {
            _ = Self.list([2]).withUnsafeBytes { writer.append(key: SearchGramKey(rawValue: key), list: $0) }
        }
        let last = writer.finish()
        let repeating = try #require(last)
        for blocks in [[Self.block, Self.block], [Self.block, repeating]] {
            var iterator = blocks.makeIterator()
            #expect(throws: SearchRunError(.keysOutOfOrder, at: 0)) {
                try SearchRunMerger.merge([{ iterator.next() }]) { _ in }
            }
        }
    }
}
