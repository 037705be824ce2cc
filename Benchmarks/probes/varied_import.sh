#!/usr/bin/env bash
# A probe, not part of the benchmark run: the price of the favorites search index
# when `archive import` reads text whose grams rarely repeat, beside the same
# import of the benchmarks' favorites.
#
# The benchmarks' favorites (BenchmarkPeers/WorkloadData) repeat most of their
# text from one favorite to the next, which is what FTS5's hash of pending terms
# handles best. Here the introduction's fixed sentence is replaced, in the second
# file, by 48 pseudo-random kana and kanji (the same generator as
# bulk_index_probe.c's `varied`); everything else is the same, newest first, as
# an export lists them. Each file is imported into a new database with the index,
# and into one whose index table was taken out of the schema (the engine then
# skips the index), hyperfine's median of RUNS runs each.
#
#   bash Benchmarks/probes/varied_import.sh [N] [ARCHIVE_BINARY] [RUNS]
#
# N defaults to 200,000, the binary to the static release build
# (.build-static/release/archive), RUNS to 3. Needs python3, sqlite3, hyperfine.
set -euo pipefail

count=${1:-200000}
here=$(cd "$(dirname "$0")" && pwd)
archive=${2:-$here/../../.build-static/release/archive}
runs=${3:-3}
[[ -x $archive ]] || { echo "varied_import.sh: no archive binary at $archive (build it, or pass its path)" >&2; exit 1; }
for tool in python3 sqlite3 hyperfine; do
  command -v "$tool" > /dev/null || { echo "varied_import.sh: needs $tool" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$count" "$work" <<'PY'
import datetime, json, sys
count, work = int(sys.argv[1]), sys.argv[2]
categories = ["和食", "洋食", "中華", "イタリアン", "エスニック", "スイーツ"]
phrases = ["出汁の香る", "炭火で焼いた", "とろけるチーズの", "季節の野菜たっぷりの", "香辛料の効いた", "ふわふわ食感の"]
def varied(number):
    state = (2463534242 ^ (number * 2654435761)) & 0xFFFFFFFF
    scalars = []
    for _ in range(48):
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        pick = state % 3176
        scalars.append(chr(0x3041 + pick if pick < 86 else 0x30A1 + pick - 86 if pick < 176 else 0x4E00 + pick - 176))
    return "".join(scalars)
for kind in ("fixture", "varied"):
    with open(f"{work}/{kind}.json", "w") as out:
        out.write("[\n")
        for k in range(count):
            number = count - k
            id = number * 2
            phrase = phrases[number % 6]
            middle = varied(number) if kind == "varied" else "毎日仕込む自家製のソースと、厳選した食材で作る当店自慢の料理です。"
            ms = 1_700_000_000_000 + id
            stored = datetime.datetime.fromtimestamp(ms // 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
            record = {
                "id": id, "photoUrl": f"https://photos.favorite-archive.example/dishes/{id}.jpg",
                "category": categories[number % 6], "dishName": f"{phrase}料理 {id}",
                "shopName": f"お店 {number % 997} 号店", "introduction": f"{phrase}一皿。{middle}番号 {id}",
                "storedAt": f"{stored}.{ms % 1000:03d}Z",
            }
            out.write(json.dumps(record, ensure_ascii=False) + (",\n" if k < count - 1 else "\n"))
        out.write("]\n")
PY
echo '[]' > "$work/empty.json"

# A new database at the latest schema; with `no-index`, its index table taken out
# of the schema (the sqlite3 shell cannot load the engine's tokenizer, so the
# virtual table is unlinked and its shadow tables dropped).
cat > "$work/fresh.sh" <<SH
#!/usr/bin/env bash
set -euo pipefail
rm -f "$work/db.sqlite3" "$work/db.sqlite3-wal" "$work/db.sqlite3-shm"
"$archive" import "$work/empty.json" --database "$work/db.sqlite3" > /dev/null 2>&1
if [[ \${1:-} == no-index ]]; then
  sqlite3 "$work/db.sqlite3" "PRAGMA writable_schema = ON; DELETE FROM sqlite_master WHERE name = 'archive_objects_search'; PRAGMA writable_schema = OFF;"
  sqlite3 "$work/db.sqlite3" "DROP TABLE archive_objects_search_data; DROP TABLE archive_objects_search_idx; DROP TABLE archive_objects_search_config;"
fi
SH

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
