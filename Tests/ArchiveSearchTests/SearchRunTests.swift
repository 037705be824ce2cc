@testable import ArchiveSearch
import TestSupport
import Testing

/// Search runs against their definition: for every key, the favorites (by ID,
/// ascending, once) whose fields hold a gram with that key, computed by brute
/// force from ``SearchGramKey/forEachKey(inUTF8:_:)``.
@Suite(.timeLimit(.minutes(5)))
struct SearchRunTests {
    struct Favorite {
        var id: Int
        var fields: [String]
    }

    static let words = [
        "蕎麦", "寿司", "天ぷら", "チーズ", "とろける", "ラーメン", "蕎", "Soba", "SUSHI", "Crème", "brûlée",
        "ÉCLAIR", "Straße", "İstanbul", "ǅemal", "ΣΟΦΙΑ", "Москва", "🍜", "100%", "Ｆｕｌｌ", "番号 12346",
    ]

    /// `count` favorites with IDs drawn from the whole `Int` range (both limits,
    /// negative ones, and some IDs given twice), in no order.
    static func favorites(count: Int, random: inout SeededGenerator) -> [Favorite] {
        var ids = [Int.min, -1, 0, 1, Int.max]
        while ids.count < count {
            let id = Bool.random(using: &random) ? Int.random(in: -1_000...100_000, using: &random) : Int(bitPattern: UInt(random.next()))
            ids.append(id)
        }
        ids.shuffle(using: &random)
        return ids.map { id in
            let fields = (0..<5).map { field in
                field == 4 && Int.random(in: 0..<10, using: &random) == 0 ? ""
                    : (0..<Int.random(in: 1...4, using: &random)).map { _ in words.randomElement(using: &random) ?? "" }.joined(separator: " ")
            }
            return Favorite(id: id, fields: fields)
        }
    }

    static func build(_ favorites: [Favorite]) -> SearchRun {
        var builder = SearchRunBuilder(capacity: favorites.count)
        for favorite in favorites { builder.add(id: favorite.id, fields: favorite.fields) }
        return builder.build()
    }

    /// The definition: key → the favorites holding it, ascending.
    static func bruteForce(_ favorites: [Favorite]) -> [SearchGramKey: [Int]] {
        var lists: [SearchGramKey: Set<Int>] = [:]
        for favorite in favorites {
            for field in favorite.fields {
                for key in SearchGramKeyTests.keys(Array(field.utf8)) { lists[key, default: []].insert(favorite.id) }
            }
        }
        return lists.mapValues { $0.sorted() }
    }

    /// Every entry of `run`, decoded.
    static func entries(_ run: SearchRun) throws -> [SearchGramKey: [Int]] {
        var lists: [SearchGramKey: [Int]] = [:]
        var previous: SearchGramKey?
        for block in run.blocks {
            try block.forEachEntry { (key, list) throws(SearchRunError) in
                #expect(previous.map { key > $0 } ?? true, "keys ascend across blocks")
                previous = key
                lists[key] = try SearchIDList.ids(in: list)
                return true
            }
        }
        return lists
    }

    @Test("a run lists, for every key, exactly the favorites that hold it", arguments: [1, 7, 300, 3_000])
    func runMatchesBruteForce(count: Int) throws {
        var random = SeededGenerator(seed: 0x2A + UInt64(count))
        let favorites = Self.favorites(count: count, random: &random)
        let run = Self.build(favorites)
        #expect(try Self.entries(run) == Self.bruteForce(favorites), "seed \(random.seed)")
        #expect(try run.memberIDs() == Set(favorites.map(\.id)).sorted())
        // A block ends only where the next entry would take it past the target size.
        for (block, next) in zip(run.blocks, run.blocks.dropFirst()) {
            let nextEntrySize = try #require(try next.entries().first).list.upperBound
            #expect(block.bytes.count + nextEntrySize > SearchRunBlock.targetSize)
        }
        for block in run.blocks {
            let entries = try block.entries()
            #expect(entries.count == 1 || block.bytes.count <= SearchRunBlock.targetSize, "a block overfills only for a lone list")
        }
    }

    @Test("a builder used for run after run builds each as a new one would, and is empty after each")
    func builderReuse() throws {
        var random = SeededGenerator(seed: 0xBEEF)
        var builder = SearchRunBuilder()
        for count in [2_000, 50, 700, 1] {  // a big run first: its buffers are longer than the next ones need
            let favorites = Self.favorites(count: count, random: &random)
            for favorite in favorites { builder.add(id: favorite.id, fields: favorite.fields) }
            let added = builder.count
            #expect(added == favorites.count)
            let run = builder.build()
            #expect(run == Self.build(favorites), "run of \(count)")
            let emptied = builder.isEmpty && builder.count == 0
            #expect(emptied)
        }
    }

