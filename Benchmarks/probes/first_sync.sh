#!/usr/bin/env bash
# A first sync beside the import it should cost about as much as (issue 76; the probe behind
# docs/PERFORMANCE.md's "The wire's JSON by hand"): N favorites in the export format imported
# into a new file, that file's first push to an empty service (SQLite backend), and a new
# device's first pull of them, each timed by /usr/bin/time, with the service's CPU time.
#
#   BIN=.build-release/release [SERVER_FLAGS="--max-page 5000"] bash Benchmarks/probes/first_sync.sh [N]    (N: 100000)
set -euo pipefail
count=${1:-100000}
bin=$(cd "${BIN:?BIN names the directory of release archive and archive-server binaries}" && pwd)
work=$(mktemp -d)
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"
python3 - "$count" favorites.json <<'PY'
import json, sys
n = int(sys.argv[1])
rows = [{"id": i, "photoUrl": f"https://photos.example/{i}.jpg", "category": ["和食", "洋食", "中華"][i % 3],
         "dishName": f"チーズハンバーグ {i}", "shopName": "レストラン北斗",
         "introduction": "肉汁あふれるハンバーグにとろけるチーズ。週末限定の人気メニューです。",
         "storedAt": "2026-01-01T00:00:00.000Z"} for i in range(1, n + 1)]
json.dump(rows, open(sys.argv[2], "w"), ensure_ascii=False)
PY
cpu() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$1/stat"; }
timed() {  # timed LABEL COMMAND…: runs it, its output and messages dropped, and prints its times
  local label=$1
  shift
  /usr/bin/time -o timing -f "$label %e s (CPU %U + %S s)" "$@" > /dev/null 2> messages < "${input:-/dev/null}"
  cat timing
}
timed "import     " "$bin/archive" import favorites.json --database imported.sqlite3
"$bin/archive-server" users add alice --database server.sqlite3 > first.token 2> /dev/null
"$bin/archive-server" devices add alice laptop --database server.sqlite3 > second.token 2> /dev/null
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin/archive-server" --database server.sqlite3 --port "$port" ${SERVER_FLAGS:-} > server.out 2> server.err &
server=$!
until grep -q 127.0.0.1 server.out 2> /dev/null; do sleep 0.1; done
before=$(cpu "$server")
input=first.token timed "first push " "$bin/archive" sync --server "http://127.0.0.1:$port" --token-stdin --database imported.sqlite3
middle=$(cpu "$server")
printf '            service CPU %.2f s\n' "$(echo "$middle - $before" | bc)"
input=second.token timed "first pull " "$bin/archive" sync --server "http://127.0.0.1:$port" --token-stdin --database pulled.sqlite3
printf '            service CPU %.2f s\n' "$(echo "$(cpu "$server") - $middle" | bc)"
