/// Counts the IDs that occur more than once in a stream of records, in memory
/// that grows with the duplicates, not with the records: the first pass adds
/// every ID to a Bloom filter and keeps the IDs it may have seen already
/// (true repeats plus a few false positives); the second pass counts only those.
struct DuplicateIDCounter {
    private var bits: [UInt64]
    private let mask: UInt64
    private var candidates: [Int: Int] = [:]

    /// A counter sized for about `expectedRecords` records (about 2 bytes each:
    /// 16 bits per record and 3 hashes give under 0.5 % false positives).
    init(expectedRecords: Int) {
        var bitCount: UInt64 = 1 << 16
        while bitCount < UInt64(clamping: expectedRecords) &* 16, bitCount < 1 << 34 { bitCount <<= 1 }
        bits = Array(repeating: 0, count: Int(bitCount / 64))
        mask = bitCount - 1
    }

    /// First pass: notes `id`.
    mutating func note(_ id: Int) {
        let (first, second, third) = Self.hashes(id, mask: mask)
        // Every bit is set (no short-circuit); the ID may have been seen if all three were set already.
        let firstWasSet = set(first)
        let secondWasSet = set(second)
        let thirdWasSet = set(third)
        if firstWasSet && secondWasSet && thirdWasSet { candidates[id] = 0 }
    }

    /// Sets bit `bit`; returns whether it was set already.
    private mutating func set(_ bit: UInt64) -> Bool {
        let (word, flag) = (Int(bit >> 6), UInt64(1) << (bit & 63))
        defer { bits[word] |= flag }
        return bits[word] & flag != 0
    }

    /// Whether the first pass noted an ID that may repeat (else the second pass has nothing to count).
    var hasCandidates: Bool { !candidates.isEmpty }

    /// Second pass: counts `id` if it may repeat.
    mutating func count(_ id: Int) {
        if let seen = candidates[id] { candidates[id] = seen + 1 }
    }

    /// After both passes: how many records repeated an ID of an earlier record.
    var repeats: Int {
        candidates.values.reduce(0) { $0 + max(0, $1 - 1) }
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
