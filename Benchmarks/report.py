#!/usr/bin/env python3
"""Turns the markdown output of `swift package benchmark` into BENCHMARKS.md:
every metric for every peer at every N, and the ratios against the targets."""
import json
import os
import platform
import re
import subprocess
import sys

TIME_UNITS = {"ns": 1e-3, "μs": 1.0, "us": 1.0, "ms": 1e3, "s": 1e6}
PEERS = ["engine", "rawC", "grdb", "original"]
OPERATIONS = ["import", "merge", "toggle", "page", "open"]


def parse(path):
    """{benchmark name: {"time": {p50, p99, ...} in µs, "memory": p50 in MB}}"""
    results, name = {}, None
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line.startswith("### "):
            name = line[4:].strip()
            results[name] = {}
            continue
        if not name or not line.startswith("|") or line.startswith("|:") or "Metric" in line:
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        label, values = cells[0], cells[1:]
        numbers = [float(v.replace(",", "")) for v in values[:7]]
        p = dict(zip(["p0", "p25", "p50", "p75", "p90", "p99", "p100"], numbers))
        if label.startswith("Time (wall clock)"):
            unit = re.search(r"\((ns|μs|us|ms|s)\)", label).group(1)
            results[name]["time"] = {k: v * TIME_UNITS[unit] for k, v in p.items()}
        elif label.startswith("Memory (resident peak)"):
            unit = re.search(r"\(([KMG]?)\)", label).group(1)
            scale = {"": 1e-6, "K": 1e-3, "M": 1.0, "G": 1e3}[unit]
            results[name]["memory"] = p["p50"] * scale
    return results


def expected(sizes):
    names = [f"{op}/{peer}/{n}" for n in sizes for op in OPERATIONS for peer in PEERS[:3]]
    names += [f"merge/original/{n}" for n in sizes]
    names += [f"import/engineNoIndex/{n}" for n in sizes]
    names += [f"favoritesSearch/{peer}/{n}" for n in sizes for peer in ["engine", "rawCScan"]]
    names.append(f"storeSearch/engine/{max(sizes)}")
    return names


def sizes_of(results):
    return sorted({int(name.rsplit("/", 1)[1]) for name in results})


def fmt(value, digits=0):
    if value is None:
        return "—"
    if value >= 100 or digits == 0:
        return f"{value:,.0f}"
    return f"{value:,.{digits}f}"


# The whole-process rows (Benchmarks/process.sh): name -> (what, peer, target ratio of medians:
# archive's time over the peer's at most this).
PROCESS_ROWS = {
    "cold-search": ("cold `archive search チーズ --category 洋食`, 1,000 favorites",
                    "`sqlite3 FILE \"select id from archive_objects where id in (17,21,33)\"`", 2.5),
    "cold-add-remove": ("cold `archive add 66` then `archive remove 66` (a process each)",
                        "the same INSERT, then DELETE, through `sqlite3`", 2.5),
    "export": ("`archive export` of the largest fixture to a file",
               "`sqlite3 -json FILE \"select … order by stored_at desc, id desc\" > file`", 1.0),
    "import": ("`archive import` of that export into a new file, end to end",
               "`import_peer.py`: `json.load` + `executemany` in one transaction", 1 / 1.5),
}


