#if canImport(Glibc)
import Glibc
#endif

/// A symbol that libdispatch exports but declares in no public header, found by name
/// when the process starts, never linked against.
///
/// A symbol declared `extern` and renamed by the next toolchain fails the link; one
/// looked up here is simply absent, and every caller has a working fallback (the
/// public path an async `main` takes), so a toolchain that drops one of them costs
/// start-up speed, never a build or a command. This is how SwiftNIO takes over the
/// concurrency runtime's global executor (`NIOPosix/PosixSingletons+ConcurrencyTakeOver.swift`).
///
/// `dlsym` sees what the process exports dynamically: a shared libdispatch does; the
/// static one (`--static-swift-stdlib`, the install) builds these two hidden, so a
/// static `archive` always runs on the fallback (docs/PERFORMANCE.md measures what that
/// costs: about a tenth of a millisecond).
enum RuntimeSymbol {
    /// libdispatch: the eventfd that becomes readable when the main queue has work
    /// (what CoreFoundation's run loop waits on, swift-corelibs-foundation `CFRunLoop.c`).
    static let dispatchMainQueueHandle = "_dispatch_get_main_queue_handle_4CF"
    /// libdispatch: runs what the main queue holds, on the calling thread.
    static let dispatchMainQueueCallback = "_dispatch_main_queue_callback_4CF"

    /// The environment variable that makes every lookup fail, so that the fallbacks
    /// can be tried on the real binary (the tests do, and anyone may).
    static let fallbackVariable = "ARCHIVE_STARTUP_FALLBACK"

    /// Whether lookups are refused (``fallbackVariable`` is set to anything but `0` or empty).
    static let fallbackForced: Bool = {
        guard let value = getenv(fallbackVariable) else { return false }
        let text = String(cString: value)
        return !text.isEmpty && text != "0"
    }()

    /// The address of `name` in this process, or `nil` when it is not exported (or
    /// ``fallbackForced``).
    static func address(of name: String) -> UnsafeMutableRawPointer? {
        guard !fallbackForced else { return nil }
        #if canImport(Glibc)
        // The program itself and every library it loaded, in load order.
        return dlsym(dlopen(nil, RTLD_NOW), name)
        #else
        return nil
        #endif
    }
}
