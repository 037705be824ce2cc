"""One line of load-results.jsonl from a pgbench run (Benchmarks/load/run.sh).

    python3 pgbench_log.py SCENARIO CLIENTS OUTPUT POSTGRES_CPU LOAD_CPU LOG...

POSTGRES_CPU and LOAD_CPU are the CPU seconds PostgreSQL and pgbench used. OUTPUT is what pgbench printed (its tps, without the connections' set-up, and its failures); each
LOG is a per-transaction log of `pgbench --log` (client, transaction, latency in µs, script, epoch
seconds, µs), whose latencies give the percentiles.
"""
import json
import re
import sys


def percentile(ordered: list, fraction: float) -> float:
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    scenario, clients, output = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    postgres_cpu, load_cpu, logs = float(sys.argv[4]), float(sys.argv[5]), sys.argv[6:]
    tps = re.search(r"tps = ([0-9.]+) \(without initial connection time\)", output)
    if not tps:
        raise SystemExit("pgbench printed no tps:\n" + output)
    failed = re.search(r"number of failed transactions: (\d+)", output)
    latencies = []
    for path in logs:
        with open(path) as file:
            for line in file:
                fields = line.split()
                if len(fields) >= 3 and fields[2].isdigit():
                    # With a rate (-R), the latency counts from the scheduled start (the 6th
                    # field, the schedule lag, is included in the 3rd).
                    latencies.append(int(fields[2]) / 1000)
    latencies.sort()
    print(json.dumps({
        "kind": "pgbench", "backend": "pgbench", "scenario": scenario, "clients": clients,
        "requests": len(latencies), "rps": float(tps.group(1)),
        "p50_ms": percentile(latencies, 0.50), "p90_ms": percentile(latencies, 0.90),
        "p99_ms": percentile(latencies, 0.99), "max_ms": latencies[-1] if latencies else 0.0,
        "failed": int(failed.group(1)) if failed else 0,
        "server_cpu": 0.0, "postgres_cpu": postgres_cpu, "load_cpu": load_cpu,
    }))


if __name__ == "__main__":
    main()
