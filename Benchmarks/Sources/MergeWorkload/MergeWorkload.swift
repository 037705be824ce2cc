/// The IDs every merge benchmark asks, shared by the harness's peers and the
/// standalone merge process (which links nothing but the engine and this).
public enum MergeWorkload {
    /// 50 consecutive IDs starting at a deterministic point: about half of them
    /// stored among the favorites 2, 4, …, 2 × `count`.
    public static func ids(for count: Int, iteration: Int) -> [Int] {
        var generator = SplitMix64(seed: UInt64(iteration) &+ 0x9E37_79B9)
        let start = Int(generator.next() % UInt64(max(1, 2 * count - 50))) + 1
        return Array(start..<(start + 50))
    }
}