def main():
    args = sys.argv[1:]
    smoke = "--smoke" in args
    process_path = next((a.split("=", 1)[1] for a in args if a.startswith("--process=")), None)
    process = json.load(open(process_path)) if process_path else {}
    sizes_path = os.path.join(os.path.dirname(os.path.abspath(process_path or ".")), "index-sizes.json")
    index_sizes = json.load(open(sizes_path)) if os.path.exists(sizes_path) else {}
    path = [a for a in args if not a.startswith("--")][0]
    results = parse(path)
    sizes = sizes_of(results)
    missing = [n for n in expected(sizes) if n not in results or "time" not in results[n]]
    missing += [f"process/{name}" for name in PROCESS_ROWS if name not in process]
    missing += [] if "peakKB" in process else ["process/peakKB"]
    if smoke:
        if missing:
            print("missing benchmark results: " + ", ".join(missing), file=sys.stderr)
            sys.exit(1)
        print(f"benchmark smoke run: {len(results)} benchmarks ran at N = {sizes}")
        return

    def t(op, peer, n, p="p50"):
        r = results.get(f"{op}/{peer}/{n}", {}).get("time")
        return r[p] if r else None

    def mem(op, peer, n):
        return results.get(f"{op}/{peer}/{n}", {}).get("memory")

    def rows_per_s(peer, n):
        v = t("import", peer, n)
        return n / (v / 1e6) if v else None

    def ops_per_s(peer, n):
        v = t("toggle", peer, n)
        return 1e6 / v if v else None

    out = []
    w = out.append
    w("# Benchmarks\n")
    w("The storage engine against three peers doing the same workload, in the same run "
      "(`Benchmarks/run.sh`, ordo-one/benchmark; every benchmark in a process of its own):\n")
    w("- **rawC**: C calling libsqlite3 with the engine's SQL and pragmas (`Benchmarks/Sources/CRawSQLitePeer`): the practical limit;")
    w("- **grdb**: idiomatic GRDB 7 (record type, `DatabaseMigrator`, WAL `DatabaseQueue`, query interface);")
    w("- **original**: the original app's merge (load every stored object, map to IDs, `Array.contains` per result row).\n")
    w("Favorites have IDs 2, 4, …, 2N and about 200 bytes of text each; a merge asks 50 consecutive IDs (about half stored). "
      "Absolute times only illustrate; the ratios are what the targets are about.\n")
    cpu = ""
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except Exception:
        pass
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    sqlite = subprocess.run(["sqlite3", "--version"], capture_output=True, text=True).stdout.split(" ")[:1]
    w(f"Machine: {platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}); "
      f"{swift[0] if swift else 'swift'}; SQLite {sqlite[0] if sqlite else '?'}.\n")

    w("## Results\n")
    header = "| metric | N | engine | raw C | GRDB | original |"
    w(header)
    w("|---|---:|---:|---:|---:|---:|")
    for n in sizes:
        w(f"| import (rows/s) | {n:,} | {fmt(rows_per_s('engine', n))} | {fmt(rows_per_s('rawC', n))} | {fmt(rows_per_s('grdb', n))} | — |")
        for p in ["p50", "p99"]:
            w(f"| merge {p} (µs) | {n:,} | " + " | ".join(fmt(t("merge", peer, n, p), 1) for peer in PEERS) + " |")
        w(f"| toggle (ops/s) | {n:,} | {fmt(ops_per_s('engine', n))} | {fmt(ops_per_s('rawC', n))} | {fmt(ops_per_s('grdb', n))} | — |")
        w(f"| page p50 (µs) | {n:,} | " + " | ".join(fmt(t("page", peer, n), 1) for peer in PEERS[:3]) + " | — |")
        w(f"| open p50 (µs) | {n:,} | " + " | ".join(fmt(t("open", peer, n), 1) for peer in PEERS[:3]) + " | — |")
    largest = max(sizes)
    w(f"\nFull archive search through the Store (dispatch → bundled catalog → merge → new state) at N = {largest:,}: "
      f"p50 {fmt(t('storeSearch', 'engine', largest), 1)} µs, p99 {fmt(t('storeSearch', 'engine', largest, 'p99'), 1)} µs.\n")

    w("## Favorites search\n")
    w("`archive favorites --search` among N favorites: the engine's gram index (migration 0003, FTS5 "
      "with the engine's tokenizer) against the peer a developer without it would write, a full scan "
      "from C (`instr` over the five text columns, case-sensitive: less work than the engine's "
      "case-insensitive semantics). The query, `番号 12346`, matches 1, 6 and 56 favorites at "
      "10k, 100k and 1M; each call reads the first page of 50, newest first. The import rows put the "
      "index's price at import (the engine with its index, and with the index table dropped, which "
      "the engine then skips); the file sizes are the engine's fixture, and a vacuumed copy without the index.\n")
    w("| N | search p50 (µs) | scan p50 (µs) | faster | import with index (rows/s) | without (rows/s) | ratio | file with index (MB) | without (MB) |")
    w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        e, s = t("favoritesSearch", "engine", n), t("favoritesSearch", "rawCScan", n)
        wi, wo = rows_per_s("engine", n), rows_per_s("engineNoIndex", n)
        size = index_sizes.get(str(n), {})
        w(f"| {n:,} | {fmt(e, 1)} | {fmt(s, 1)} | {f'{s / e:,.0f}×' if e and s else '—'} | {fmt(wi)} | {fmt(wo)} | "
          f"{f'{wi / wo:.2f}×' if wi and wo else '—'} | "
          f"{fmt(size.get('withIndex', 0) / 1e6, 1) if size else '—'} | {fmt(size.get('withoutIndex', 0) / 1e6, 1) if size else '—'} |")
    w("")

    w("## Whole processes\n")
    w("What a user of the `archive` command feels: release builds, each row one hyperfine run of "
      "`archive` and the command a user would otherwise run, on the same file (`Benchmarks/process.sh`; "
      "warm page cache, no shell in between).\n")
    w(f"The export and import rows use the largest fixture ({process.get('count', 0):,} favorites). "
      "A target on time is a ratio of medians (archive over peer).\n")
    w("| what | peer | archive (ms, median) | peer (ms, median) | ratio | static runtime (ms, median) | ratio |")
    w("|---|---|---:|---:|---:|---:|---:|")
    for name, (what, peer, _) in PROCESS_ROWS.items():
        row = process.get(name)
        if row:
            a, b = row["archive"]["median"] * 1e3, row["peer"]["median"] * 1e3
            s = row.get("archive-static", {}).get("median")
            static = f"{s * 1e3:.2f} | {s * 1e3 / b:.2f}×" if s else "— | —"
            w(f"| {what} | {peer} | {a:.2f} | {b:.2f} | {a / b:.2f}× | {static} |")
    peak = process.get("peakKB", {})
    if peak:
        w(f"\nPeak resident memory (largest of three runs): `archive import` of the export, "
          f"{peak['import'] / 1024:.0f} MB; a standalone merge at N = {process.get('count', 0):,} "
          f"(open, 1,000 merges of 50 IDs, exit; a program linking only the engine): engine {peak['merge'] / 1024:.1f} MB"
          + (f" ({peak['mergeStatic'] / 1024:.1f} MB with the static runtime)" if peak.get("mergeStatic") else "")
          + f", raw C {peak['rawCMerge'] / 1024:.1f} MB. Measured by `PeakRSS`, a C parent (see process.sh).")
    w("")

    w("## Targets\n")
    w("| target | measured | met |")
    w("|---|---|:---:|")

    def check(label, value, ok, text):
        w(f"| {label} | {text} | {'yes' if ok else '**no**'} |" if value is not None else f"| {label} | not measured | **no** |")

    for n in sizes:
        for op in ["merge", "page"]:
            e, r = t(op, "engine", n), t(op, "rawC", n)
            ratio = e / r if e and r else None
            check(f"{op} p50 within 1.3× raw C, N = {n:,}", ratio, ratio is not None and ratio <= 1.3, f"{ratio:.2f}×" if ratio else "")
    if 10_000 in sizes and 1_000_000 in sizes:
        ratio = t("merge", "engine", 1_000_000) / t("merge", "engine", 10_000)
        check("merge at 1,000,000 within 2× of 10,000", ratio, ratio <= 2, f"{ratio:.2f}×")
    for n in sizes:
        e, r, g = rows_per_s("engine", n), rows_per_s("rawC", n), rows_per_s("grdb", n)
        check(f"import ≥ 0.8× raw C rows/s, N = {n:,}", e, e and r and e / r >= 0.8, f"{e / r:.2f}×" if e and r else "")
        check(f"import ≥ 3× GRDB rows/s, N = {n:,}", e, e and g and e / g >= 3, f"{e / g:.1f}×" if e and g else "")
        e, r = ops_per_s("engine", n), ops_per_s("rawC", n)
        check(f"toggle ≥ 0.8× raw C ops/s, N = {n:,}", e, e and r and e / r >= 0.8, f"{e / r:.2f}×" if e and r else "")
        e, r = t("open", "engine", n), t("open", "rawC", n)
        check(f"open within 1.5× raw C, N = {n:,}", e, e and r and e / r <= 1.5, f"{e / r:.2f}×" if e and r else "")
    if peak:
        e, r = peak["merge"], peak["rawCMerge"]
        check(f"standalone merge process peak memory within 1.5× raw C, N = {process.get('count', 0):,}", e, e / r <= 1.5,
              f"{e / 1024:.1f} MB vs {r / 1024:.1f} MB ({e / r:.2f}×)")
        if peak.get("mergeStatic"):
            e = peak["mergeStatic"]
            check(f"standalone merge process peak memory within 1.5× raw C, N = {process.get('count', 0):,} (static runtime)", e, e / r <= 1.5,
                  f"{e / 1024:.1f} MB vs {r / 1024:.1f} MB ({e / r:.2f}×)")
        check("`archive import` peak memory ≤ 64 MB", peak["import"], peak["import"] / 1024 <= 64, f"{peak['import'] / 1024:.0f} MB")
    imported = process.get("import", {}).get("archive")
    raw = rows_per_s("rawC", largest)  # the harness's raw C import at the largest N: rows already parsed
    if imported and raw:
        rate = process["count"] / imported["median"]
        check(f"`archive import` end to end ≥ 0.5× raw C rows/s (raw C: already parsed rows, N = {largest:,})", rate, rate / raw >= 0.5,
              f"{rate:,.0f} vs {raw:,.0f} rows/s ({rate / raw:.2f}×)")
    for name, (what, _, target) in PROCESS_ROWS.items():
        row = process.get(name) or {}
        for build, label in [("archive", ""), ("archive-static", " (static runtime)")]:
            if build == "archive-static" and build not in row:
                continue
            ratio = row[build]["median"] / row["peer"]["median"] if row else None
            goal = f"at least {1 / target:.1f}× as fast as its peer" if target < 1 else (
                "as fast as its peer" if target == 1 else f"within {target}× its peer's time")
            check(f"{what}{label}: {goal}", ratio, ratio is not None and ratio <= target, f"{ratio:.2f}× its time" if ratio else "")
    s = t("storeSearch", "engine", largest)
    check(f"Store search p50 under 500 µs, N = {largest:,}", s, s and s < 500, f"{s:.0f} µs" if s else "")
    for n in sizes:
        e, s = t("favoritesSearch", "engine", n), t("favoritesSearch", "rawCScan", n)
        if n == 1_000_000:
            check("favorites search p50 ≤ 2 ms, N = 1,000,000", e, e and e <= 2_000, f"{e / 1e3:.2f} ms" if e else "")
        check(f"favorites search ≥ 50× faster than a full scan, N = {n:,}", e, e and s and s / e >= 50, f"{s / e:,.0f}×" if e and s else "")
        wi, wo = rows_per_s("engine", n), rows_per_s("engineNoIndex", n)
        check(f"import with the search index ≥ 0.6× without it, N = {n:,}", wi, wi and wo and wi / wo >= 0.6, f"{wi / wo:.2f}×" if wi and wo else "")
    if missing:
        w("\nMissing results: " + ", ".join(missing))
    w("""
## Notes on the misses

- **import with the search index** is 0.23–0.45× of the import without it over the last two
  full runs (target 0.6×). `perf record` on the engine's bulk insert of 200,000: libsqlite3 (FTS5's
  hash of pending grams, then writing and merging segments) is half of the samples, `memcmp` in
  its hash chains a tenth, the engine's gram cutting 6 %. Each favorite has about 133 characters
  of text, so about 133 grams, one per character: that is what makes 1- and 2-character keywords
  (`蕎`, `寿司`) exact prefix queries. The index then costs about 6 µs a favorite, where the whole
  import without it costs 3–4 µs. Tried this round: a 32 MiB FTS5 hash (0.24× to 0.32× at
  200,000, for 24 MB more memory, which would break the import's 64 MB target), `automerge` off
  with a high `crisismerge` (no gain); kept from before: single-row statements instead of
  triggers, an 8 MiB hash, a gram writer without captured state. With FTS5 and one gram per
  character, 0.6× is out of reach; what would reach it is fewer postings per favorite (a sparse
  selection of grams, with short keywords answered another way) or an index format of our own
  built in bulk.
- **favorites search** now meets its targets (it was 10.6 ms at a million, 18× the scan at
  10,000): the index is asked only for a keyword's rarest windows. Each window is probed for its
  first 8 rows, whose IDs say how dense its list is; a window most favorites contain (`番号 ` in
  `番号 12346`, whose list holds every favorite) is left out, because FTS5 intersects by stepping
  through every list, a whole leaf page at a time. Measured on the same fixtures with a probe
  binary: 5.5 ms to 0.48 ms at 1,000,000, 170 µs to 35–57 µs at 10,000.
- **import end to end**: `archive import` of the 1M export took 72 s in the previous round: an
  export lists favorites newest first, and FTS5 writes its pending index out as a new segment
  whenever a row's ID is lower than the one before, so it wrote one per favorite. Favorites that
  arrive out of ID order are now indexed at the end of the import, in ID order, in the same
  transaction: 22–23 s, 0.61× raw C's rate (raw C: rows already parsed, with the same index
  statements). The Python script keeps no index (it cannot load the engine's tokenizer), so its
  row (1.96× its time) compares unlike work: the index is about 10 of the 23 s (the harness: 14 s with it, 3.7 s without). Peak memory 59 MB
  (the duplicate counter's Bloom filter is now sized for the smallest possible record, 8 MB
  instead of 16).
- **engine against raw C** at import and toggle run the same statements now that the C peer's
  bulk insert also ends with `optimize` (it did not in the previous run, where the engine's import
  read 0.74/0.71× at 100k/1M): 0.88/0.91/1.00×. Toggle (one transaction per add or remove, each
  writing a small FTS5 segment that FTS5 merges every few toggles) moved between 0.69× and 1.39×
  across the last two runs, as did merge at 10,000 (1.08× and 1.62×, at 13–21 µs): this
  machine's speed varies within and between runs (see "Small N").
- **page** (the 50 newest favorites): a page keeps the rows' bytes and decodes a text only when it
  is read, and the Favorites state now keeps those rows too (the reducer no longer decodes every
  favorite into an object). This round the page's texts are read as SQLite converts them, without
  asking each column's type (a number another program stored in a text column reads as its
  text), and the loop no longer appends through a captured builder: 26 to 23 µs at 100,000,
  1.14× raw C at every N (1.29–1.35× before).
- **export** is 0.85× and 1.12× `sqlite3 -json`'s time in the last two runs (0.68× the round
  before): the same code, on a machine whose speed moves by about 30 % between runs.
- **standalone merge memory**: measured from a C parent now (`PeakRSS`); the Python parent used
  before lent every child its own 10–14 MB, which read the C peer as 13.6 MB where it needs
  8.2 MB. The engine's merge process links the engine alone now (it linked the harness, GRDB and
  the HTTP stack): 22.7 MB, 16.7 MB with the static runtime (2.8× and 2.0×). The merges are not
  the difference (1,000 of them add about 2 MB to either); opening is: the static merge process
  peaks at 15 MB before its first merge, where a static hello-world importing Foundation peaks at
  5 MB and the C program at 6.6 MB. `perf record -e page-faults`: half the faults are the
  loader relocating the binary (83 MB static: Foundation, its ICU data, and BoringSSL, which
  swift-crypto brings in for the migrations' one SHA-256). What would close it: the engine's
  modules on FoundationEssentials, the migrations' checksums computed at build time (no
  swift-crypto at run time), and the static runtime.
- **Store search** p50 is 320–371 µs (target 500 µs) since the last search is remembered when a
  front leaves instead of at every search (1,950 µs in the previous round's run).
- **cold start** (`archive search`, whole process) is 8.4–10.1× the `sqlite3` CLI as built by
  `swift build -c release`, 6.0–7.0× with the Swift runtime and Foundation linked statically
  (`--static-swift-stdlib`); not changed this round. A call-graph profile this round
  (`perf record --call-graph dwarf` over cold runs of the dynamic build): the loader about a third,
  the kernel's page faults a quarter, ArgumentParser's parse 14 % (half of it its check for
  `--generate-completion-script`, which reflects over the commands), opening the database 4.5 %.
  `perf record` over 200 cold runs, the round before: in the dynamic build about 45 % of
  the samples are the dynamic loader (symbol lookup and relocation for libFoundation,
  FoundationEssentials, ICU and libswiftCore), which the static runtime removes. What is left is
  mostly the Swift runtime's protocol-conformance scans: ArgumentParser reflects over every
  command's properties (`Mirror`, `as?` casts), about 260 conformance lookups per start-up, and each
  first lookup walks all 9,558 conformance records of the binary, most of them from the HTTP stacks
  (SwiftNIO, HTTP/2 and TLS through AsyncHTTPClient, Hummingbird) and Foundation; plus the page
  faults of a 160 MB executable. `archive --help` alone takes 7.3 ms, a static hello-world that
  imports Foundation 2.6 ms. Closing the gap needs a smaller `archive` for the local commands
  (the HTTP client and `serve` in a helper executable, about 2,900 fewer records) or a command-line
  parser without runtime reflection; both change the product's shape and were left for a decision.
  FoundationNetworking is gone (no libcurl: `ldd` lists 22 libraries, none of them curl).
  `archive add` + `archive remove` pays the same start-up twice (3.6× with the static runtime).
- **Small N** ratios (N = 10,000) move by ±20 % between runs on this 2-core machine (each
  benchmark is a separate process sharing the cores with the harness); the larger N are steadier.
- Callgrind cannot read this toolchain's DWARF 5 debug info (`valgrind` gives up), so profiles
  were taken with `perf record`.""")
    print("\n".join(out))


if __name__ == "__main__":
    main()
