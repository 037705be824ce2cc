"""The load section of BENCHMARKS.md, from Benchmarks/load/run.sh's results.

    python3 report.py RESULTS.jsonl                  prints the section
    python3 report.py --into BENCHMARKS.md RESULTS   replaces the section in BENCHMARKS.md
                                                     (between its markers; appended the first time)
    python3 report.py --turns RESULTS.jsonl          builds compared in turns (run.sh with
                                                     ARCHIVE_SERVER_BINARIES and LOAD_TURNS): a row a run
"""
import json
import sys

BEGIN, END = "<!-- load: begin (Benchmarks/load/run.sh) -->", "<!-- load: end -->"
TARGET_CLIENTS, TARGET_RATIO, TARGET_P99_MS = 64, 0.5, 50.0


def fmt_rate(value: float) -> str:
    return f"{value:,.0f}"


def fmt_ms(value: float) -> str:
    return f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def cpu_per_request(run: dict) -> str:
    """The server process's CPU milliseconds per request of a wrk run, or nothing."""
    return f"{1000 * run['server_cpu'] / run['requests']:.2f}" if run.get("requests") and "server_cpu" in run else ""


def section(rows: list) -> str:
    wrk = {(r["backend"], r["scenario"], r["clients"]): r for r in rows if r["kind"] == "wrk"}
    bench = {(r["scenario"], r["clients"]): r for r in rows if r["kind"] == "pgbench"}
    memory = {r["backend"]: r for r in rows if r["kind"] == "memory"}
    clients = sorted({c for (_, c) in bench} | {c for (_, _, c) in wrk})
    out = [BEGIN, "", "## The sync service under load", ""]
    out.append(
        "`archive-server` (release) under wrk (`Benchmarks/load/load.lua`): devices of 1,000 users with 1,000 "
        "favorites each, pushing 5 changes that each replace a held favorite, and pulling the changes after "
        "their cursor; beside it, pgbench running the statements the PostgreSQL backend runs "
        "(`push.sql`, `pull.sql`: token check, then the one statement a bound device's request takes) on the same database of the same "
        "PostgreSQL at the same concurrency: the most any service on that database can do on this machine. "
        "Requests (transactions for pgbench) per second; latency of a whole request, in ms. "
        "Both the load and the server share the machine's 2 cores. docs/PERFORMANCE.md says what bounds each figure.")
    out.append("")
    for scenario, title in (
        ("push", "Pushes only, each client sending its next request as soon as it has the answer"),
        ("mix", "The mix: 80 % pushes, 20 % pulls, back to back"),
        ("paced", "The mix, paced: each client waits 250 ms on average between requests, at random as devices do (pgbench: the same rate, `-R`)"),
    ):
        out += [f"**{title}**", ""]
        out.append("| clients | PostgreSQL backend | p50 | p99 | pgbench | p50 | p99 | backend ÷ pgbench | SQLite backend | p50 | p99 |")
        out.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for c in clients:
            p, g, s = wrk.get(("postgres", scenario, c)), bench.get((scenario, c)), wrk.get(("sqlite", scenario, c))
            if not (p or g or s):
                continue
            cells = [f"{c:,}"]
            for r in (p, g):
                cells += [fmt_rate(r["rps"]), fmt_ms(r["p50_ms"]), fmt_ms(r["p99_ms"])] if r else ["", "", ""]
            if p and g:
                ratio = p["rps"] / g["rps"]
                mark = " ✔" if ratio >= TARGET_RATIO else " ✘"
                cells.append(f"{ratio:.2f}×" + (mark if scenario == "push" and c == TARGET_CLIENTS else ""))
            else:
                cells.append("")
            cells += [fmt_rate(s["rps"]), fmt_ms(s["p50_ms"]), fmt_ms(s["p99_ms"])] if s else ["", "", ""]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    out += ["**With TLS** (HTTPS, TLS 1.3, a P-256 certificate; the same server restarted with "
            "`--tls-certificate`/`--tls-key`): requests/s and latency beside the plain runs above", ""]
    out.append("| backend | run | clients | plain | p50 | p99 | TLS | p50 | p99 | TLS ÷ plain | server CPU ms/request, plain | with TLS |")
    out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for backend in ("postgres", "sqlite"):
        for scenario in ("push", "mix"):
            for c in clients:
                plain, tls = wrk.get((backend, scenario, c)), wrk.get((backend, scenario + "-tls", c))
                if not (plain and tls):
                    continue
                name = "PostgreSQL" if backend == "postgres" else "SQLite"
                out.append(
                    f"| {name} | {scenario} | {c:,} | {fmt_rate(plain['rps'])} | {fmt_ms(plain['p50_ms'])} | {fmt_ms(plain['p99_ms'])} | "
                    f"{fmt_rate(tls['rps'])} | {fmt_ms(tls['p50_ms'])} | {fmt_ms(tls['p99_ms'])} | {tls['rps'] / plain['rps']:.2f}× | "
                    f"{cpu_per_request(plain)} | {cpu_per_request(tls)} |")
    out.append("")
    target = wrk.get(("postgres", "push", TARGET_CLIENTS))
    reference = bench.get(("push", TARGET_CLIENTS))
    if target and reference:
        ratio = target["rps"] / reference["rps"]
        out.append(
            f"Targets at {TARGET_CLIENTS} clients, pushes: throughput ≥ {TARGET_RATIO}× pgbench's: "
            f"{ratio:.2f}× {'✔' if ratio >= TARGET_RATIO else '✘'}; p99 ≤ {TARGET_P99_MS:.0f} ms: "
            f"{fmt_ms(target['p99_ms'])} ms {'✔' if target['p99_ms'] <= TARGET_P99_MS else '✘'}.")
        out.append("")
    out += ["**Where the CPU went** (CPU ms per request, of the machine's 2 cores: the server process, "
            "PostgreSQL's processes, the load generator)", ""]
    out.append("| run | clients | requests/s | server | PostgreSQL | wrk or pgbench | total |")
    out.append("|---|---:|---:|---:|---:|---:|---:|")
    for key in (("postgres", "push"), ("pgbench", "push"), ("sqlite", "push"), ("postgres", "mix"), ("pgbench", "mix"), ("sqlite", "mix")):
        for c in clients:
            r = wrk.get((key[0], key[1], c)) if key[0] != "pgbench" else bench.get((key[1], c))
            if not r or c not in (1, TARGET_CLIENTS) or not r.get("requests"):
                continue
            per = [1000 * r.get(k, 0.0) / r["requests"] for k in ("server_cpu", "postgres_cpu", "load_cpu")]
            name = {"postgres": "PostgreSQL backend", "sqlite": "SQLite backend", "pgbench": "pgbench"}[key[0]]
            out.append(f"| {name}, {key[1]} | {c:,} | {fmt_rate(r['rps'])} | {per[0]:.2f} | {per[1]:.2f} | {per[2]:.2f} | {sum(per):.2f} |")
    out.append("")
    opened = {r["backend"]: r for r in rows if r["kind"] == "streams"}
    heard = {r["backend"]: r for r in rows if r["kind"] == "streams-heard"}
    if opened:
        out += ["**Open event streams** (`GET /v1/sync/events`, one a user, held open by `streams.py`; "
                "the pushes run again beside them, each landed push telling its user's streams)", ""]
        out.append("| backend | streams open | server memory before | with them open | per stream | clients | pushes/s without | with the streams | with ÷ without | p99 without | with | events heard |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for backend in ("postgres", "sqlite"):
            o = opened.get(backend)
            if not o:
                continue
            count = int(o["streams"])
            per = (o["rss_open_kb"] - o["rss_before_kb"]) / max(count, 1)
            name = "PostgreSQL" if backend == "postgres" else "SQLite"
            for c in clients:
                plain, with_streams = wrk.get((backend, "push", c)), wrk.get((backend, "streams", c))
                if not with_streams:
                    continue
                cells = [name, f"{count:,}", f"{o['rss_before_kb'] / 1024:,.0f} MB", f"{o['rss_open_kb'] / 1024:,.0f} MB", f"{per:,.1f} kB", f"{c:,}"]
                cells += [fmt_rate(plain["rps"]) if plain else "", fmt_rate(with_streams["rps"]),
                          f"{with_streams['rps'] / plain['rps']:.2f}×" if plain else "",
                          fmt_ms(plain["p99_ms"]) if plain else "", fmt_ms(with_streams["p99_ms"]),
                          f"{int(heard.get(backend, {}).get('events', 0)):,}"]
                out.append("| " + " | ".join(cells) + " |")
        out.append("")
    balanced = [r for r in rows if r["kind"] == "wrk" and r["scenario"] == "balanced"]
    if balanced:
        out += ["**Two servers behind HAProxy, through PgBouncer** (`deploy/haproxy.cfg` in front of two `archive-server`s, "
                "both through PgBouncer in transaction mode, their `LISTEN` direct; the mix; pgbench through the same PgBouncer; "
                "everything on the same 2 cores)", ""]
        out.append("| clients | requests/s | p50 | p99 | pgbench through PgBouncer | p50 | p99 | ÷ pgbench | CPU ms a request: servers | PostgreSQL | PgBouncer | HAProxy |")
        out.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in sorted(balanced, key=lambda r: r["clients"]):
            g = bench.get(("balanced", r["clients"]))
            per = [1000 * r.get(k, 0.0) / r["requests"] if r.get("requests") else 0.0 for k in ("server_cpu", "postgres_cpu", "bouncer_cpu", "haproxy_cpu")]
            cells = [f"{r['clients']:,}", fmt_rate(r["rps"]), fmt_ms(r["p50_ms"]), fmt_ms(r["p99_ms"])]
            cells += [fmt_rate(g["rps"]), fmt_ms(g["p50_ms"]), fmt_ms(g["p99_ms"]), f"{r['rps'] / g['rps']:.2f}×"] if g else ["", "", "", ""]
            cells += [f"{value:.2f}" for value in per]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    out += ["**The server's memory** (resident, `/proc/PID/status`; the PostgreSQL backend's server process only)", ""]
    out.append("| backend | seeded, idle | after the runs above: now | peak | connections at the peak |")
    out.append("|---|---:|---:|---:|---:|")
    for backend in ("postgres", "sqlite"):
        runs = [r for (b, scenario, _), r in wrk.items() if b == backend and scenario != "balanced"]
        if not runs:
            continue
        most = max(runs, key=lambda r: r["clients"])
        seeded = memory.get(backend, {}).get("rss_kb", 0)
        name = "PostgreSQL" if backend == "postgres" else "SQLite"
        out.append(f"| {name} | {seeded / 1024:,.0f} MB | {most['rss_kb'] / 1024:,.0f} MB | {most['peak_kb'] / 1024:,.0f} MB | {most['clients']:,} |")
    out += ["", END]
    return "\n".join(out)


def turns(rows: list) -> str:
    """A row a run of builds compared in turns, each beside the pgbench run of its turn."""
    bench = {}
    for r in rows:
        if r["kind"] == "pgbench":
            bench.setdefault((r["scenario"], r["clients"]), []).append(r)
    out = ["| scenario | clients | turn | server | requests/s | ÷ pgbench | p50 | p99 | server CPU ms/request | PostgreSQL CPU ms/request | server context switches/request |",
           "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r["kind"] != "wrk":
            continue
        runs = bench.get((r["scenario"], r["clients"]), [])
        peer = runs[r["turn"] - 1] if len(runs) >= r["turn"] else None
        ratio = f"{r['rps'] / peer['rps']:.2f}×" if peer and r["backend"] == "postgres" else ""
        n = r["requests"]
        out.append(f"| {r['scenario']} | {r['clients']} | {r['turn']} | {r['server']} | {fmt_rate(r['rps'])} | {ratio} | "
                   f"{fmt_ms(r['p50_ms'])} | {fmt_ms(r['p99_ms'])} | {1000 * r['server_cpu'] / n:.3f} | "
                   f"{1000 * r['postgres_cpu'] / n:.3f} | {r['server_switches'] / n:.1f} |")
    for (scenario, clients), runs in bench.items():
        for turn, r in enumerate(runs, 1):
            out.append(f"| {scenario} | {clients} | {turn} | pgbench | {fmt_rate(r['rps'])} |  | {fmt_ms(r['p50_ms'])} | "
                       f"{fmt_ms(r['p99_ms'])} |  | {1000 * r['postgres_cpu'] / r['requests']:.3f} |  |")
    return "\n".join(out)


def main() -> None:
    args = sys.argv[1:]
    if args and args[0] == "--turns":
        with open(args[1]) as file:
            print(turns([json.loads(line) for line in file if line.strip()]))
        return
    into = None
    if args and args[0] == "--into":
        into, args = args[1], args[2:]
    with open(args[0]) as file:
        rows = [json.loads(line) for line in file if line.strip()]
    text = section(rows)
    if into is None:
        print(text)
        return
    with open(into) as file:
        document = file.read()
    if BEGIN in document and END in document:
        start, end = document.index(BEGIN), document.index(END) + len(END)
        document = document[:start] + text + document[end:]
    else:
        document = document.rstrip("\n") + "\n\n" + text + "\n"
    with open(into, "w") as file:
        file.write(document)


if __name__ == "__main__":
    main()
