#!/usr/bin/env bash
# Runs the storage benchmarks and prints the comparison table.
#
#   Benchmarks/run.sh            full run: N = 10,000, 100,000 and 1,000,000, and the whole-process
#                                rows (process.sh, hyperfine); writes ../BENCHMARKS.md
#   Benchmarks/run.sh --smoke    CI: N = 1,000, a few iterations; checks that everything runs
#
# Database files are built first, once, under $FAVORITE_ARCHIVE_BENCH_DIR
# (default: a folder of the temporary directory) and reused by later runs.
set -euo pipefail
cd "$(dirname "$0")"

mode=full
if [[ ${1:-} == --smoke ]]; then
  mode=smoke
  export FAVORITE_ARCHIVE_BENCH_SMOKE=1
  export FAVORITE_ARCHIVE_BENCH_DIR=${FAVORITE_ARCHIVE_BENCH_DIR:-$(mktemp -d)}
fi
export FAVORITE_ARCHIVE_BENCH_DIR=${FAVORITE_ARCHIVE_BENCH_DIR:-${TMPDIR:-/tmp}/favorite-archive-benchmarks}
mkdir -p "$FAVORITE_ARCHIVE_BENCH_DIR"

swift build -c release --product PrepareFixtures
"$(swift build -c release --show-bin-path)/PrepareFixtures"

results="$FAVORITE_ARCHIVE_BENCH_DIR/last-run.md"   # kept: `python3 report.py FILE` redraws the table
swift package --allow-writing-to-directory "$FAVORITE_ARCHIVE_BENCH_DIR" benchmark --no-progress --format markdown | tee "$results"

# Whole processes: the release `archive` of this same build, against the commands a user would use instead.
swift build -c release --product archive
process="$FAVORITE_ARCHIVE_BENCH_DIR/process.json"
if [[ $mode == smoke ]]; then bash process.sh --smoke "$process"; else bash process.sh "$process"; fi

if [[ $mode == smoke ]]; then
  python3 report.py --smoke --process="$process" "$results"
  # The probes (probes/, quoted in BENCHMARKS.md's notes) build and run at a small N, so that
  # they cannot rot: the bulk index in runs of 500 merged two by two (on one thread, on two,
  # and in memory), its answers checked against a scan (the probe exits 1 on a difference,
  # and so does the runner); the probe's refusals of paths it did not make; the varied-text
  # import; the run builder in Swift.
  bash probes/bulk_index_runs.sh 3000 1 "none:0 fts5:0 serial:2 parallel:2 pipelined:2" "fixture varied" 500
  bash probes/check_probe_guards.sh
  bash probes/varied_import.sh 300 "$(swift build -c release --show-bin-path)/archive" 1
  # The floor program both ways, taking turns (README, MainThreadRunLoop).
  floor="$(swift build -c release --show-bin-path)/AsyncFloor"
  python3 probes/alternate.py 2 "$floor" "$floor --dispatch-main"
  # The Swift side of the bulk index (ArchiveSearch's SearchRunBuilder), its lookups checked
  # against a scan (it exits 1 on a difference).
  swift build -c release --package-path probes/run_builder
  for data in fixture varied; do probes/run_builder/.build/release/RunBuilderProbe 3000 500 "$data"; done
  rm -rf "$FAVORITE_ARCHIVE_BENCH_DIR"
else
  python3 report.py --process="$process" "$results" > ../BENCHMARKS.md
  echo "wrote BENCHMARKS.md"
fi
