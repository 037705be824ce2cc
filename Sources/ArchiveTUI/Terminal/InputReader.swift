import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads stdin on a thread of its own (a blocking `read`) and hands the decoded keys on.
enum InputReader {
    /// Starts the reading thread; `keys` is called with each chunk's keys, from that thread.
    static func start(_ keys: @escaping @Sendable ([Key]) -> Void) {
        let thread = Thread {
            var decoder = KeyDecoder()
            var buffer = [UInt8](repeating: 0, count: 256)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else {
                    keys([.control("c")])  // stdin closed: quit
                    return
                }
                let decoded = decoder.decode(buffer[0..<count])
                if !decoded.isEmpty { keys(decoded) }
            }
        }
        thread.name = "archive-tui input"
        thread.start()
    }
}
