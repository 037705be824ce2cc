#if os(Linux)
import CMalloc
#endif

/// Has glibc's malloc keep the memory a bulk command frees, for the command's next
/// allocations, instead of handing it back to the kernel and faulting it in again.
///
/// An export reads its favorites a page at a time (5,000 rows, a few MB each). By
/// default glibc gives a large freed block back (`munmap`, or trimming the heap's
/// top once more than twice the mapping threshold is free), so every page's buffers
/// came back as fresh pages the kernel had to zero: 170,000 page faults and 1.4 s of
/// system time in an export of a million favorites. With blocks up to 32 MB taken
/// from the heap and up to 64 MB of free heap kept, the same export faults 2,270
/// times and takes 3.96 s beside `sqlite3 -json`'s 4.71, where the two were even
/// (runs taking turns), with the same peak resident memory (20 MB; `perf stat`,
/// `/usr/bin/time`, docs/PERFORMANCE.md). The peak cannot grow by it: memory kept was resident
/// when it was last in use.
public enum FreedMemoryReuse {
    /// Sets the two thresholds for the rest of the process (glibc; elsewhere nothing).
    public static func enable() {
        #if os(Linux)
        _ = mallopt(M_MMAP_THRESHOLD, 32 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 64 << 20)
        #endif
    }
}
