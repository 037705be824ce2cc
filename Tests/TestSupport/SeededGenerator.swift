/// A small seeded generator (SplitMix64): every run of a suite draws the same
/// cases, and a failing case can be replayed from its seed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The seed it started from, to print when a generated case fails.
    public let seed: UInt64
    private var state: UInt64

    /// A generator starting at `seed`.
    public init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    /// A generator with a fresh random seed (print ``seed`` with any failure).
    public static func random() -> SeededGenerator {
        SeededGenerator(seed: UInt64.random(in: 0...UInt64.max))
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
