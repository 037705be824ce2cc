#!/usr/bin/env bash
# The favorites service under load, beside PostgreSQL's own limit (issue 48; docs/PERFORMANCE.md).
#
#   Benchmarks/load/run.sh           full: 1,000 users x 1,000 favorites; 1, 16, 64 and 256 clients,
#                                    then 1,000 connections; writes the load section of BENCHMARKS.md
#   Benchmarks/load/run.sh --smoke   CI: 8 users x 50 favorites, 2 clients, 1 s a run: every step runs
#
# One throwaway PostgreSQL (initdb into the run's directory, Unix socket only, default durability),
# and the release archive-server (ARCHIVE_SERVER_BINARY: another build) on each backend in turn:
#   1. users added with `archive-server users add`, favorites pushed through the API (seed.py);
#   2. wrk (load.lua) at each concurrency: "mix" (80 % pushes of 5 changes, 20 % pulls), "push",
#      and "paced" (the mix, each client waiting 250 ms on average between requests, drawn at
#      random as pgbench -R schedules its own: devices do not send in step);
#   3. 1,000 connections of the mix: the server's peak memory (VmHWM);
#   4. "streams": the pushes again with 1,000 event streams open (streams.py, one a user): what an
#      open stream costs in memory, and what telling them costs the pushes;
#   5. the server restarted with TLS (a self-signed P-256 certificate made by openssl), and the
#      "push" and "mix" runs again over HTTPS ("push-tls", "mix-tls"): what TLS costs;
#   6. "balanced" (PostgreSQL): two servers behind HAProxy (deploy/haproxy.cfg as written, its bind
#      and server lines pointed here), both through PgBouncer in transaction mode (their LISTEN
#      direct, --postgres-events), the mix again; pgbench after it through the same PgBouncer;
# on PostgreSQL, each wrk run followed by pgbench running the same statements (push.sql, pull.sql)
# on the same database at the same concurrency and mix: the limit of any service on this
# PostgreSQL on this machine. Each run starts after a VACUUM and a CHECKPOINT.
# Each run also records the CPU seconds the server, PostgreSQL and the load generator used, so
# that the table says where the time went. Results: $FAVORITE_ARCHIVE_BENCH_DIR/load-results.jsonl,
# drawn by report.py.
#
# To look closer: LOAD_BACKENDS="postgres" (or sqlite), LOAD_CLIENTS="64", LOAD_SECONDS=20, and
# LOAD_SCENARIOS="paced" (some of: mix push paced streams push-tls mix-tls balanced), LOAD_STREAMS=1000, LOAD_USERS=1000, LOAD_FAVORITES=1000, LOAD_PERF=1 (perf record of the server during each run, into $FAVORITE_ARCHIVE_BENCH_DIR/perf-*.data),
# LOAD_SERVER_ARGS="--postgres-connections 8" (more options for archive-server).
# To compare builds: ARCHIVE_SERVER_BINARIES="OLD NEW" and LOAD_TURNS=3 run each scenario three
# times, each binary in turn (the server restarted for each, pgbench after each turn), and print
# a row a run (server and PostgreSQL CPU a request, the server's context switches a request)
# instead of writing BENCHMARKS.md: single runs of one build spread more than most changes move.
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD

mode=full
users=1000 favorites=1000 clients=(1 16 64 256) seconds=10 many=1000 streams=1000
if [[ ${1:-} == --smoke ]]; then
  mode=smoke
  users=8 favorites=50 clients=(2) seconds=1 many=16 streams=24