    @Test("runs built on the background thread equal runs built in place, come back in the order handed over, and leave the sort buffers there")
    func backgroundBuilds() throws {
        var random = SeededGenerator(seed: 0xB6)
        let batches = [2_000, 50, 700, 1, 1_300].map { Self.favorites(count: $0, random: &random) }
        let background = SearchRunBackgroundBuilder(capacity: 100)
        var builder = SearchRunBuilder()
        var built: [SearchRunBackgroundBuilder.Built] = []
        for batch in batches {
            for favorite in batch { builder.add(id: favorite.id, fields: favorite.fields) }
            built += background.exchange(&builder)
            // Handed back empty, without the buffers: they stay with the thread.
            #expect(builder.isEmpty && builder.pairs.capacity == 0 && builder.scratch.capacity == 0)
        }
        built += background.finish()
        #expect(background.finish().isEmpty)
        #expect(built.map(\.members) == batches.map(\.count))
        #expect(built.map(\.run) == batches.map(Self.build))
    }

    /// With a fan-in, every `fanIn` runs come back as the one run built from all
    /// their favorites (the merger's output equals it), at the exchange after the
    /// last of them; the runs held at the end come back apart, in order.
    @Test("the background thread merges every fan-in runs it builds, and hands the rest back apart", arguments: [2, 3])
    func backgroundMerges(fanIn: Int) throws {
        var random = SeededGenerator(seed: 0xB7 + UInt64(fanIn))
        // IDs given twice across batches (the generator repeats some) must be listed once.
        let batches = [300, 20, 450, 1, 260, 75, 128].map { Self.favorites(count: $0, random: &random) }
        let background = SearchRunBackgroundBuilder(capacity: 100, mergingEvery: fanIn)
        var builder = SearchRunBuilder()
        var returns: [[SearchRunBackgroundBuilder.Built]] = []
        for batch in batches {
            for favorite in batch { builder.add(id: favorite.id, fields: favorite.fields) }
            returns.append(background.exchange(&builder))
        }
        returns.append(background.finish())
        // Merged runs come back at the exchange after their last build.
        let merges = batches.count / fanIn
        let expectedReturns = (0...batches.count).map { index in index > 0 && index % fanIn == 0 && index / fanIn <= merges ? 1 : 0 }
        #expect(returns.dropLast().map(\.count) == expectedReturns.dropLast())
        let built = returns.flatMap { $0 }
        var expected: [[Favorite]] = (0..<merges).map { batches[($0 * fanIn)..<(($0 + 1) * fanIn)].flatMap { $0 } }
        expected += batches[(merges * fanIn)...]
        #expect(built.map(\.members) == expected.map(\.count))
        #expect(built.map(\.run) == expected.map(Self.build))
        #expect(background.finish().isEmpty)
    }

    @Test("runs that do not merge come back apart, as they were built")
    func failedMergeHandsTheRunsBack() {
        var random = SeededGenerator(seed: 0xB9)
        let runs = [40, 60].map { count in
            let favorites = Self.favorites(count: count, random: &random)
            return SearchRunBackgroundBuilder.Built(run: Self.build(favorites), members: favorites.count)
        }
        var damaged = runs
        damaged[1].run.members = [0x80]  // a varint cut short
        #expect(SearchRunBackgroundBuilder.merged(damaged) == damaged)
        #expect(SearchRunBackgroundBuilder.merged(runs).count == 1)
    }

    @Test("favorites given as UTF-8 bytes build the run their strings build; ill-formed bytes read as U+FFFD")
    func utf8Fields() throws {
        var random = SeededGenerator(seed: 0x07F8)
        let favorites = Self.favorites(count: 300, random: &random)
        var builder = SearchRunBuilder()
        for favorite in favorites {
            let bytes = favorite.fields.map { Array($0.utf8) }
            bytes[0].withUnsafeBytes { a in bytes[1].withUnsafeBytes { b in bytes[2].withUnsafeBytes { c in
                bytes[3].withUnsafeBytes { d in bytes[4].withUnsafeBytes { e in builder.add(id: favorite.id, utf8Fields: [a, b, c, d, e]) } }
            } } }
        }
        #expect(builder.build() == Self.build(favorites))

        let illFormed: [UInt8] = [0x61, 0xFF, 0xE3, 0x81, 0x62]
        illFormed.withUnsafeBytes { builder.add(id: 9, utf8Fields: [$0]) }
        let fromBytes = builder.build()
        #expect(fromBytes == Self.build([Favorite(id: 9, fields: [String(decoding: illFormed, as: UTF8.self)])]))
    }

