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
        elif re.match(r"\w+ call \(ns\)", label):
            # The paired benchmarks' custom metrics: one call's time by peer, in ns, which
            # ordo-one/benchmark prints scaled (`(K)`: thousands of ns).
            peer = label.split(" ", 1)[0]
            scaled = re.search(r"\(ns\) \(([KMG])\)", label)
            scale = {"K": 1e3, "M": 1e6, "G": 1e9}[scaled.group(1)] if scaled else 1.0
            results[name].setdefault("calls", {})[peer] = {k: v * scale / 1e3 for k, v in p.items()}
        elif label.startswith("Memory (resident peak)"):
            unit = re.search(r"\(([KMG]?)\)", label).group(1)
            scale = {"": 1e-6, "K": 1e-3, "M": 1.0, "G": 1e3}[unit]
            results[name]["memory"] = p["p50"] * scale
    return results


def parse_direct(path):
    """The same, from the suite's executable run on its own (CI's smoke run): for each
    "Debug results for NAME:", a histogram per metric ("Value Percentile ..." rows); the
    p50 is the first value at or past the 0.5 percentile. Time is in ns there, memory in bytes."""
    results, name, metric = {}, None, None
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if line.startswith("Debug results for ") and line.endswith(":"):
            name, metric = line[len("Debug results for "):-1], None
            results[name] = {}
        elif name and line.endswith(":") and not line[0].isdigit():
            metric = line[:-1]
        elif name and metric and line[:1].isdigit():
            value, percentile = (float(cell) for cell in line.split()[:2])
            if percentile < 0.5:
                continue
            if metric.startswith("Time (wall clock)"):
                results[name].setdefault("time", {"p50": value / 1e3})
            elif metric.endswith(" call (ns)"):
                results[name].setdefault("calls", {}).setdefault(metric.split(" ", 1)[0], {"p50": value / 1e3})
            elif metric.startswith("Memory (resident peak)"):
                results[name].setdefault("memory", value / 1e6)
    return results


