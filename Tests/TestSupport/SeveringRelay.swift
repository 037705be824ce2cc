import Foundation

/// A TCP relay on 127.0.0.1 to a PostgreSQL's Unix socket that severs (closes both ends of)
/// the first connection whose client sends bytes holding `marker`, before passing them on:
/// a connection lost under a statement, as a balancer taking its node out or a pooler
/// restarting does. Every other connection, before and after, passes untouched. A small
/// Python program (threads, plain sockets), stopped when the relay is released.
public final class SeveringRelay {
    /// The port to give the client, in `postgres://USER@127.0.0.1:PORT/DATABASE?sslmode=disable`.
    public let port: String
    private let process: ChildProcess

    /// A relay to the PostgreSQL listening in `socketDirectory` (its `.s.PGSQL.5432`).
    public init(to socketDirectory: String, severingFirstSending marker: String) throws {
        let script = """
            import socket, sys, threading
            target, marker = sys.argv[1], sys.argv[2].encode()
            lock = threading.Lock(); state = {"severed": False}
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
            print(s.getsockname()[1], flush=True)
            def pipe(a, b, watch):
                try:
                    while True:
                        data = a.recv(65536)
                        if not data: break
                        if watch and marker in data:
                            with lock:
                                sever = not state["severed"]; state["severed"] = True
                            if sever:
                                print("severed", flush=True)
                                break
                        b.sendall(data)
                except OSError: pass
                for c in (a, b):
                    try: c.shutdown(socket.SHUT_RDWR)
                    except OSError: pass
            while True:
                c, _ = s.accept()
                u = socket.socket(socket.AF_UNIX); u.connect(target)
                threading.Thread(target=pipe, args=(c, u, True), daemon=True).start()
                threading.Thread(target=pipe, args=(u, c, False), daemon=True).start()
            """
        let child = try ChildProcess("/usr/bin/python3", ["-c", script, socketDirectory + "/.s.PGSQL.5432", marker], streamingStdout: true)
        guard let listening = child.nextLine()?.trimmingCharacters(in: .whitespacesAndNewlines), Int(listening) != nil else {
            child.signal(SIGKILL)
            child.wait()
            throw TestPostgres.Unavailable(description: "the severing relay did not start")
        }
        process = child
        port = listening
    }

    deinit {
        process.signal(SIGKILL)
        process.wait()
    }

    /// The URL of `direct`'s database (a ``TestPostgres/newDatabase()`` URL, on the socket
    /// this relay relays to) through the relay, as user `archive`.
    public func url(of direct: String) throws -> String {
        guard let name = direct.split(separator: "@/").last?.split(separator: "?").first else {
            throw TestPostgres.Unavailable(description: "not a test database's URL: \(direct)")
        }
        return "postgres://archive@127.0.0.1:\(port)/\(name)?sslmode=disable"
    }

    /// Waits for the relay to have severed its connection (`true`), or to have ended without.
    public func severed() -> Bool {
        process.nextLine() == "severed"
    }
}