fi
streams=${LOAD_STREAMS:-$streams} users=${LOAD_USERS:-$users} favorites=${LOAD_FAVORITES:-$favorites}
backends=(${LOAD_BACKENDS:-postgres sqlite})
[[ -n ${LOAD_CLIENTS:-} ]] && { read -r -a clients <<<"$LOAD_CLIENTS"; many=""; }
seconds=${LOAD_SECONDS:-$seconds}
# A paced run sends about 250 requests a second at 64 clients: in 10 s its p99 is the 25th
# slowest of 2,500, and it moved up to threefold between full runs of one build (pgbench's:
# 9.7 to 22.6 ms). Paced runs last three times as long (LOAD_PACED_SECONDS), in the full run.
paced_seconds=${LOAD_PACED_SECONDS:-$seconds}
[[ $mode == full && -z ${LOAD_PACED_SECONDS:-} && -z ${LOAD_SECONDS:-} ]] && paced_seconds=$((seconds * 3))
# The paced scenario: each client waits this long on average between its requests (a device, not a loop).
think_ms=250
for tool in wrk python3 sqlite3 bc pgrep /usr/bin/time openssl; do
  command -v "$tool" >/dev/null || { echo "load: $tool is missing: apt-get install -y wrk python3 sqlite3 bc procps time openssl (.ci/run does)" >&2; exit 1; }
