import ArchiveTransfer
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Ends the process on SIGINT, SIGTERM or SIGHUP only after removing the
/// temporary files it was writing (an export's `.partial-*`, an import's spool),
/// so that an interrupted command leaves nothing of itself behind. The database
/// needs nothing: an interrupted transaction is rolled back when it is next opened.
public enum InterruptCleanup {
    /// Installs the handlers (once per process; later calls do nothing).
    public static func install() {
        _ = sources
    }

    // nonisolated(unsafe): the sources are not Sendable, but this constant is
    // initialized once (Swift runs a static's initializer exactly once, thread-safely)
    // and never read afterwards: it only keeps the sources alive.
    nonisolated(unsafe) private static let sources: [any DispatchSourceSignal] = {
        let queue = DispatchQueue(label: "favorite-archive.interrupt-cleanup")
        return [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                PartialFiles.shared.removeAll()
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }()
}
