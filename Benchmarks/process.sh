#!/usr/bin/env bash
# Whole-process benchmarks: what a user of the `archive` command feels, each
# measured side by side with the command they would use instead, by hyperfine in
# rounds that take turns (`in_rounds`; warm page cache, `-N`: no shell in between).
#
#   Benchmarks/process.sh OUTPUT.json            full run
#   Benchmarks/process.sh --smoke OUTPUT.json    CI: a few runs each, so nothing rots
#
# Needs hyperfine and sqlite3 (Debian: apt-get install hyperfine sqlite3) and
# the release `archive` of this build (run.sh builds it), or the one ARCHIVE_BINARY names.
# A smoke run builds its helpers in debug: it checks that the rows run, not what they measure.
set -euo pipefail
cd "$(dirname "$0")"

runs=60
warmup=10
rounds=5   # each row's commands take turns, a round of runs/rounds each (merge_rounds.py)
smoke=0
config=release
if [[ ${1:-} == --smoke ]]; then
  config=debug
  runs=3
  warmup=1
  rounds=1
  smoke=1
  shift
fi
output=${1:?usage: process.sh [--smoke] OUTPUT.json}

swift build -c "$config" --product MergeProcess
swift build -c "$config" --product RawCMergeProcess
swift build -c "$config" --product PeakRSS
swift build -c "$config" --product AsyncFloor
archive=${ARCHIVE_BINARY:-"$(swift build -c "$config" --show-bin-path)/archive"}
[[ -x $archive ]] || { echo "error: no archive binary at $archive (run.sh builds it; ARCHIVE_BINARY names another)" >&2; exit 1; }
# A full run also measures the same `archive` built as `scripts/install.sh` builds it (its
# flags, and what each saves: docs/PERFORMANCE.md, "The install build").
static_archive=""
if ((!smoke)); then
  mapfile -t static_flags < <(bash ../scripts/install.sh --print-flags "$PWD/.build-static")
  ((${#static_flags[@]})) || { echo "error: scripts/install.sh --print-flags printed no flags" >&2; exit 1; }
  static_flags+=(--scratch-path .build-static)
  swift build "${static_flags[@]}" --product archive
  swift build "${static_flags[@]}" --product MergeProcess
  swift build "${static_flags[@]}" --product AsyncFloor
  static_bin="$(swift build "${static_flags[@]}" --show-bin-path)"
  static_archive="$static_bin/archive"
  # What the install command promises: no libstdc++.so and no runpath in what is measured.
  for binary in "$static_archive" "$static_bin/MergeProcess" "$static_bin/AsyncFloor"; do
    if readelf --dynamic "$binary" | grep -E 'libstdc\+\+|RUNPATH|RPATH' >&2; then
      echo "error: $binary still loads libstdc++.so or has a runpath" >&2
      exit 1
    fi
  done
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A 1,000-favorite database, filled through the product itself (the bundled
# catalog's 洋食 dishes 17, 21 and 33 among them).
database="$work/favorites.sqlite3"
python3 - "$work/favorites.json" <<'PY'
import json, sys
rows = [{"id": i, "photoUrl": f"https://photos.example/{i}.jpg", "category": ["和食", "洋食", "中華"][i % 3],
         "dishName": f"料理 {i}", "shopName": "店", "introduction": "チーズ" if i % 7 == 0 else "紹介",
         "storedAt": "2026-01-01T00:00:00.000Z"} for i in range(1, 1001)]
json.dump(rows, open(sys.argv[1], "w"), ensure_ascii=False)
PY
"$archive" import "$work/favorites.json" --database "$database" > /dev/null 2> "$work/import.log" || { cat "$work/import.log" >&2; exit 1; }

rows=()
# One hyperfine run: ours (and the static build of ours), then the peer.
# In the command and the prepare templates, {archive} is the binary measured.
# compare NAME COMMAND PEER [PREPARE PEER_PREPARE] -- [hyperfine options...]
# (ROUNDS=… RUNS=… WARMUP=… before `compare` change the rounds and runs of one row.)
compare() {
  local name=$1 template=$2 peer=$3
  shift 3
  local prepare="" peer_prepare=""
  if [[ ${1:-} != -- ]]; then prepare=$1 peer_prepare=$2; shift 2; fi
  shift  # --
  local binaries=("$archive") names=(archive)
  [[ -n $static_archive ]] && binaries+=("$static_archive") names+=(archive-static)
  local commands=() prepares=()
  for index in "${!binaries[@]}"; do
    commands+=(-n "${names[$index]}" "${template//\{archive\}/${binaries[$index]}}")
    [[ -n $prepare ]] && prepares+=(--prepare "${prepare//\{archive\}/${binaries[$index]}}")
  done
  commands+=(-n peer "$peer")
  [[ -n $peer_prepare ]] && prepares+=(--prepare "$peer_prepare")
  in_rounds "$name" "${ROUNDS:-$rounds}" "${RUNS:-$runs}" "${WARMUP:-$warmup}" "$@" "${prepares[@]}" "${commands[@]}"
}

# in_rounds NAME ROUNDS RUNS WARMUP HYPERFINE-ARGUMENTS...: times the commands in ROUNDS
# hyperfine runs of RUNS/ROUNDS runs each (every command, then every command again), so
# that a burst of load from the host's neighbours falls on every command alike instead of
# on whichever one hyperfine was timing; the rounds' times are pooled into $work/NAME.json.
in_rounds() {
  local name=$1 count=$2 total=$3 warm=$4
  shift 4
  local per_round=$(( (total + count - 1) / count )) round
  for ((round = 0; round < count; round++)); do
    hyperfine --warmup "$warm" --runs "$per_round" --style none "$@" \
      --export-json "$work/$name.round$round.json" > /dev/null
  done
  python3 merge_rounds.py "$work/$name.json" "$work/$name".round*.json
  rows+=("$work/$name.json")
  echo "measured $name"
}

# Cold start: a search of the bundled catalog merged with the stored favorites.
compare cold-search \
  "{archive} search チーズ --category 洋食 --database $database" \
  "sqlite3 $database 'select id from archive_objects where id in (17,21,33)'" -- -N

# What bounds the cold rows, in one hyperfine run beside the same peer (a full run times
# the static builds): a program linking only the engine (MergeProcess: open the same file, check its
# migrations, one merge of 50 IDs, print, exit), and a Swift program that awaits one detached
# task from its main actor (AsyncFloor: the runtime's floor for any command that awaits work off
# the main thread, as every `archive` command's store does), served by the main thread's own
# loop as `archive` is (MainThreadRunLoop), the same with the task kept on the main thread as
# `archive search`, `add` and `remove` run, and by dispatch_main() as an async `main` is.
# A smoke run times the dynamic builds.
floor_bin=${static_bin:-$(swift build -c "$config" --show-bin-path)}
in_rounds floors "$rounds" "$runs" "$warmup" -N \
  -n engine-only "$floor_bin/MergeProcess $database 1000 1" \
  -n run-loop-floor "$floor_bin/AsyncFloor" \
  -n main-thread-floor "$floor_bin/AsyncFloor --tasks-on-main-thread" \
  -n async-floor "$floor_bin/AsyncFloor --dispatch-main" \
  -n peer "sqlite3 $database 'select id from archive_objects where id in (17,21,33)'"

# The peers write archive_objects only: they do not keep the favorites search index
# (the engine's gram runs are its own), so they do less work than `archive` does.
peer_database="$work/peer-favorites.sqlite3"

# Cold add then remove of catalog dish 66 (two processes each side; each pair leaves the file as it was).
"$archive" remove 66 --database "$database" > /dev/null 2>&1
sqlite3 "$database" ".backup $peer_database"   # the backup API: the WAL's commits included
insert="INSERT INTO archive_objects (id, photo_url, category, dish_name, shop_name, introduction, stored_at) VALUES (66, 'https://photos.favorite-archive.example/dishes/0066.jpg', 'カフェ', 'パンケーキ', 'カフェ こもれび', 'ふわふわ', 1700000000000)"
compare cold-add-remove \
  "{archive} add 66 --database $database > /dev/null && {archive} remove 66 --database $database > /dev/null" \
  "sqlite3 $peer_database \"$insert\" && sqlite3 $peer_database 'DELETE FROM archive_objects WHERE id = 66'" --

# The largest engine fixture of the benchmark run (1,000,000 favorites in a full run).
largest=$(ls "$FAVORITE_ARCHIVE_BENCH_DIR" | sed -n 's/^engine-\(v[0-9]*r[0-9]*\)-\([0-9]*\)\.sqlite3$/\1 \2/p' | sort -k2 -n | tail -1)
schema=${largest% *}
largest=${largest#* }
fixture="$FAVORITE_ARCHIVE_BENCH_DIR/engine-$schema-$largest.sqlite3"
count=$(sqlite3 "$fixture" 'select count(*) from archive_objects')
export_file="$work/favorites-export.json"
select="select id, photo_url as photoUrl, category, dish_name as dishName, shop_name as shopName, introduction, stored_at as storedAt from archive_objects order by stored_at desc, id desc"
big_runs=$(( smoke ? 2 : 5 ))

# Export of the whole fixture to a file, against SQLite's own JSON output.
ROUNDS=1 RUNS=$big_runs WARMUP=1 compare export \
  "{archive} export --database $fixture --output $work/archive-export.json" \
  "sqlite3 -json $fixture '$select' > $work/sqlite-export.json" --
"$archive" export --database "$fixture" --output "$export_file" 2> /dev/null

# Import of that export into a new file, end to end, against a short Python script
# (json.load + executemany in one transaction, into the same schema with the same pragmas).
echo '[]' > "$work/empty.json"
ROUNDS=1 RUNS=$big_runs WARMUP=0 compare import \
  "{archive} import $export_file --database $work/imported.sqlite3 > /dev/null 2>&1" \
  "python3 import_peer.py $export_file $work/peer.sqlite3 > /dev/null" \
  "rm -f $work/imported.sqlite3 $work/imported.sqlite3-wal $work/imported.sqlite3-shm" \
  "rm -f $work/peer.sqlite3 $work/peer.sqlite3-wal $work/peer.sqlite3-shm; $archive import $work/empty.json --database $work/peer.sqlite3 > /dev/null 2>&1" \
  --

# Peak memory (the largest resident set, over three runs) of whole processes,
# measured by PeakRSS (C: its own resident set, which Linux carries into the
# child's peak, is about 1 MB; a Python parent's was 10-14 MB).
bin=$(swift build -c "$config" --show-bin-path)
peak() { "$bin/PeakRSS" 3 "$@"; }
rm -f "$work"/imported.sqlite3*
import_rss=$(peak sh -c "rm -f $work/imported.sqlite3*; exec $archive import $export_file --database $work/imported.sqlite3 2> /dev/null")
merge_rss=$(peak "$bin/MergeProcess" "$fixture" "$count" 1000)
merge_static_rss=0
if [[ -n $static_archive ]]; then
  merge_static_rss=$(peak "$static_bin/MergeProcess" "$fixture" "$count" 1000)
fi
rawc_fixture="$FAVORITE_ARCHIVE_BENCH_DIR/rawC-$schema-$largest.sqlite3"
rawc_merge_rss=$(peak "$bin/RawCMergeProcess" "$rawc_fixture" "$count" 1000)
echo "measured peak memory"

python3 - "$output" "$count" "$import_rss" "$merge_rss" "$merge_static_rss" "$rawc_merge_rss" "${rows[@]}" <<'PY'
import json, os, sys
output, count, import_rss, merge_rss, merge_static_rss, rawc_merge_rss = sys.argv[1], int(sys.argv[2]), *map(int, sys.argv[3:7])
out = {"count": count, "peakKB": {"import": import_rss, "merge": merge_rss, "rawCMerge": rawc_merge_rss}}
if merge_static_rss:
    out["peakKB"]["mergeStatic"] = merge_static_rss
for path in sys.argv[7:]:
    results = json.load(open(path))["results"]
    out[os.path.basename(path)[:-5]] = {r["command"]: {"median": r["median"], "mean": r["mean"], "stddev": r["stddev"]} for r in results}
json.dump(out, open(output, "w"), indent=1)
PY
