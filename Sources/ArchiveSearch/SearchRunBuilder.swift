/// Builds one search run from a batch of favorites: every gram key of their
/// text fields, with the list of the favorites (by ID, ascending) that hold it.
///
/// The bulk path of the favorites search index: where FTS5 inserts every gram
/// into a hash of pending terms, one at a time, a run is built by sorting
/// (gram key, favorite) pairs once, with a three-pass radix sort, and written
/// as blocks (``SearchRunBlock``). A builder copies the texts it is given, so
/// it can be built away from the thread that fills it.
///
/// Fields are cut separately (no gram spans two); a favorite given twice is
/// listed once.
public struct SearchRunBuilder: Sendable {
    /// The texts' bytes, one field after the other.
    private var text: [UInt8] = []
    /// The end of each field in ``text``.
    private var fieldEnds: [Int] = []
    /// Each favorite's ID and the index of its first field in ``fieldEnds``.
    private var favorites: [(id: Int, firstField: Int)] = []
    /// The (key, rank) pairs of the last build and the radix sort's second
    /// buffer, kept from one build to the next (a run's are megabytes).
    private(set) var pairs: [UInt64] = []
    private(set) var scratch: [UInt64] = []

    /// An empty builder, with room for `capacity` favorites of about 200 bytes.
    public init(capacity: Int = 0) {
        favorites.reserveCapacity(capacity)
        fieldEnds.reserveCapacity(capacity * 5)
        text.reserveCapacity(capacity * 256)
    }

    /// How many favorites were added (a favorite added twice counts twice).
    public var count: Int { favorites.count }

    /// Whether no favorite was added.
    public var isEmpty: Bool { favorites.isEmpty }

    /// Adds the favorite `id` with the text fields `fields`.
    ///
    /// An array, not any sequence: a generic sequence is iterated through its
    /// witness tables from another module, which cost the bulk store a third
    /// of this call.
    public mutating func add(id: Int, fields: [String]) {
        favorites.append((id, fieldEnds.count))
        for field in fields {
            var field = field
            field.withUTF8 { text.append(contentsOf: $0) }
            fieldEnds.append(text.count)
        }
    }

    /// Adds the favorite `id` with the text fields whose UTF-8 bytes are `fields`.
    public mutating func add(id: Int, utf8Fields fields: [UnsafeRawBufferPointer]) {
        favorites.append((id, fieldEnds.count))
        for field in fields {
            text.append(contentsOf: field)
            fieldEnds.append(text.count)
        }
    }

    /// Swaps this builder's sort buffers (the megabytes a build leaves for the
    /// next) with `other`'s: builders built one after another share one set, moved
    /// into each before its build (``SearchRunBackgroundBuilder``).
    public mutating func swapSortBuffers(with other: inout SearchRunBuilder) {
        swap(&pairs, &other.pairs)
        swap(&scratch, &other.scratch)
    }

    // MARK: - Building

