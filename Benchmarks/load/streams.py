"""Holds event streams open on archive-server while the load runs (run.sh's "streams" scenario).

    python3 streams.py URL TOKENS COUNT

Opens COUNT streams (GET /v1/sync/events), one per user first (each line of TOKENS is a user's
devices' tokens; the third is used, then the second, the first: a user holds at most 8), prints
"open COUNT" once every stream has its first line, then reads them until stdin closes, counting
the "event: feed" each stream hears; at the end prints one JSON line: {"streams", "events",
"closed"} (streams the server ended before stdin did).
"""
import json
import resource
import selectors
import socket
import sys
from urllib.parse import urlsplit


def main() -> int:
    url, tokens_path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, count + 64)), hard))
    users = [line.split() for line in open(tokens_path) if line.strip()]
    tokens = [user[-1 - (i // len(users)) % len(user)] for i, user in ((i, users[i % len(users)]) for i in range(count))]
    address = urlsplit(url)
    selector = selectors.DefaultSelector()
    pending = {}
    for token in tokens:
        connection = socket.create_connection((address.hostname, address.port))
        connection.sendall(f"GET /v1/sync/events HTTP/1.1\r\nHost: {address.hostname}\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_READ)
        pending[connection] = b""
    selector.register(sys.stdin, selectors.EVENT_READ)
    opened, events, closed = set(), 0, 0
    announced = False
    while True:
        for key, _ in selector.select(timeout=60):
            if key.fileobj is sys.stdin:
                if not sys.stdin.readline():
                    print(json.dumps({"streams": len(opened), "events": events, "closed": closed}), flush=True)
                    return 0
                continue
            connection = key.fileobj
            data = connection.recv(65536)
            if not data:
                selector.unregister(connection)
                connection.close()
                closed += 1
                continue
            buffer = pending[connection] + data
            if connection not in opened:
                if len(buffer) >= 12 and not buffer.startswith(b"HTTP/1.1 200"):
                    print(f"streams: refused: {buffer[:200]!r}", file=sys.stderr)
                    return 1
                if b"retry: 2000" not in buffer:
                    pending[connection] = buffer
                    continue
                opened.add(connection)
            events += buffer.count(b"event: feed")
            # Kept: a tail too short to hold a whole event, so none is counted twice.
            pending[connection] = buffer[-10:]
        if not announced and len(opened) == count:
            print(f"open {count}", flush=True)
            announced = True


if __name__ == "__main__":
    sys.exit(main())
