#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A recursive mutex: the thread that holds it may lock it again (``DatabaseQueue``'s
/// calls nest), and must unlock it as many times.
///
/// Foundation's `NSRecursiveLock` does the same, but it is not in FoundationEssentials,
/// the only Foundation the engine links (full Foundation costs an embedding process
/// about 3 MB of resident memory). Wrapped as GRDB wraps C: this class owns the
/// `pthread_mutex_t`, which lives at a stable address for its whole life, and
/// `deinit` destroys it. It is not `Sendable` itself: ``DatabaseQueue`` keeps it in
/// a `let` and shares it across threads under its own documented conformance.
final class RecursiveLock {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates an unlocked recursive mutex.
    init() {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
        // With valid attributes, initialization fails only when the system is out of
        // memory, which a mutex this small cannot recover from either.
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Waits until the calling thread holds the mutex.
    func lock() {
        pthread_mutex_lock(mutex)
    }

    /// Releases one hold of the calling thread.
    func unlock() {
        pthread_mutex_unlock(mutex)
    }
}