    /// The run's entries in ascending key order, cut into blocks, and the IDs
    /// of its favorites (``SearchIDList``'s bytes); the builder is then empty,
    /// ready for the next run, with its buffers kept.
    public mutating func build() -> SearchRun {
        defer {
            text.removeAll(keepingCapacity: true)
            fieldEnds.removeAll(keepingCapacity: true)
            favorites.removeAll(keepingCapacity: true)
        }
        // A pair keeps a favorite's rank in its low 32 bits.
        precondition(favorites.count <= Int(UInt32.max), "a search run holds at most 2^32 - 1 favorites")
        // Favorites by ID, so that each key's pairs come out of the stable sort
        // by key with their favorites in ID order.
        let order = favorites.indices.sorted { favorites[$0].id < favorites[$1].id }
        let idsByRank = order.map { favorites[$0].id }
        var counts = [Int](repeating: 0, count: Self.digitCounts)
        cutPairs(in: order, counting: &counts)
        Self.sortByKey(&pairs, scratch: &scratch, counts: &counts)
        // Each key's list, as delta varints, written here: at most ten bytes an ID.
        var list = [UInt8](repeating: 0, count: SearchIDList.maximumIntegerLength * max(1, favorites.count))

        var blocks: [SearchRunBlock] = []
        var writer = SearchRunBlockWriter()
        pairs.withUnsafeBufferPointer { pairs in
            idsByRank.withUnsafeBufferPointer { idsByRank in
                list.withUnsafeMutableBytes { list in
                    var index = 0
                    while index < pairs.count {
                        let key = UInt32(truncatingIfNeeded: pairs[index] &>> 32)
                        var length = 0
                        var previousID = 0
                        var isFirst = true
                        while index < pairs.count, UInt32(truncatingIfNeeded: pairs[index] &>> 32) == key {
                            let id = idsByRank[Int(UInt32(truncatingIfNeeded: pairs[index]))]
                            index &+= 1
                            // A gram repeated in one favorite, or a favorite given twice.
                            guard isFirst || id != previousID else { continue }
                            var delta = UInt64(UInt(bitPattern: id &- (isFirst ? 0 : previousID)))
                            while delta >= 0x80 {
                                list[length] = UInt8(truncatingIfNeeded: delta) | 0x80
                                length &+= 1
                                delta &>>= 7
                            }
                            list[length] = UInt8(delta)
                            length &+= 1
                            previousID = id
                            isFirst = false
                        }
                        let entry = UnsafeRawBufferPointer(rebasing: list[..<length])
                        if let completed = writer.append(key: SearchGramKey(rawValue: key), list: entry) { blocks.append(completed) }
                    }
                }
            }
        }
        if let last = writer.finish() { blocks.append(last) }

        var members: [UInt8] = []
        var previous: Int?
        SearchIDList.append(idsByRank.filter { id in
            defer { previous = id }
            return id != previous
        }, to: &members)
        return SearchRun(blocks: blocks, members: members)
    }

    /// Fills ``pairs`` with the (key << 32 | rank) pair of every gram, favorites
    /// taken in `order` (a favorite's rank is its place in `order`), and counts
    /// each of the radix sort's digits in `counts` as it goes (``digitCounts``),
    /// which spares the sort a reading pass per digit.
    private mutating func cutPairs(in order: [Int], counting counts: inout [Int]) {
        // A key per folded scalar: as many as the texts' scalars (the bytes that
        // start one; Japanese takes three bytes a scalar, so counting them keeps the
        // pairs a third of a bound by bytes), but for the few scalars whose folding
        // expands, which the check before each field makes room for.
        let scalars = text.withUnsafeBytes { bytes in bytes.reduce(0) { $0 &+ ($1 & 0xC0 == 0x80 ? 0 : 1) } }
        let least = scalars + 2 * fieldEnds.count
        // The last build's pairs are of no use: dropped first, a buffer that must
        // grow copies none of them. The sort swaps the buffers: both get room, so
        // the next run of this size finds room in whichever it starts from.
        Self.resize(&pairs, count: least)
        Self.reserve(&scratch, room: least)
        var count = 0
        text.withUnsafeBytes { text in
            for (rank, favorite) in order.enumerated() {
                let low = UInt64(rank)
                let fields = favorites[favorite].firstField..<(
                    favorite + 1 < favorites.count ? favorites[favorite + 1].firstField : fieldEnds.count)
                for field in fields {
                    let start = field == 0 ? 0 : fieldEnds[field - 1]
                    let end = fieldEnds[field]
                    // At most two keys a byte: a scalar that expands takes two bytes or more.
                    let room = 2 * (end - start) + 2
                    if count + room > pairs.count { Self.lengthen(&pairs, to: count + room) }
                    pairs.withUnsafeMutableBufferPointer { pairs in
                        counts.withUnsafeMutableBufferPointer { counts in
                            var written = count
                            SearchGramKey.forEachKey(inUTF8: UnsafeRawBufferPointer(rebasing: text[start..<end])) { key in
                                let value = key.rawValue
                                pairs[written] = UInt64(value) &<< 32 | low
                                written &+= 1
                                counts[Int(value & 0x7FF)] &+= 1
                                counts[2048 &+ Int((value &>> 11) & 0x7FF)] &+= 1
                                counts[4096 &+ Int(value &>> 22)] &+= 1
                            }
                            count = written
                        }
                    }
                }
            }
        }
        pairs.removeLast(pairs.count - count)
    }

