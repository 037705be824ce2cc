#!/usr/bin/env bash
# Runs bulk_index_probe.c's modes interleaved, REPS times each, and prints each mode's
# import seconds, sorted (the median is the middle one), then each search of the
# benchmarks' rare keyword, in microseconds. BENCHMARKS.md's notes quote its output.
#
#   bash Benchmarks/probes/bulk_index_runs.sh N REPS "MODE:FAN_IN ..." ["fixture varied"] [RUN_SIZE]
#
# e.g. `bash Benchmarks/probes/bulk_index_runs.sh 1000000 3 "none:0 fts5:0 parallel:0 pipelined:8"`.
# The fourth argument lists the data sets (default `fixture`), each run in turn. The probe
# is built once, into a temporary directory, with cc (or clang); its database is written
# there too (about 0.8 GB at 1,000,000). Each run starts after `sync`, so that the previous
# run's writes do not land in the next one's time. Exits 1 when the probe fails (its
# index answering other than a scan, or bad arguments, which the probe names).
set -euo pipefail

usage='usage: bulk_index_runs.sh N REPS "MODE:FAN_IN ..." ["fixture varied"] [RUN_SIZE]'
count=${1:?$usage}
reps=${2:?$usage}
modes=${3:?$usage}
data_sets=${4:-fixture}
run_size=${5:-16384}
[[ $reps =~ ^[1-9][0-9]{0,3}$ ]] || { echo "bulk_index_runs.sh: REPS must be a whole number in 1...9999" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$(command -v cc || command -v clang)" -O2 -o "$work/probe" "$here/bulk_index_probe.c" -lsqlite3 -lpthread
for data in $data_sets; do
  rm -f "$work/imports.txt" "$work/searches.txt"
  for _ in $(seq 1 "$reps"); do
    for mode_and_fan_in in $modes; do
      mode=${mode_and_fan_in%%:*}
      fan_in=${mode_and_fan_in##*:}
      sync
      sleep 1
      "$work/probe" "$count" "$mode" "$run_size" "$work/probe.sqlite3" "$data" "$fan_in" > "$work/out.txt"
      seconds=$(head -1 "$work/out.txt" | sed -E 's/^[a-z0-9]+: [0-9]+ favorites in ([0-9.]+) s.*/\1/')
      echo "import $mode_and_fan_in $seconds" >> "$work/imports.txt"
      search=$(sed -n 2p "$work/out.txt" | sed -E 's/.*best of 20 ([0-9]+) us.*/\1/')
      [[ -n $search && $mode != none && $mode != fts5 ]] && echo "search $mode_and_fan_in $search" >> "$work/searches.txt"
    done
  done
  echo "import seconds, $count favorites ($data, runs of $run_size):"
  sort -k2,2 -k3,3n "$work/imports.txt" | awk '{ times[$2] = times[$2] " " $3 } END { for (m in times) print "  " m ":" times[m] }' | sort
  if [[ -f $work/searches.txt ]]; then
    echo "search of 番号 12346, best of 20 (us):"
    awk '{ times[$2] = times[$2] " " $3 } END { for (m in times) print "  " m ":" times[m] }' "$work/searches.txt" | sort
  fi
done
