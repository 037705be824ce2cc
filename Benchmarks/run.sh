#!/usr/bin/env bash
# Runs the storage benchmarks and prints the comparison table.
#
#   Benchmarks/run.sh            full run: N = 10,000, 100,000 and 1,000,000, the whole-process
#                                rows (process.sh, hyperfine), and the sync service under load
#                                (load/run.sh: wrk beside pgbench), the web page on a slow phone
#                                (web/page_timings.py: chromium); writes ../BENCHMARKS.md
#   Benchmarks/run.sh --smoke    CI: N = 1,000, a few iterations, everything built in debug;
#                                checks that everything runs, not what it measures
#   Benchmarks/run.sh --smoke-build
#                                only builds what --smoke runs (CI starts it beside the tests,
#                                so that the smoke run finds it built)
#
# Database files are built first, once, under $FAVORITE_ARCHIVE_BENCH_DIR
# (default: a folder of the temporary directory) and reused by later runs.
set -euo pipefail
cd "$(dirname "$0")"

mode=full
if [[ ${1:-} == --smoke-build ]]; then
  # Every product a smoke run builds, in the order it builds them (each later call is then a
  # no-op). One product a call: `swift build` without --product also builds every executable
  # product of every dependency, the root package's three binaries and their whole graph
  # among them (seven minutes here), and the smoke run needs these six.
  for product in PrepareFixtures StorageBenchmarks MergeProcess RawCMergeProcess PeakRSS AsyncFloor; do
    swift build -c debug --product "$product"
  done
  exit 0
fi
# A full run measures release builds. A smoke run builds everything in debug: a debug build of
# this package takes a fifth of the release one's time, and CI's smoke run checks only that
# every benchmark runs (docs/PERFORMANCE.md, "CI's smoke run in debug").
config=release
if [[ ${1:-} == --smoke ]]; then
  mode=smoke
  config=debug
  export FAVORITE_ARCHIVE_BENCH_SMOKE=1
  export FAVORITE_ARCHIVE_BENCH_DIR=${FAVORITE_ARCHIVE_BENCH_DIR:-$(mktemp -d)}
fi
export FAVORITE_ARCHIVE_BENCH_DIR=${FAVORITE_ARCHIVE_BENCH_DIR:-${TMPDIR:-/tmp}/favorite-archive-benchmarks}
mkdir -p "$FAVORITE_ARCHIVE_BENCH_DIR"

# Each step prints its duration ("step NAME: N s"), so that a slow one shows in CI's log.
step_name=""
step_start=$SECONDS
step() {
  if [[ -n $step_name ]]; then echo "step $step_name: $((SECONDS - step_start)) s"; fi
  step_name=$1
  step_start=$SECONDS
}

step fixtures
swift build -c "$config" --product PrepareFixtures
"$(swift build -c "$config" --show-bin-path)/PrepareFixtures"

step suite
results="$FAVORITE_ARCHIVE_BENCH_DIR/last-run.md"   # kept: `python3 report.py FILE` redraws the table
if [[ $mode == smoke ]]; then
  # The suite's executable run on its own: without the plugin's host (BenchmarkTool) it runs
  # every benchmark once through its configured iterations and prints each one's histograms
  # ("Debug results for NAME:"), which report.py reads. Not through `swift package benchmark`:
  # its plugin builds BenchmarkTool in release and preloads that build's malloc interposer
  # into the benchmarks, which crashes a debug benchmark binary (SIGSEGV).
  swift build -c debug --product StorageBenchmarks
  "$(swift build -c debug --show-bin-path)/StorageBenchmarks" > "$results"
else
  swift package --allow-writing-to-directory "$FAVORITE_ARCHIVE_BENCH_DIR" benchmark --no-progress --format markdown | tee "$results"
fi

# Whole processes: the release `archive` of this same build, against the commands a user
# would use instead. A smoke run may time another build of it instead (ARCHIVE_BINARY: CI's
# debug build, already there), since it checks that the rows run, not what they measure.
step processes
process="$FAVORITE_ARCHIVE_BENCH_DIR/process.json"
if [[ $mode == smoke ]]; then
  bash process.sh --smoke "$process"
  python3 report.py --smoke --process="$process" "$results"
  # The load harness on a few users for a second a run (ARCHIVE_SERVER_BINARY: CI's debug build).
  step load
  bash load/run.sh --smoke
  # The page on a slow phone, one open a configuration (chromium, as BrowserTests has it).
  step web
  /usr/bin/python3 web/page_timings.py "${ARCHIVE_SERVER_BINARY:?a smoke run times the archive-server it is given}" --smoke > /dev/null
  rm -rf "$FAVORITE_ARCHIVE_BENCH_DIR"
else
  swift build -c release --product archive
  bash process.sh "$process"
  python3 report.py --process="$process" "$results" > ../BENCHMARKS.md
  echo "wrote BENCHMARKS.md"
  step load
  bash load/run.sh
  step web
  (cd .. && swift build -c release --product archive-server >/dev/null)
  /usr/bin/python3 web/page_timings.py "${ARCHIVE_SERVER_BINARY:-$(cd .. && swift build -c release --show-bin-path)/archive-server}" --into ../BENCHMARKS.md
fi
step ""
