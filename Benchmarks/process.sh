#!/usr/bin/env bash
# Whole-process benchmarks: what a user of the `archive` command feels, each
# measured side by side with the command they would use instead, in one
# hyperfine run per row (warm page cache, `-N`: no shell in between).
#
#   Benchmarks/process.sh OUTPUT.json            full run
#   Benchmarks/process.sh --smoke OUTPUT.json    CI: a few runs each, so nothing rots
#
# Needs hyperfine and sqlite3 (Debian: apt-get install hyperfine sqlite3) and
# the release `archive` of this build (run.sh builds it).
set -euo pipefail
cd "$(dirname "$0")"

runs=60
warmup=10
smoke=0
if [[ ${1:-} == --smoke ]]; then
  runs=3
  warmup=1
  smoke=1
  shift
fi
output=${1:?usage: process.sh [--smoke] OUTPUT.json}

archive="$(swift build -c release --show-bin-path)/archive"
# A full run also measures the same `archive` with the Swift runtime and
# Foundation linked statically (SwiftPM's --static-swift-stdlib, a build of its own).
static_archive=""
if ((!smoke)); then
  swift build -c release --product archive --static-swift-stdlib --scratch-path .build-static
  static_archive="$(swift build -c release --static-swift-stdlib --scratch-path .build-static --show-bin-path)/archive"
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
measure() {  # name, the arguments of `archive`, the peer command
  local name=$1 arguments=$2 peer=$3
  local commands=(-n archive "$archive $arguments")
  [[ -n $static_archive ]] && commands+=(-n archive-static "$static_archive $arguments")
  hyperfine -N --warmup "$warmup" --runs "$runs" --style none \
    --export-json "$work/$name.json" "${commands[@]}" -n peer "$peer" > /dev/null
  rows+=("$work/$name.json")
  echo "measured $name"
}

measure cold-search \
  "search チーズ --category 洋食 --database $database" \
  "sqlite3 $database 'select id from archive_objects where id in (17,21,33)'"

python3 - "$output" "${rows[@]}" <<'PY'
import json, os, sys
out = {}
for path in sys.argv[2:]:
    results = json.load(open(path))["results"]
    out[os.path.basename(path)[:-5]] = {r["command"]: {"median": r["median"], "mean": r["mean"], "stddev": r["stddev"]} for r in results}
json.dump(out, open(sys.argv[1], "w"), indent=1)
PY