    @Test("run after run, the builder's two buffers stay about twice its keys, not three times")
    func buffersDoNotGrowRunAfterRun() {
        var random = SeededGenerator(seed: 0x512E)
        var builder = SearchRunBuilder()
        var keys = 0
        for _ in 0..<4 {
            for id in 0..<1_000 {
                let fields = (0..<5).map { _ in (0..<20).map { _ in Self.words.randomElement(using: &random) ?? "" }.joined() }
                builder.add(id: id, fields: fields)
            }
            _ = builder.build()
            keys = max(keys, builder.pairs.count)
        }
        // The sort leaves the pairs in either buffer; both are kept for the next run.
        let room = builder.pairs.capacity + builder.scratch.capacity
        #expect(room < 2 * keys + keys / 2, "\(room) pairs of room in both buffers for \(keys) keys")
    }

    @Test("a sort buffer that must grow drops what it held (nothing copied) and takes a sixteenth more room; one that need not keeps its room")
    func sortBuffersGrowWithoutCopying() {
        var buffer: [UInt64] = [7, 8, 9]
        SearchRunBuilder.resize(&buffer, count: 1_600)
        #expect(buffer.count == 1_600 && buffer.allSatisfy { $0 == 0 }, "the pairs of the last build were copied: \(buffer.prefix(3))")
        let room = buffer.capacity
        #expect(room >= 1_700 && room < 1_800, "\(room) elements of room for 1,600")
        buffer[0] = 5
        SearchRunBuilder.resize(&buffer, count: 100)
        SearchRunBuilder.resize(&buffer, count: room)
        #expect(buffer.count == room && buffer.capacity == room && buffer[0] == 5 && buffer[100...].allSatisfy { $0 == 0 })
        SearchRunBuilder.reserve(&buffer, room: room)
        #expect(buffer.count == room && buffer[0] == 5)
        SearchRunBuilder.reserve(&buffer, room: room + 1)
        #expect(buffer.isEmpty && buffer.capacity > room)
    }

    @Test("texts whose every scalar folds to two have twice as many keys as scalars, and all of them")
    func expandingFoldings() throws {
        // İ folds to i and a combining dot: more keys than the texts have scalars.
        let favorites = (0..<50).map { Favorite(id: $0, fields: [String(repeating: "İ", count: 300 + $0), "ǅİ", "", "İ", "x"]) }
        let run = Self.build(favorites)
        #expect(try Self.entries(run) == Self.bruteForce(favorites))
    }

    @Test("a lookup finds what the definition holds, for single keys and ranges")
    func lookupsMatchBruteForce() throws {
        var random = SeededGenerator(seed: 0x10_0C)
        let favorites = Self.favorites(count: 2_000, random: &random)
        let run = Self.build(favorites)
        let lists = Self.bruteForce(favorites)
        let keys = lists.keys.sorted()
        for _ in 0..<200 {
            let a = keys.randomElement(using: &random) ?? SearchGramKey(rawValue: 0)
            let b = Bool.random(using: &random) ? a : SearchGramKey(rawValue: UInt32.random(in: 0...UInt32.max, using: &random))
            let range = min(a, b)...max(a, b)
            let expected = Set(lists.filter { range.contains($0.key) }.values.joined()).sorted()
            #expect(try run.ids(in: range) == expected, "keys \(range)")
        }
        #expect(try run.ids(in: SearchGramKey(rawValue: 0)...SearchGramKey(rawValue: .max)) == Set(favorites.map(\.id)).sorted())
    }

    @Test("a keyword's lookups, intersected, find every favorite a scan finds")
    func keywordSearchCoversScan() throws {
        var random = SeededGenerator(seed: 0x5CA9)
        let favorites = Self.favorites(count: 1_500, random: &random)
        let run = Self.build(favorites)
        let keywords = ["蕎", "寿司", "ぷら", "チーズ", "soba", "SOBA", "È", "é", "ss", "straße", "i̇stanbul", "ǆ",
                        "σοφια", "МОСКВА", "🍜", "%", "ｆｕｌｌ", "1", "12", "番号 1", "蕎麦寿", "xyz", "麦寿"]
        for text in keywords {
            let keyword = SearchKeyword(text)
            let lookups = try #require(SearchGramKey.lookups(for: keyword))
            var candidates: [Int]?
            for lookup in lookups {
                let ids = try run.ids(in: lookup)
                candidates = candidates.map { SearchIDSet.intersection($0, ids) } ?? ids
            }
            let found = (candidates ?? []).filter { id in
                favorites.contains { $0.id == id && $0.fields.contains(where: keyword.matches) }
            }
            let scan = Set(favorites.filter { $0.fields.contains(where: keyword.matches) }.map(\.id)).sorted()
            #expect(found == scan, "keyword \(text.debugDescription)")
        }
    }