    /// Makes `buffer` at least `count` long, with zeros, keeping what it holds,
    /// and growing its capacity to exactly that when it must grow. `append`
    /// alone would double it: the sort swaps the two buffers, so each run would
    /// find its pairs' buffer a little short and double it, tens of megabytes
    /// kept for every later run.
    static func lengthen(_ buffer: inout [UInt64], to count: Int) {
        guard buffer.count < count else { return }
        if buffer.capacity < count { buffer.reserveCapacity(count) }
        buffer.append(contentsOf: repeatElement(0, count: count - buffer.count))
    }

    /// Gives `buffer` room for `room` elements, its contents of no further use:
    /// what it held is dropped before it grows, so growing copies nothing (a
    /// run's pairs are megabytes). It grows by a sixteenth more than asked, so
    /// that runs a little larger than the last find room.
    static func reserve(_ buffer: inout [UInt64], room: Int) {
        guard buffer.capacity < room else { return }
        buffer = []
        buffer.reserveCapacity(room + room / 16)
    }

    /// Makes `buffer` exactly `count` long, its contents of no further use
    /// (``reserve(_:room:)``): only the length added past what it held is zeroed.
    static func resize(_ buffer: inout [UInt64], count: Int) {
        reserve(&buffer, room: count)
        if buffer.count > count {
            buffer.removeLast(buffer.count - count)
        } else {
            lengthen(&buffer, to: count)
        }
    }

    /// How many counts the radix sort's three digits take: 2,048 for each of the
    /// 11-bit digits, then 1,024 for the 10-bit one.
    static let digitCounts = 2048 + 2048 + 1024

    /// Sorts `pairs` by their top 32 bits, keeping the order of equal keys: a
    /// least-significant-digit radix sort in passes of 11, 11 and 10 bits.
    static func sortByKey(_ pairs: inout [UInt64], scratch: inout [UInt64]) {
        var counts = [Int](repeating: 0, count: digitCounts)
        for pair in pairs {
            let key = UInt32(truncatingIfNeeded: pair &>> 32)
            counts[Int(key & 0x7FF)] &+= 1
            counts[2048 &+ Int((key &>> 11) & 0x7FF)] &+= 1
            counts[4096 &+ Int(key &>> 22)] &+= 1
        }
        sortByKey(&pairs, scratch: &scratch, counts: &counts)
    }

    /// Sorts `pairs` as ``sortByKey(_:scratch:)`` does, given how many pairs
    /// hold each value of each digit (``digitCounts`` counts, which it uses up):
    /// one scattering pass a digit.
    static func sortByKey(_ pairs: inout [UInt64], scratch: inout [UInt64], counts: inout [Int]) {
        // As long as `pairs`: the sorted pairs end up in either buffer.
        resize(&scratch, count: pairs.count)
        for (shift, width, base) in [(32, 11, 0), (43, 11, 2048), (54, 10, 4096)] as [(UInt64, UInt64, Int)] {
            let mask: UInt64 = (1 << width) - 1
            pairs.withUnsafeBufferPointer { source in
                scratch.withUnsafeMutableBufferPointer { target in
                    counts.withUnsafeMutableBufferPointer { counts in
                        // Each digit's counts become where its pairs start.
                        var sum = 0
                        for index in base..<(base + (1 << Int(width))) {
                            let count = counts[index]
                            counts[index] = sum
                            sum &+= count
                        }
                        for pair in source {
                            let bucket = base &+ Int((pair &>> shift) & mask)
                            target[counts[bucket]] = pair
                            counts[bucket] &+= 1
                        }
                    }
                }
            }
            swap(&pairs, &scratch)
        }
    }
}
