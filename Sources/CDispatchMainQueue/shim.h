// libdispatch's two entry points for a run loop that serves the main queue on
// the main thread: what CoreFoundation's CFRunLoop calls on Linux (swift-corelibs-
// foundation, CFRunLoop.c), exported by every libdispatch of the toolchain, the
// static one included, but declared in none of its public headers.

/// The file descriptor (an eventfd) that becomes readable when the main queue has work.
extern int _dispatch_get_main_queue_handle_4CF(void);

/// Runs what the main queue holds, on the calling thread (the main thread). `msg` is unused on Linux.
extern void _dispatch_main_queue_callback_4CF(void *msg);
