/// Counts the records whose ID repeats an earlier record's, in one pass for the
/// IDs an archive usually has, in memory that grows with the file's size, not
/// with its IDs' values.
///
/// - An ID below ``directLimit`` (an archive numbered from 1, as the catalog is,
///   has no other) has a bit of its own: a repeat is counted exactly as it is noted.
/// - A larger ID goes into a Bloom filter (allocated at the first such ID), which
///   keeps the IDs it may have seen already (true repeats plus a few false
///   positives) as candidates; when there are any, a second reading of the records
///   counts only those (``count(_:)``).
struct DuplicateIDCounter {
    /// Bit `id`: the ID `id` was noted (IDs below ``directLimit``).
    private var direct: [UInt64]
    /// Repeats of the IDs below ``directLimit``, counted as they were noted.
    private var directRepeats = 0
    /// The Bloom filter of the larger IDs; empty until the first one.
    private var bloom: [UInt64] = []
    private let bloomMask: UInt64
    private var candidates: [Int: Int] = [:]

    /// The IDs below this are counted exactly in the first pass.
    let directLimit: Int

    /// A counter sized for about `expectedRecords` records: 16 bits a record, half
    /// for the IDs below ``directLimit`` (8 times as many IDs as records), half for
    /// the Bloom filter of the others (8 bits a record and 3 hashes: under 3 % false
    /// positives with as many large IDs as records, far fewer with fewer).
    init(expectedRecords: Int) {
        var bitCount: UInt64 = 1 << 16
        while bitCount < UInt64(clamping: expectedRecords) &* 16, bitCount < 1 << 34 { bitCount <<= 1 }
        let half = bitCount / 2
        direct = Array(repeating: 0, count: Int(half / 64))
        directLimit = Int(half)
        bloomMask = half - 1
    }

    /// First pass: notes `id`.
    mutating func note(_ id: Int) {
        if id >= 0, id < directLimit {
            if Self.set(UInt64(id), in: &direct) { directRepeats += 1 }
            return
        }
        if bloom.isEmpty { bloom = Array(repeating: 0, count: direct.count) }
        let (first, second, third) = Self.hashes(id, mask: bloomMask)
        // Every bit is set (no short-circuit); the ID may have been seen if all three were set already.
        let firstWasSet = Self.set(first, in: &bloom)
        let secondWasSet = Self.set(second, in: &bloom)
        let thirdWasSet = Self.set(third, in: &bloom)
        if firstWasSet && secondWasSet && thirdWasSet { candidates[id] = 0 }
    }

    /// Sets bit `bit` of `bits`; returns whether it was set already.
    private static func set(_ bit: UInt64, in bits: inout [UInt64]) -> Bool {
        let (word, flag) = (Int(bit >> 6), UInt64(1) << (bit & 63))
        defer { bits[word] |= flag }
        return bits[word] & flag != 0
    }

    /// Whether the first pass noted a large ID that may repeat (else there is no second pass).
    var hasCandidates: Bool { !candidates.isEmpty }

    /// Second pass: counts `id` if it may repeat.
    mutating func count(_ id: Int) {
        if let seen = candidates[id] { candidates[id] = seen + 1 }
    }

    /// After the first pass (and the second, when ``hasCandidates``): how many records
    /// repeated an ID of an earlier record.
    var repeats: Int {
        candidates.values.reduce(directRepeats) { $0 + max(0, $1 - 1) }
    }

    private static func hashes(_ id: Int, mask: UInt64) -> (UInt64, UInt64, UInt64) {
        // SplitMix64's finalizer: well spread, deterministic.
        var z = UInt64(bitPattern: Int64(id)) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let h1 = z, h2 = (z >> 32) | (z << 32) | 1
        return (h1 & mask, (h1 &+ h2) & mask, (h1 &+ 2 &* h2) & mask)
    }
}
