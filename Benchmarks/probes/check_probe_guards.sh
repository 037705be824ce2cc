#!/usr/bin/env bash
# Checks, on the real binary, that bulk_index_probe.c never deletes what it did not make:
# the probe deletes its DATABASE before each run, so a path given by mistake (a text
# file, someone's archive, a link to it, a FIFO, "") must be refused and left as it is.
# Also checks that an argument's control bytes reach the terminal escaped. The smoke run
# (Benchmarks/run.sh --smoke) runs it; it exits 1 naming the first case that fails.
#
#   bash Benchmarks/probes/check_probe_guards.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
probe="$work/probe"
"$(command -v cc || command -v clang)" -O2 -o "$probe" "$here/bulk_index_probe.c" -lsqlite3 -lpthread
cd "$work"

failed() { echo "check_probe_guards.sh: $1" >&2; exit 1; }
# refused PATH: the probe must exit 1 on PATH, within 10 s, and say why.
refused() {
  local status=0
  timeout 10 "$probe" 100 serial 10 "$1" > out.txt 2> err.txt || status=$?
  [[ $status == 1 ]] || failed "the probe ran on \"$1\" (status $status), where it must refuse"
  grep -q "bulk_index_probe: " err.txt || failed "no reason given for refusing \"$1\""
}

echo "a user's notes" > notes.txt
cp notes.txt notes.copy
refused notes.txt
cmp -s notes.txt notes.copy || failed "a text file given as DATABASE was changed"

# Someone's archive, with a file where its WAL would be.
sqlite3 archive.sqlite3 "CREATE TABLE archive_objects (id INTEGER PRIMARY KEY); INSERT INTO archive_objects VALUES (7);"
cp archive.sqlite3 archive.copy
echo "not to be deleted" > archive.sqlite3-wal
refused archive.sqlite3
cmp -s archive.sqlite3 archive.copy || failed "a database the probe did not make was changed"
[[ -f archive.sqlite3-wal ]] || failed "the -wal beside a database the probe did not make was deleted"
rm archive.sqlite3-wal
[[ $(sqlite3 archive.sqlite3 "SELECT id FROM archive_objects") == 7 ]] || failed "a database the probe did not make lost its row"

ln -s archive.sqlite3 link.sqlite3
refused link.sqlite3
[[ -L link.sqlite3 ]] || failed "a link given as DATABASE was removed"
cmp -s archive.sqlite3 archive.copy || failed "the file behind a link was changed"

mkfifo fifo
refused fifo
mkdir directory
refused directory
refused ""

# The probe's own database is replaced, run after run.
"$probe" 100 serial 10 scratch.sqlite3 > /dev/null || failed "the probe failed on a new path"
"$probe" 100 serial 10 scratch.sqlite3 > /dev/null || failed "the probe refused its own earlier database"

status=0
"$probe" "$(printf '1\033]0;pwned\007')" none 2> err.txt || status=$?
[[ $status == 1 ]] || failed "a bad N was accepted"
! grep -q $'\033' err.txt || failed "an escape byte from an argument reached the terminal"
grep -qF '\x1B]0;pwned\x07' err.txt || failed "a bad N was not echoed, escaped"
echo "check_probe_guards.sh: every guard holds"