done
pg_bin=${ARCHIVE_TEST_POSTGRES_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
for tool in initdb postgres pg_isready psql pgbench createdb; do
  [[ -x $pg_bin/$tool ]] || { echo "load: PostgreSQL's $tool is missing: apt-get install -y postgresql (.ci/run does)" >&2; exit 1; }
done

base=${FAVORITE_ARCHIVE_BENCH_DIR:-${TMPDIR:-/tmp}/favorite-archive-benchmarks}
# PostgreSQL runs as `postgres` under root: its directory must be reachable by it (not a TMPDIR of mode 700).
if ((EUID == 0)); then dir=$(mktemp -d /tmp/archive-load.XXXXXX); else dir=$(mktemp -d "${TMPDIR:-/tmp}/archive-load.XXXXXX"); fi
mkdir -p "$base"
results="$base/load-results.jsonl"
: > "$results"

server_bin=${ARCHIVE_SERVER_BINARY:-}
read -r -a binaries <<<"${ARCHIVE_SERVER_BINARIES:-}"
((${#binaries[@]} > 0)) && server_bin=${binaries[0]}
if [[ -z $server_bin ]]; then
  (cd ../.. && swift build -c release --product archive-server >/dev/null)
  server_bin="$(cd ../.. && swift build -c release --show-bin-path)/archive-server"
fi
((${#binaries[@]} > 0)) || binaries=("$server_bin")
turns=${LOAD_TURNS:-1}
comparing=""
if ((${#binaries[@]} > 1 || turns > 1)); then
  comparing=1
  for scenario in ${LOAD_SCENARIOS:-}; do
    [[ $scenario == mix || $scenario == push || $scenario == paced ]] || { echo "load: builds are compared on mix, push and paced only (LOAD_SCENARIOS)" >&2; exit 1; }
  done
  [[ -n ${LOAD_SCENARIOS:-} ]] || { echo "load: name the scenarios to compare builds on (LOAD_SCENARIOS=\"mix\")" >&2; exit 1; }
fi

run_as=()
if ((EUID == 0)); then
  chmod 755 "$dir"
  chown postgres "$dir"
  run_as=(setpriv --reuid=postgres --regid=postgres --clear-groups --)
fi
server_pid=""
postgres_pid=""
cleanup() {
  declare -F balanced_cleanup >/dev/null && balanced_cleanup
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  [[ -n $postgres_pid ]] && kill -INT "$postgres_pid" 2>/dev/null && wait "$postgres_pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

step() { echo "load: $(date -u +%H:%M:%S) $*"; }

step "PostgreSQL: initdb"
"${run_as[@]}" "$pg_bin/initdb" -D "$dir/pg" -U archive --auth=trust -E UTF8 --locale=C >/dev/null
"${run_as[@]}" "$pg_bin/postgres" -D "$dir/pg" -k "$dir" -c listen_addresses= -c max_connections=600 \
  -c shared_buffers=512MB >"$dir/postgres.log" 2>&1 &
postgres_pid=$!
until "$pg_bin/pg_isready" -q -h "$dir" -U archive; do
  kill -0 "$postgres_pid" 2>/dev/null || { cat "$dir/postgres.log" >&2; exit 1; }
  sleep 0.1
done
"$pg_bin/createdb" -h "$dir" -U archive load
postgres_url="postgres://archive@/load?host=$dir"
psql() { "$pg_bin/psql" -X -q -A -t -h "$dir" -U archive -d load "$@"; }

# Every run's devices start their clocks 12 hours after the last run's, so their stamps always
# win; the first starts a year back, so that no stamp is ever ahead of the service's clock (it
# refuses one more than a day ahead: docs/SYNC.md, "Clocks ahead").
clock=$(python3 -c 'import time; print(int(time.time() * 1000) - 365 * 86400000)')
next_clock() { clock=$((clock + 43200000)); }

# The feed's end of every user, "id seq" a line (load.lua's cursors).
dump_seqs() {
  if [[ $1 == postgres ]]; then psql -F ' ' -c "SELECT id, seq FROM users ORDER BY id" >"$dir/seqs"
  else sqlite3 -separator ' ' "$dir/server.sqlite3" "SELECT id, seq FROM users ORDER BY id" >"$dir/seqs"; fi
}

# record KEY=VALUE... : one line of results.jsonl.
record() { python3 -c 'import json, sys; print(json.dumps({k: (float(v) if v.replace(".", "", 1).isdigit() else v) for k, v in (a.split("=", 1) for a in sys.argv[1:])}))' "$@" >>"$results"; }

memory() { awk -v key="$2:" '$1 == key { print $2 }' "/proc/$1/status"; }   # kB

# CPU seconds a process has used (user + system); with "tree", its reaped children's too (the
# postmaster: every PostgreSQL backend that ended) and its live children's.
ticks=$(getconf CLK_TCK)
cpu() {
  local pid=$1 total
  total=$(awk -v tree="${2:-}" '{ t = $14 + $15; if (tree != "") t += $16 + $17; print t }' "/proc/$pid/stat")
  if [[ ${2:-} == tree ]]; then
    for child in $(pgrep -P "$pid"); do total=$((total + $(awk '{ print $14 + $15 }' "/proc/$child/stat" 2>/dev/null || echo 0))); done
  fi
  echo "scale=3; $total / $ticks" | bc
}

# Context switches of a process's threads (voluntary and not), summed over the threads it has now.
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ { n += $2 } END { print n + 0 }'; }

# pgbench SCENARIO CLIENTS: the same statements as the PostgreSQL backend's, on its database as the
# load left it, right after the backend's run of the same scenario and concurrency.
fields=(-D "photo=https://example.com/archive/photo.jpg" -D "category=洋食" -D "dish=チーズハンバーグ" -D "shop=レストラン北斗"
  -D "intro=肉汁あふれるハンバーグにとろけるチーズ。週末限定の人気メニューです。" -D "users=$users")
pgbench_run() {
  local scenario=$1 c=$2 threads=2 rate=() scripts out postgres_cpu load_cpu duration=$seconds
  [[ $scenario == paced ]] && duration=$paced_seconds
  scripts=(-f "$here/push.sql@80" -f "$here/pull.sql@20"); [[ $scenario == push ]] && scripts=(-f "$here/push.sql")
  # The balanced runs' pgbench goes through the same PgBouncer as their servers.
  local host=$dir port=5432; [[ $scenario == balanced ]] && host=$dir/bouncer port=6432
  next_clock
  settle
  step "pgbench $scenario: $c clients"
  ((c < 2)) && threads=1
  # The paced clients' rate: what c devices waiting think_ms between requests would send
  # at pgbench's own latency (its -R: a Poisson schedule, latency counted from it).
  [[ $scenario == paced ]] && rate=(-R "$(python3 -c "print(max(1, round($c * 1000 / ($think_ms + 5))))")")
  rm -f "$dir"/pgbench_log.*
  postgres_cpu=$(cpu "$postgres_pid" tree)
  out=$(cd "$dir" && command time -f "load_cpu=%U+%S" "$pg_bin/pgbench" -n -M extended -h "$host" -p "$port" -U archive -c "$c" -j "$threads" \
    -T "$duration" "${rate[@]}" -D "stamp=$((clock * 65536))" "${fields[@]}" "${scripts[@]}" --log load 2>&1) || { echo "$out" >&2; exit 1; }
  # Its backends' CPU counts once the postmaster has reaped them.
  reaped
  postgres_cpu=$(echo "$(cpu "$postgres_pid" tree) - $postgres_cpu" | bc)
  load_cpu=$(echo "$(grep -o 'load_cpu=[0-9.+]*' <<<"$out" | cut -d= -f2)" | bc)
  python3 pgbench_log.py "$scenario" "$c" "$out" "$postgres_cpu" "$load_cpu" "$dir"/pgbench_log.* >>"$results"
}

# Before each measured run: the dead rows the runs before it left vacuumed (VACUUM), and
# PostgreSQL's dirty pages written out (CHECKPOINT), so that no run pays for the one before it.
# Without the VACUUM, autovacuum's work on the favorites (a million rows, each run replacing
# about a tenth) fell into whichever run was going when it started, the service's or pgbench's,
# and PostgreSQL's CPU a request rose from run to run by up to a fifth.
settle() { psql -c "VACUUM"; psql -c "CHECKPOINT"; }

# Waits (up to 10 s) until PostgreSQL has no more processes than its own and the pool's.
baseline_children=0
reaped() {
  for _ in $(seq 100); do
    (($(pgrep -c -P "$postgres_pid") <= baseline_children)) && return 0
    sleep 0.1
  done
}

# The TLS runs' certificate: self-signed, P-256, for 127.0.0.1 (wrk does not verify it).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/key.pem" -out "$dir/cert.pem" -days 2 \
  -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null

# start_server BACKEND [OPTIONS...]: archive-server on the backend's storage; sets server_pid and url.
start_server() {
  local backend=$1; shift
  rm -f "$dir/server.url"
  "$server_bin" "${storage[@]}" --port 0 --log-level warning ${LOAD_SERVER_ARGS:-} --max-connections 2000 "$@" >"$dir/server.url" 2>>"$dir/server-$backend.log" &
  server_pid=$!
  until [[ $(head -n 1 "$dir/server.url" 2>/dev/null) == http* ]]; do kill -0 "$server_pid" 2>/dev/null || { cat "$dir/server-$backend.log" >&2; exit 1; }; sleep 0.05; done
  url=$(head -n 1 "$dir/server.url")
}

# balanced: PgBouncer (transaction mode) in front of PostgreSQL, two archive-servers through it
# (their LISTEN direct), HAProxy in front of them with deploy/haproxy.cfg; the mix at each
# concurrency through HAProxy, then pgbench through PgBouncer.
bouncer_pid="" balanced_pids=() haproxy_pid=""
balanced_cleanup() {
  for pid in $haproxy_pid "${balanced_pids[@]}" $bouncer_pid; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  haproxy_pid="" balanced_pids=() bouncer_pid=""
}
balanced() {
  local c threads out line ports=() hport servers_cpu postgres_cpu bouncer_cpu haproxy_cpu wrk_cpu
  step "postgres balanced: PgBouncer, two archive-servers, HAProxy"
  mkdir -p "$dir/bouncer"
  printf '%s\n' '[databases]' "* = host=$dir port=5432" '[pgbouncer]' 'listen_addr =' 'listen_port = 6432' \
    "unix_socket_dir = $dir/bouncer" 'auth_type = trust' "auth_file = $dir/bouncer/users.txt" 'pool_mode = transaction' \
    'max_client_conn = 3000' 'default_pool_size = 40' >"$dir/bouncer/pgbouncer.ini"
  echo '"archive" ""' >"$dir/bouncer/users.txt"
  ((EUID == 0)) && chown -R postgres "$dir/bouncer"
  "${run_as[@]}" pgbouncer "$dir/bouncer/pgbouncer.ini" >"$dir/bouncer/log" 2>&1 &
  bouncer_pid=$!
  until [[ -S $dir/bouncer/.s.PGSQL.6432 ]]; do kill -0 "$bouncer_pid" 2>/dev/null || { cat "$dir/bouncer/log" >&2; exit 1; }; sleep 0.05; done
  for i in 1 2; do
    "$server_bin" --postgres "postgres://archive@/load?host=$dir/bouncer&port=6432" --postgres-events "$postgres_url" --port 0 \
      --log-level warning --max-connections 2000 ${LOAD_SERVER_ARGS:-} >"$dir/balanced-$i.url" 2>>"$dir/server-balanced.log" &
    balanced_pids+=($!)
  done
  for i in 1 2; do
    until [[ $(head -n 1 "$dir/balanced-$i.url" 2>/dev/null) == http* ]]; do kill -0 "${balanced_pids[$((i - 1))]}" 2>/dev/null || { cat "$dir/server-balanced.log" >&2; exit 1; }; sleep 0.05; done
    ports+=("$(head -n 1 "$dir/balanced-$i.url" | sed 's/.*://')")
  done
  hport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  { sed -e "s/^    bind :8080$/    bind 127.0.0.1:$hport/" -e '/^    server /d' ../../deploy/haproxy.cfg
    echo "    server s1 127.0.0.1:${ports[0]} check"; echo "    server s2 127.0.0.1:${ports[1]} check"; } >"$dir/haproxy.cfg"
  haproxy -db -f "$dir/haproxy.cfg" >"$dir/haproxy.log" 2>&1 &
  haproxy_pid=$!
  until python3 -c 'import sys, urllib.request; sys.exit(urllib.request.urlopen(sys.argv[1]).status != 200)' "http://127.0.0.1:$hport/health" 2>/dev/null; do
    kill -0 "$haproxy_pid" 2>/dev/null || { cat "$dir/haproxy.log" >&2; exit 1; }; sleep 0.1
  done
  for c in "${clients[@]}"; do
    dump_seqs postgres
    next_clock
    settle
    step "postgres balanced: $c clients"
    threads=2; ((c < 2)) && threads=1
    servers_cpu=$(echo "$(cpu "${balanced_pids[0]}") + $(cpu "${balanced_pids[1]}")" | bc) postgres_cpu=$(cpu "$postgres_pid" tree)
    bouncer_cpu=$(cpu "$bouncer_pid") haproxy_cpu=$(cpu "$haproxy_pid")
    out=$(command time -f "wrk_cpu=%U+%S" wrk -t "$threads" -c "$c" -d "${seconds}s" --timeout 30s -s load.lua "http://127.0.0.1:$hport" -- \
      "$dir/tokens" "$dir/seqs" 80 "$threads" "$clock" 0 2>"$dir/wrk.err") || { cat "$dir/wrk.err" >&2; exit 1; }
    servers_cpu=$(echo "$(cpu "${balanced_pids[0]}") + $(cpu "${balanced_pids[1]}") - $servers_cpu" | bc)
    postgres_cpu=$(echo "$(cpu "$postgres_pid" tree) - $postgres_cpu" | bc)
    bouncer_cpu=$(echo "$(cpu "$bouncer_pid") - $bouncer_cpu" | bc) haproxy_cpu=$(echo "$(cpu "$haproxy_pid") - $haproxy_cpu" | bc)
    wrk_cpu=$(echo "$(grep -o 'wrk_cpu=[0-9.+]*' "$dir/wrk.err" | cut -d= -f2)" | bc)
    line=$(grep '^RESULT ' <<<"$out" | sed 's/^RESULT //') || { echo "$out" >&2; cat "$dir/wrk.err" >&2; exit 1; }
    python3 -c 'import json, sys; r = json.loads(sys.argv[1]); r.update(kind="wrk", backend="postgres", scenario="balanced", clients=int(sys.argv[2]), server_cpu=float(sys.argv[3]), postgres_cpu=float(sys.argv[4]), bouncer_cpu=float(sys.argv[5]), haproxy_cpu=float(sys.argv[6]), load_cpu=float(sys.argv[7]), rss_kb=0, peak_kb=0, server="two archive-servers", turn=1); print(json.dumps(r))' \
      "$line" "$c" "$servers_cpu" "$postgres_cpu" "$bouncer_cpu" "$haproxy_cpu" "$wrk_cpu" >>"$results"
    if grep -q '"failed":[1-9]' <<<"$line"; then echo "load: requests failed: $line" >&2; grep -v wrk_cpu "$dir/wrk.err" | head -n 5 >&2; exit 1; fi
    baseline_children=$(pgrep -c -P "$postgres_pid")
    pgbench_run balanced "$c"
  done
  balanced_cleanup
}

for backend in "${backends[@]}"; do
  step "$backend: archive-server"
  if [[ $backend == postgres ]]; then storage=(--postgres "$postgres_url"); else storage=(--database "$dir/server.sqlite3"); fi
  : >"$dir/server-$backend.log"
  start_server "$backend"
  step "$backend: $users users"
  # Each user's three devices, each with its own token (one line a user: d1 d2 d3).
  : >"$dir/tokens"
  for ((user = 1; user <= users; user++)); do
    echo "$("$server_bin" users add "u$user" --device d1 "${storage[@]}" 2>/dev/null)" \
      "$("$server_bin" devices add "u$user" d2 "${storage[@]}" 2>/dev/null)" \
      "$("$server_bin" devices add "u$user" d3 "${storage[@]}" 2>/dev/null)" >>"$dir/tokens"
  done
  step "$backend: $favorites favorites each, pushed"
  # Seeded a day before the first run's clock: every push of the load replaces a favorite
  # with a later stamp, and lands (a seed newer than the runs' clocks made every push superseded).
  python3 seed.py "$url" "$dir/tokens" "$favorites" "$((clock - 86400000))"
  if [[ $backend == postgres ]]; then
    # pgbench's statements admit only a device whose token is bound to it (as the server's one
    # statement does); an unbound one would make pgbench skip the merge and measure less work.
    unbound=$(psql -c "SELECT count(*) FROM device_tokens WHERE device IS NULL")
    [[ $unbound == 0 ]] || { echo "run.sh: $unbound device tokens are not bound after the seed" >&2; exit 1; }
    psql -c "VACUUM ANALYZE"
  fi
  record kind=memory backend="$backend" state=seeded rss_kb="$(memory "$server_pid" VmRSS)"
  for scenario in ${LOAD_SCENARIOS:-mix push paced streams push-tls mix-tls balanced}; do
    [[ $scenario == balanced ]] && continue  # below, once the single server's runs are done
    percent=80 pause=0
    [[ $scenario == push* || $scenario == streams ]] && percent=100
    [[ $scenario == paced ]] && pause=$think_ms
    if [[ $scenario == streams ]]; then
      step "$backend: $streams event streams"
      rss_before=$(memory "$server_pid" VmRSS)
      mkfifo "$dir/streams.in"
      python3 streams.py "$url" "$dir/tokens" "$streams" <"$dir/streams.in" >"$dir/streams.out" 2>"$dir/streams.err" &
      streams_pid=$!
      exec {streams_in}>"$dir/streams.in"
      for _ in $(seq 600); do grep -q '^open' "$dir/streams.out" && break; kill -0 "$streams_pid" 2>/dev/null || break; sleep 0.1; done
      grep -q '^open' "$dir/streams.out" || { echo "load: the event streams did not open" >&2; cat "$dir/streams.err" >&2; exit 1; }
      record kind=streams backend="$backend" streams="$streams" rss_before_kb="$rss_before" rss_open_kb="$(memory "$server_pid" VmRSS)"
    fi
    if [[ $scenario == push-tls ]]; then
      step "$backend: archive-server with TLS"
      kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
      start_server "$backend" --tls-certificate "$dir/cert.pem" --tls-key "$dir/key.pem"
    fi
    for c in "${clients[@]}" ${many:+$many}; do
      [[ $c == "$many" && $scenario != mix ]] && continue
      # With streams open: the pushes at 64 clients (the issue's measure), every client count in smoke.
      [[ $scenario == streams && $mode == full && $c != 64 ]] && continue
      for ((turn = 1; turn <= turns; turn++)); do
        for bin in "${binaries[@]}"; do
          if [[ -n $comparing ]]; then
            kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
            server_bin=$bin
            start_server "$backend"
          fi
          dump_seqs "$backend"
          next_clock
          settle
          step "$backend $scenario: $c clients${comparing:+, $(basename "$server_bin") turn $turn}"
          threads=2; ((c < 2)) && threads=1
          duration=$seconds; [[ $scenario == paced ]] && duration=$paced_seconds
          server_cpu=$(cpu "$server_pid") postgres_cpu=$(cpu "$postgres_pid" tree) server_cs=$(switches "$server_pid")
          perf_pid=""
          if [[ -n ${LOAD_PERF:-} ]]; then
            perf record -F 499 -g -o "$base/perf-$backend-$scenario-$c.data" -p "$server_pid" -- sleep "$duration" >/dev/null 2>&1 &
            perf_pid=$!
          fi
          out=$(command time -f "wrk_cpu=%U+%S" wrk -t "$threads" -c "$c" -d "${duration}s" --timeout 30s -s load.lua "$url" -- \
            "$dir/tokens" "$dir/seqs" "$percent" "$threads" "$clock" "$pause" 2>"$dir/wrk.err") || { cat "$dir/wrk.err" >&2; exit 1; }
          [[ -n $perf_pid ]] && wait "$perf_pid"
          server_cpu=$(echo "$(cpu "$server_pid") - $server_cpu" | bc) postgres_cpu=$(echo "$(cpu "$postgres_pid" tree) - $postgres_cpu" | bc)
          server_cs=$(($(switches "$server_pid") - server_cs))
          wrk_cpu=$(echo "$(grep -o 'wrk_cpu=[0-9.+]*' "$dir/wrk.err" | cut -d= -f2)" | bc)
          line=$(grep '^RESULT ' <<<"$out" | sed 's/^RESULT //') || { echo "$out" >&2; cat "$dir/wrk.err" >&2; exit 1; }
          python3 -c 'import json, sys; r = json.loads(sys.argv[1]); r.update(kind="wrk", backend=sys.argv[2], scenario=sys.argv[3], clients=int(sys.argv[4]), rss_kb=int(sys.argv[5]), peak_kb=int(sys.argv[6]), server_cpu=float(sys.argv[7]), postgres_cpu=float(sys.argv[8]), load_cpu=float(sys.argv[9]), think_ms=int(sys.argv[10]), server_switches=int(sys.argv[11]), server=sys.argv[12], turn=int(sys.argv[13])); print(json.dumps(r))' \
            "$line" "$backend" "$scenario" "$c" "$(memory "$server_pid" VmRSS)" "$(memory "$server_pid" VmHWM)" "$server_cpu" "$postgres_cpu" "$wrk_cpu" "$pause" "$server_cs" "$(basename "$server_bin")" "$turn" >>"$results"
          if grep -q '"failed":[1-9]' <<<"$line"; then echo "load: requests failed: $line" >&2; grep -v wrk_cpu "$dir/wrk.err" | head -n 5 >&2; exit 1; fi
        done
        if [[ $backend == postgres && $c != "$many" && $scenario != *-tls && $scenario != streams ]]; then
          baseline_children=$(pgrep -c -P "$postgres_pid")
          pgbench_run "$scenario" "$c"
        fi
      done
    done
    if [[ $scenario == streams ]]; then
      exec {streams_in}>&-
      wait "$streams_pid"
      heard=$(tail -n 1 "$dir/streams.out")
      python3 -c 'import json, sys; r = json.loads(sys.argv[1]); r.update(kind="streams-heard", backend=sys.argv[2]); print(json.dumps(r))' "$heard" "$backend" >>"$results"
      rm -f "$dir/streams.in"
    fi
  done
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
  if [[ $backend == postgres && " ${LOAD_SCENARIOS:-balanced} " == *" balanced "* ]]; then balanced; fi
done

if [[ -n $comparing ]]; then
  python3 report.py --turns "$results"
  exit 0
fi
python3 report.py "$results" >"$base/load.md"
if [[ $mode == full ]]; then
  python3 report.py --into ../../BENCHMARKS.md "$results"
  echo "load: wrote the load section of BENCHMARKS.md"
else
  cat "$base/load.md"
fi
