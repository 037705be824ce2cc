#if os(Linux)
import CMalloc
#endif

/// Keeps glibc's malloc from moving its mapping threshold while the server runs.
///
/// By default glibc raises the size from which a block is mapped on its own (`mmap`) each
/// time it frees a mapped block larger than the threshold: after the first large push (a
/// device's first sync, a megabyte of favorites) the threshold sat at a megabyte, the
/// requests' buffers of 64 kB and more came from the heap instead, and each one freed made
/// glibc consolidate its free lists. The server's own CPU a request rose by a third
/// (0.31 → 0.43 ms in the mix at 64 clients after `seed.py`'s pushes) and stayed there for the
/// life of the process. Set once, the threshold stays at glibc's own starting value, 128 kB:
/// the rare large body is mapped and unmapped, as on the first day (docs/PERFORMANCE.md,
/// "A steady malloc threshold").
enum SteadyMallocThreshold {
    /// glibc's default starting threshold.
    static let bytes: Int32 = 128 << 10

    /// Sets it for the rest of the process (glibc; elsewhere nothing).
    static func enable() {
        #if os(Linux)
        _ = mallopt(M_MMAP_THRESHOLD, bytes)
        #endif
    }
}
