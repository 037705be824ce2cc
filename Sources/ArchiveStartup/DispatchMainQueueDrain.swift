/// libdispatch's two calls for a run loop that serves the main queue on the main
/// thread, the pair CoreFoundation's `CFRunLoop` uses on Linux: found at run time
/// (``RuntimeSymbol``), so a libdispatch without them leaves ``MainThreadRunLoop``
/// on its fallback, `dispatch_main()`.
struct DispatchMainQueueDrain {
    private typealias HandleFunction = @convention(c) () -> Int32
    private typealias CallbackFunction = @convention(c) (UnsafeMutableRawPointer?) -> Void

    /// The eventfd that becomes readable when the main queue has work.
    let handle: Int32
    private let callback: CallbackFunction

    /// Both calls, and a handle to wait on; `nil` if either is absent or libdispatch
    /// gives no handle.
    init?() {
        guard let handleAddress = RuntimeSymbol.address(of: RuntimeSymbol.dispatchMainQueueHandle),
              let callbackAddress = RuntimeSymbol.address(of: RuntimeSymbol.dispatchMainQueueCallback)
        else { return nil }
        // The C signatures libdispatch has exported them with since 2016 (`queue_internal.h`):
        // `dispatch_runloop_handle_t (void)` (an int on Linux) and `void (void *)`.
        let handle = unsafeBitCast(handleAddress, to: HandleFunction.self)()
        guard handle >= 0 else { return nil }
        self.handle = handle
        self.callback = unsafeBitCast(callbackAddress, to: CallbackFunction.self)
    }

    /// Runs what the main queue holds, on the calling thread (the main thread).
    func drain() {
        callback(nil)
    }
}
