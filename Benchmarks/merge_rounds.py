#!/usr/bin/env python3
"""Merges the hyperfine JSON exports of several rounds of the same commands into one.

    merge_rounds.py OUTPUT.json ROUND.json...

process.sh times each whole-process row in rounds, every command once per round
(archive, its static build, the peer, then again), so that a burst of load from the
host's neighbours falls on every command alike instead of on whichever one hyperfine
was timing then. Each command's times are pooled over the rounds; its median, mean
and standard deviation are those of the pooled times.
"""
import json
import statistics
import sys


def main():
    output, paths = sys.argv[1], sys.argv[2:]
    if not paths:
        sys.exit("merge_rounds.py: no round to merge")
    pooled, order = {}, []
    for path in paths:
        for result in json.load(open(path))["results"]:
            name = result["command"]
            if name not in pooled:
                pooled[name] = []
                order.append(name)
            pooled[name].extend(result["times"])
    results = []
    for name in order:
        times = pooled[name]
        results.append({
            "command": name,
            "times": times,
            "median": statistics.median(times),
            "mean": statistics.fmean(times),
            "stddev": statistics.stdev(times) if len(times) > 1 else 0.0,
            "min": min(times),
            "max": max(times),
            "rounds": len(paths),
        })
    with open(output, "w") as file:
        json.dump({"results": results}, file, indent=1)


if __name__ == "__main__":
    main()
