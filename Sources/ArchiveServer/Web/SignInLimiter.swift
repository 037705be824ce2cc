import Synchronization

/// Counts failed sign-ins by the address they came from: past ``maximumFailures`` within
/// ``window`` an address is refused (`429`) until its window ends, whatever link it sends.
/// A link's secret has 256 bits, so guessing cannot succeed anyway; this keeps a guesser
/// from costing the database a transaction per try. Behind a proxy every client has the
/// proxy's address (a forwarded header is not believed: any client can write one).
public final class SignInLimiter: Sendable {
    /// Failures allowed an address within ``window``.
    public let maximumFailures: Int
    /// The window, in milliseconds.
    public let window: Int64
    /// Addresses remembered at most; past it the oldest windows are forgotten.
    public let maximumAddresses: Int

    private struct Window {
        var start: Int64
        var failures: Int
    }

    private let windows = Mutex([String: Window]())

    /// A limiter allowing `maximumFailures` failed sign-ins an address per `window` ms.
    public init(maximumFailures: Int = 10, window: Int64 = 60_000, maximumAddresses: Int = 10_000) {
        self.maximumFailures = maximumFailures
        self.window = window
        self.maximumAddresses = maximumAddresses
    }

    /// How many milliseconds `address` must wait before trying again at `now`, or `nil`
    /// when it may try now.
    public func wait(for address: String, now: Int64) -> Int64? {
        windows.withLock { windows in
            guard let current = windows[address], now - current.start < window else { return nil }
            return current.failures >= maximumFailures ? window - (now - current.start) : nil
        }
    }

    /// Records a failed sign-in from `address` at `now`.
    public func failed(_ address: String, now: Int64) {
        windows.withLock { windows in
            if var current = windows[address], now - current.start < window {
                current.failures += 1
                windows[address] = current
                return
            }
            if windows.count >= maximumAddresses {
                windows = windows.filter { now - $0.value.start < window }
                if windows.count >= maximumAddresses, let oldest = windows.min(by: { $0.value.start < $1.value.start })?.key {
                    windows[oldest] = nil
                }
            }
            windows[address] = Window(start: now, failures: 1)
        }
    }
}
