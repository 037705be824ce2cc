# Sourced by varied_import.sh: the files and the scratch databases its `archive
# import` runs use.

# Writes WORK/fixture.json and WORK/varied.json (N favorites each from
# bulk_index_probe.c's generator: the benchmarks' favorites, or `varied`, stored
# without an index and listed newest first as `archive export` lists them, so that
# every probe measures the same data) and WORK/empty.json.
write_probe_exports() {
  local work=$1 count=$2 here kind
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  "$(command -v cc || command -v clang)" -O2 -o "$work/probe" "$here/bulk_index_probe.c" -lsqlite3 -lpthread
  for kind in fixture varied; do
    "$work/probe" "$count" none 16384 "$work/$kind.sqlite3" "$kind" 0 > /dev/null
    sqlite3 -json "$work/$kind.sqlite3" "SELECT id, photo_url AS photoUrl, category, dish_name AS dishName,
      shop_name AS shopName, introduction,
      strftime('%Y-%m-%dT%H:%M:%S', stored_at / 1000, 'unixepoch') || printf('.%03dZ', stored_at % 1000) AS storedAt
      FROM archive_objects ORDER BY stored_at DESC, id DESC" > "$work/$kind.json"
    rm -f "$work/$kind.sqlite3"
  done
  echo '[]' > "$work/empty.json"
}

# Writes WORK/fresh.sh, which makes WORK/db.sqlite3 a new database at the latest schema,
# made by ARCHIVE: as it comes (no argument), or with `no-index`, its search index's
# tables (migration 0004) dropped (the engine then skips the index).
write_fresh_script() {
  local work=$1 archive=$2
  cat > "$work/fresh.sh" <<SH
#!/usr/bin/env bash
set -euo pipefail
rm -f "$work/db.sqlite3" "$work/db.sqlite3-wal" "$work/db.sqlite3-shm"
"$archive" import "$work/empty.json" --database "$work/db.sqlite3" > /dev/null 2>&1
if [[ \${1:-} == no-index ]]; then
  sqlite3 "$work/db.sqlite3" "DROP TABLE archive_search_runs; DROP TABLE archive_search_blocks; DROP TABLE archive_search_pending;"
fi
SH
  chmod +x "$work/fresh.sh"
}