    @Test("merged runs equal the run built from all their favorites, removed favorites left out")
    func mergeEqualsBuild() throws {
        var random = SeededGenerator(seed: 0x3E46E)
        let favorites = Self.favorites(count: 2_500, random: &random)
        // Overlapping parts: a favorite may sit in two runs (stored again later).
        var parts: [[Favorite]] = Array(repeating: [], count: 5)
        for favorite in favorites {
            parts[Int.random(in: 0..<5, using: &random)].append(favorite)
            if Int.random(in: 0..<10, using: &random) == 0 { parts[Int.random(in: 0..<5, using: &random)].append(favorite) }
        }
        let runs = parts.map(Self.build)
        var merged: [SearchRunBlock] = []
        var sources: [() throws -> SearchRunBlock?] = []
        for run in runs {
            var blocks = run.blocks.makeIterator()
            sources.append { blocks.next() }
        }
        try SearchRunMerger.merge(sources) { merged.append($0) }
        let whole = Self.build(favorites)
        #expect(merged == whole.blocks)

        let removed = Set(favorites.filter { _ in Int.random(in: 0..<3, using: &random) == 0 }.map(\.id))
        var kept: [SearchRunBlock] = []
        sources = runs.map { run in
            var blocks = run.blocks.makeIterator()
            return { blocks.next() }
        }
        try SearchRunMerger.merge(sources, keeping: { !removed.contains($0) }) { kept.append($0) }
        let expected = Self.bruteForce(favorites.filter { !removed.contains($0.id) })
        #expect(try Self.entries(SearchRun(blocks: kept, members: [])) == expected)
    }

    @Test("runs of separate ID ranges, in any order, merge into the run of all their favorites")
    func mergeOfSeparateRanges() throws {
        var random = SeededGenerator(seed: 0x5E9A)
        let favorites = Self.favorites(count: 2_000, random: &random).sorted { $0.id < $1.id }
        // Contiguous ID ranges (an import's runs), handed over in a shuffled order.
        let parts = stride(from: 0, to: favorites.count, by: 300).map { Array(favorites[$0..<min($0 + 300, favorites.count)]) }
        var sources: [() throws -> SearchRunBlock?] = []
        for run in parts.map(Self.build).shuffled(using: &random) {
            var blocks = run.blocks.makeIterator()
            sources.append { blocks.next() }
        }
        var merged: [SearchRunBlock] = []
        try SearchRunMerger.merge(sources) { merged.append($0) }
        #expect(merged == Self.build(favorites).blocks)
        #expect(SearchRunMerger.disjointOrder([(3, 4), (1, 2), (5, 9)]) == [1, 0, 2])
        #expect(SearchRunMerger.disjointOrder([(1, 5), (3, 9)]) == nil)
        #expect(SearchRunMerger.disjointOrder([(1, 5), (5, 9)]) == nil)
        #expect(SearchRunMerger.disjointOrder([(Int.min, -1), (Int.max, Int.max), (0, 0)]) == [0, 2, 1])
    }

    @Test("a damaged list that one run alone holds is not copied into the merged run")
    func mergeChecksACopiedList() {
        // Key 5, a list of 2 bytes: ID 1, then a step of 0 (not ascending).
        let damaged = SearchRunBlock(firstKey: SearchGramKey(rawValue: 5), bytes: [5, 0, 0, 0, 2, 1, 0])
        var handed = false
        #expect(throws: SearchRunError(.idsOutOfOrder, at: 1)) {
            try SearchRunMerger.merge([{ defer { handed = true }; return handed ? nil : damaged }]) { _ in }
        }
    }

    @Test("merging no runs, or empty runs, makes an empty run")
    func mergeNothing() throws {
        var blocks: [SearchRunBlock] = []
        try SearchRunMerger.merge([{ nil }, { nil }]) { blocks.append($0) }
        try SearchRunMerger.merge([]) { blocks.append($0) }
        #expect(blocks.isEmpty)
        var builder = SearchRunBuilder()
        #expect(builder.build() == SearchRun(blocks: [], members: []))
    }

    @Test("the radix sort orders by key and keeps the order of equal keys")
    func radixSortIsStable() {
        var random = SeededGenerator(seed: 0x4AD1)
        var pairs = (0..<50_000).map { index in
            UInt64(UInt32.random(in: 0...UInt32.max, using: &random) & (Bool.random(using: &random) ? 0xFFFF_FFFF : 0xFFE0_0000)) << 32
                | UInt64(index)
        }
        let expected = pairs.enumerated().sorted { ($0.element >> 32, $0.offset) < ($1.element >> 32, $1.offset) }.map(\.element)
        var scratch = [UInt64](repeating: 7, count: 60_000)  // longer than the pairs: left from a bigger run
        SearchRunBuilder.sortByKey(&pairs, scratch: &scratch)
        #expect(pairs == expected)
    }
}
