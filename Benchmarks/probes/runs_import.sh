#!/usr/bin/env bash
# A probe, not part of the benchmark run: what `archive import` costs end to end when
# the engine writes the favorites search index as ArchiveSearch's runs instead of FTS5,
# beside the import without an index and with FTS5, on the benchmarks' favorites and on
# favorites whose text rarely repeats (bulk_index_probe.c's `varied`).
#
# runs_import.patch changes one function of a scratch copy of this commit: a bulk store
# (`create(from:)`, what `archive import` calls) adds each new favorite to a
# SearchRunBuilder and writes every RUN_SIZE favorites (16,384 unless the environment
# says otherwise) as one run of blocks into a table `archive_search_runs` that this
# script creates by hand, in the import's transaction. With RUN_THREADS=2 the runs are
# built on a second thread (at most two waiting) and the writer only copies the texts
# and writes the blocks. Nothing reads the runs yet, and FTS5's table is taken out of
# the schema for every variant but `fts5`, as varied_import.sh does.
#
#   bash Benchmarks/probes/runs_import.sh [N] [RUNS]
#
# N defaults to 200,000, RUNS (hyperfine's runs of each variant) to 3. It builds the
# patched `archive` in release (about 8 minutes on 2 cores). Needs git, swift, cc (or
# clang), sqlite3 and hyperfine.
set -euo pipefail

count=${1:-200000}
runs=${2:-3}
[[ $count =~ ^[1-9][0-9]{0,7}$ ]] || { echo "runs_import.sh: N must be a whole number in 1...99999999" >&2; exit 1; }
[[ $runs =~ ^[1-9][0-9]{0,2}$ ]] || { echo "runs_import.sh: RUNS must be a whole number in 1...999" >&2; exit 1; }
for tool in git swift sqlite3 hyperfine; do
  command -v "$tool" > /dev/null || { echo "runs_import.sh: needs $tool" >&2; exit 1; }
done
unset RUN_SIZE RUN_THREADS  # the patch's settings: this script chooses them
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The patched copy of this commit, built in release.
mkdir "$work/src"
git -C "$root" archive HEAD | tar -x -C "$work/src"
(cd "$work/src" && git apply "$here/runs_import.patch") \
  || { echo "runs_import.sh: runs_import.patch no longer applies to this commit: update it" >&2; exit 1; }
swift build -c release --product archive --package-path "$work/src" > "$work/build.log" 2>&1 \
  || { tail -20 "$work/build.log" >&2; echo "runs_import.sh: the patched build failed" >&2; exit 1; }
archive=$work/src/.build/release/archive

. "$here/probe_imports.sh"
write_probe_exports "$work" "$count"
write_fresh_script "$work" "$archive"

for kind in fixture varied; do
  # The patched import must write every run: one per RUN_SIZE favorites, on both paths.
  for threads in 1 2; do
    "$work/fresh.sh" runs
    RUN_THREADS=$threads "$archive" import "$work/$kind.json" --database "$work/db.sqlite3" > /dev/null 2>&1 \
      || { echo "runs_import.sh: the patched import of $kind failed" >&2; exit 1; }
    written=$(sqlite3 "$work/db.sqlite3" "SELECT count(DISTINCT run) FROM archive_search_runs")
    expected=$(( (count + 16383) / 16384 ))
    [[ $written == "$expected" ]] || { echo "runs_import.sh: $kind, $threads thread(s): $written runs written, $expected expected" >&2; exit 1; }
  done
  echo "== $kind, $count favorites"
  hyperfine -N -r "$runs" --style basic \
    --prepare "$work/fresh.sh no-index" -n "no index" "$archive import $work/$kind.json --database $work/db.sqlite3" \
    --prepare "$work/fresh.sh runs" -n "runs, 1 thread" "$archive import $work/$kind.json --database $work/db.sqlite3" \
    --prepare "$work/fresh.sh runs" -n "runs, 2 threads" "env RUN_THREADS=2 $archive import $work/$kind.json --database $work/db.sqlite3" \
    --prepare "$work/fresh.sh" -n "FTS5" "$archive import $work/$kind.json --database $work/db.sqlite3" \
    | grep -E "^Benchmark|Time|faster"
done
