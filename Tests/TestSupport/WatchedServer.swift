/// The shell wrapper that keeps a server of the tests (PgBouncer, a standby): it starts the
/// server in the background, says `ready` once the server answers, and stops it (SIGINT,
/// then waits for it) and removes its directory on SIGTERM, or once the test process is
/// gone, however that ended. Run as `sh -c SCRIPT sh BINARY ROOT TEST_PID`: the script sees
/// `$bin`, `$root` and `$watched`.
enum WatchedServer {
    /// The wrapper for a server that `start` launches (in the background; its log in
    /// `$root/<log>`, printed if it dies first) and that `ready` (a shell condition) says answers.
    static func script(start: String, ready: String, log: String) -> String {
        """
        bin=$1; root=$2; watched=$3
        \(start) >>"$root/\(log)" 2>&1 &
        server=$!
        until \(ready); do
            kill -0 $server 2>/dev/null || { cat "$root/\(log)" >&2; rm -rf "$root"; exit 1; }
            sleep 0.05
        done
        echo ready
        stop() { kill $nap 2>/dev/null; kill -INT $server 2>/dev/null; wait $server; rm -rf "$root"; exit 0; }
        trap stop TERM INT
        while [ -d /proc/$watched ]; do sleep 0.5 & nap=$!; wait $nap; done
        stop
        """
    }
}
