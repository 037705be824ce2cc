#!/usr/bin/env bash
# A probe, not part of the benchmark run: the price of the favorites search index
# when `archive import` reads text whose grams rarely repeat, beside the same
# import of the benchmarks' favorites.
#
# The benchmarks' favorites (BenchmarkPeers/WorkloadData) repeat most of their
# text from one favorite to the next: fewer distinct grams, shorter merged lists. Here the introduction's fixed sentence is replaced, in the second
# file, by 48 pseudo-random kana and kanji (bulk_index_probe.c makes both files, the
# second with `varied`); everything else is the same, newest first, as an export
# lists them. Each file is imported into a new database with the index, and into
# one whose index tables were dropped (the engine then skips the
# index), hyperfine's median of RUNS runs each.
#
#   bash Benchmarks/probes/varied_import.sh [N] [ARCHIVE_BINARY] [RUNS]
#
# N defaults to 200,000, the binary to the static release build
# (.build-static/release/archive), RUNS to 3. Needs cc (or clang), python3, sqlite3 and
# hyperfine.
set -euo pipefail

count=${1:-200000}
here=$(cd "$(dirname "$0")" && pwd)
archive=${2:-$here/../../.build-static/release/archive}
runs=${3:-3}
[[ $count =~ ^[1-9][0-9]{0,7}$ ]] || { echo "varied_import.sh: N must be a whole number in 1...99999999" >&2; exit 1; }
[[ $runs =~ ^[1-9][0-9]{0,2}$ ]] || { echo "varied_import.sh: RUNS must be a whole number in 1...999" >&2; exit 1; }
[[ -x $archive ]] || { echo "varied_import.sh: no archive binary at $archive (build it, or pass its path)" >&2; exit 1; }
for tool in python3 sqlite3 hyperfine; do
  command -v "$tool" > /dev/null || { echo "varied_import.sh: needs $tool" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

. "$here/probe_imports.sh"
write_probe_exports "$work" "$count"
write_fresh_script "$work" "$archive"

printf '| favorites | with the index (s) | without (s) | ratio of rates |\n|---|---:|---:|---:|\n'
for kind in fixture varied; do
  hyperfine -N --runs "$runs" --style none --export-json "$work/$kind.result.json" \
    --prepare "bash $work/fresh.sh" "$archive import $work/$kind.json --database $work/db.sqlite3" \
    --prepare "bash $work/fresh.sh no-index" "$archive import $work/$kind.json --database $work/db.sqlite3" \
    > /dev/null
  python3 - "$work/$kind.result.json" "$kind" "$count" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
with_index, without = results[0]["median"], results[1]["median"]
print(f"| {int(sys.argv[3]):,} {sys.argv[2]} | {with_index:.2f} | {without:.2f} | {without / with_index:.2f}x |")
PY
done