def expected(sizes):
    names = [f"{op}/{peer}/{n}" for n in sizes for op in OPERATIONS for peer in PEERS[:3]]
    names += [f"merge/original/{n}" for n in sizes]
    names += [f"import/engineNoIndex/{n}" for n in sizes]
    names += [f"{op}/engine/{n}" for n in sizes for op in ["syncApply", "syncPair"]]
    names += [f"favoritesSearch/{peer}/{n}" for n in sizes for peer in ["engine", "rawCScan"]]
    names += [f"{op}/paired/{n}" for n in sizes for op in ["page", "merge", "toggle"]]
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
    direct = any(line.startswith("Debug results for ") for line in open(path, encoding="utf-8"))
    results = parse_direct(path) if direct else parse(path)
    sizes = sizes_of(results)
    def measured(name):
        """Whether the run has the benchmark's times: wall clock, or each peer's calls when paired."""
        r = results.get(name, {})
        return "time" in r or ("/paired/" in name and {"engine", "rawC"} <= set(r.get("calls", {})))

    missing = [n for n in expected(sizes) if not measured(n)]
    missing += [f"process/{name}" for name in PROCESS_ROWS if name not in process]
    missing += [] if "peakKB" in process else ["process/peakKB"]
    missing += [] if "floors" in process else ["process/floors"]
    if smoke:
        if missing:
            print("missing benchmark results: " + ", ".join(missing), file=sys.stderr)
            if direct:
                # Run on its own, the suite ends at a failing benchmark without saying why.
                print("the suite's executable stops at the first benchmark that fails; "
                      "`swift package benchmark --filter NAME` (release) prints its error", file=sys.stderr)
            sys.exit(1)
        print(f"benchmark smoke run: {len(results)} benchmarks ran at N = {sizes}")
        return

    def t(op, peer, n, p="p50"):
        r = results.get(f"{op}/{peer}/{n}", {}).get("time")
        return r[p] if r else None

    def paired(op, peer, n):
        """p50 of one call in µs, from the benchmark where the engine and raw C take turns."""
        r = results.get(f"{op}/paired/{n}", {}).get("calls", {}).get(peer)
        return r["p50"] if r else None

    def mem(op, peer, n):
        return results.get(f"{op}/{peer}/{n}", {}).get("memory")

    def rows_per_s(peer, n):
        v = t("import", peer, n)
        return n / (v / 1e6) if v else None

    def applied_per_s(n):
        v = t("syncApply", "engine", n)
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
    w("- **grdb**: idiomatic GRDB 7 (record type, `DatabaseMigrator`, WAL `DatabaseQueue`, query interface), "
      "keeping the search index in step with the engine's index statements (cached statements);")
    w("- **original**: the original app's merge (load every stored object, map to IDs, `Array.contains` per result row).\n")
    w("Favorites have IDs 2, 4, …, 2N and about 200 bytes of text each; an import stores N favorites in one transaction into "
      "a new file and is measured to the file closed (closing checkpoints the write-ahead log into the file); "
      "a merge asks 50 consecutive IDs (about half stored). "
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
        for op in ["toggle", "page", "merge"]:
            w(f"| {op} p50, taking turns (µs) | {n:,} | {fmt(paired(op, 'engine', n), 1)} | {fmt(paired(op, 'rawC', n), 1)} | — | — |")
        w(f"| open p50 (µs) | {n:,} | " + " | ".join(fmt(t("open", peer, n), 1) for peer in PEERS[:3]) + " | — |")
    largest = max(sizes)
    w(f"\nFull archive search through the Store (dispatch → bundled catalog → merge → new state) at N = {largest:,}: "
      f"p50 {fmt(t('storeSearch', 'engine', largest), 1)} µs, p99 {fmt(t('storeSearch', 'engine', largest, 'p99'), 1)} µs.\n")

    w("## Favorites search\n")
    w("`archive favorites --search` among N favorites: the engine's gram index (migration 0004: runs "
      "of gram keys built in bulk; FTS5 before, docs/PERFORMANCE.md) against the peer a developer without it would write, a full scan "
      "from C (`instr` over the five text columns, case-sensitive: less work than the engine's "
      "case-insensitive semantics). The query, `番号 12346`, matches 1, 6 and 56 favorites at "
      "10k, 100k and 1M; each call reads the first page of 50, newest first. The import rows put the "
      "index's price at import (the engine with its index, and with the index tables dropped, which "
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

    w("## Sync\n")
    w("Favorites that follow the user (docs/SYNC.md). **Apply**: N changes another device made, "
      "received in one batch onto a copy of the engine's N-favorite file (half supersede a stored "
      "favorite, half are new; the merge rule for each, the search index kept in step), to the file "
      "closed, against the import of N favorites into a new file. **Sync of 1,000 changes**: two files "
      "holding the same N favorites as two devices that met before; one removes 1,000 favorites (or "
      "stores them again), then the two-way session of `archive sync` runs (p50). **File size**: the "
      "engine's fixture vacuumed, and the same without the sync metadata (each favorite's stamp, device "
      "and seq, the feed's index, tombstones and the sync tables), vacuumed. The GRDB peer writes no sync "
      "metadata; raw C runs the engine's SQL, stamps included.\n")
    w("| N | apply (rows/s) | import (rows/s) | ratio | sync of 1,000 changes p50 (ms) | file (MB) | without sync metadata (MB) | ratio |")
    w("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        applied, imported = applied_per_s(n), rows_per_s("engine", n)
        pair = t("syncPair", "engine", n)
        size = index_sizes.get(str(n), {})
        a, b = size.get("vacuumed"), size.get("withoutSync")
        w(f"| {n:,} | {fmt(applied)} | {fmt(imported)} | {f'{applied / imported:.2f}×' if applied and imported else '—'} | "
          f"{fmt(pair / 1e3, 1) if pair else '—'} | {fmt(a / 1e6, 1) if a else '—'} | {fmt(b / 1e6, 1) if b else '—'} | "
          f"{f'{a / b:.2f}×' if a and b else '—'} |")
    w("")

    w("## Whole processes\n")
    w("What a user of the `archive` command feels: release builds, each row `archive` and the command "
      "a user would otherwise run, on the same file, timed by hyperfine in rounds that take turns "
      "(five rounds of 12 runs each for the short rows, their times pooled: a burst of load from the host "
      "falls on every command alike; one round for export and import) (`Benchmarks/process.sh`; "
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
    floors = process.get("floors")
    if floors:
        peer_ms = floors["peer"]["median"] * 1e3
        engine_ms, async_ms = floors["engine-only"]["median"] * 1e3, floors["async-floor"]["median"] * 1e3
        loop = floors.get("run-loop-floor")
        loop_text = (f"{loop['median'] * 1e3:.2f} ms ({loop['median'] * 1e3 / peer_ms:.2f}×) with the main thread "
                     "serving its main actor itself, as `archive` does (`MainThreadRunLoop`), ") if loop else ""
        kept = floors.get("main-thread-floor")
        loop_text += (f"{kept['median'] * 1e3:.2f} ms ({kept['median'] * 1e3 / peer_ms:.2f}×) with the task kept on "
                      "the main thread too (no worker thread), as `archive search`, `add` and `remove` run, ") if kept else ""
        w(f"\nWhat bounds the cold rows, timed in rounds of their own beside the same `sqlite3` query "
          f"({peer_ms:.2f} ms; static builds): a program linking only the engine that opens the same file, "
          f"checks its migrations, asks one merge of 50 IDs and exits, {engine_ms:.2f} ms ({engine_ms / peer_ms:.2f}×); "
          f"a Swift program that awaits one detached task from its main actor and prints, {loop_text}"
          f"{async_ms:.2f} ms ({async_ms / peer_ms:.2f}×) with `dispatch_main()` serving it, as an async `main` does: "
          "the runtime's floor for a command whose work leaves the main thread, as the store effects of "
          "`archive`'s longer commands do.")
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
            # From the benchmarks where the engine and raw C take turns call by call (round
            # 22: timed in processes of their own, the two peers met the host in different
            # modes; the merge's own rows have two modes too, 26 and 39 µs at 10,000).
            e, r = paired(op, "engine", n), paired(op, "rawC", n)
            ratio = e / r if e and r else None
            check(f"{op} p50 within 1.3× raw C (taking turns), N = {n:,}", ratio, ratio is not None and ratio <= 1.3, f"{ratio:.2f}×" if ratio else "")
    if 10_000 in sizes and 1_000_000 in sizes:
        ratio = t("merge", "engine", 1_000_000) / t("merge", "engine", 10_000)
        check("merge at 1,000,000 within 2× of 10,000", ratio, ratio <= 2, f"{ratio:.2f}×")
    for n in sizes:
        e, r = rows_per_s("engine", n), rows_per_s("rawC", n)
        check(f"import ≥ 0.8× raw C rows/s, N = {n:,}", e, e and r and e / r >= 0.8, f"{e / r:.2f}×" if e and r else "")
        e, r = paired("toggle", "engine", n), paired("toggle", "rawC", n)
        e, r = (1e6 / e if e else None), (1e6 / r if r else None)
        check(f"toggle ≥ 0.8× raw C ops/s (taking turns), N = {n:,}", e, e and r and e / r >= 0.8, f"{e / r:.2f}×" if e and r else "")
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
    for n in sizes:
        applied, imported = applied_per_s(n), rows_per_s("engine", n)
        check(f"sync: received changes applied ≥ 0.5× the import's rows/s, N = {n:,}", applied, applied and imported and applied / imported >= 0.5,
              f"{applied:,.0f} vs {imported:,.0f} rows/s ({applied / imported:.2f}×)" if applied and imported else "")
    if 10_000 in sizes and 1_000_000 in sizes:
        a, b = t("syncPair", "engine", 1_000_000), t("syncPair", "engine", 10_000)
        check("sync of 1,000 changes between 1,000,000-favorite files within 2× of 10,000", a, a and b and a / b <= 2,
              f"{a / b:.2f}× ({a / 1e3:.1f} vs {b / 1e3:.1f} ms)" if a and b else "")
    for n in sizes:
        size = index_sizes.get(str(n), {})
        a, b = size.get("vacuumed"), size.get("withoutSync")
        check(f"file with the sync metadata ≤ 1.15× without, N = {n:,}", a, a and b and a / b <= 1.15, f"{a / b:.2f}×" if a and b else "")
        wi, wo = rows_per_s("engine", n), rows_per_s("engineNoIndex", n)
        check(f"import with the search index ≥ 0.6× without it, N = {n:,}", wi, wi and wo and wi / wo >= 0.6, f"{wi / wo:.2f}×" if wi and wo else "")
    if missing:
        w("\nMissing results: " + ", ".join(missing))
    w("""
## What bounds these figures

Raw C running the engine's SQL is the ceiling: a target above it is not carried. What
bounds each figure, how it was profiled, and every performance decision with the command
that measures it: [docs/PERFORMANCE.md](docs/PERFORMANCE.md). The history of these tables
is in git (`git log -p -- BENCHMARKS.md`).""")
    print("\n".join(out))


if __name__ == "__main__":
    main()
