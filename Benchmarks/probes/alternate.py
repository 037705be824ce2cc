#!/usr/bin/env python3
"""A probe, not part of a run: whole processes timed taking turns, run by run.

    python3 Benchmarks/probes/alternate.py RUNS 'COMMAND' 'COMMAND' ...

Each COMMAND is split as a shell would split it (shlex, no shell started) and
spawned directly (posix_spawn), its stdout sent to /dev/null; one run of each,
in turn, RUNS times, the order reversed every other time. For each command it
prints the median wall time and the median CPU time (user + system, from wait4).
Taking turns run by run makes a change in the host's speed fall on every command
alike; hyperfine times all the runs of one command, then the next.
docs/PERFORMANCE.md quotes it for the start-up records. The smoke run (Benchmarks/run.sh --smoke) runs it at RUNS = 2.
"""
import os
import shlex
import statistics
import sys
import time


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit("usage: alternate.py RUNS 'COMMAND' ['COMMAND'...]")
    runs = int(sys.argv[1])
    commands = [shlex.split(command) for command in sys.argv[2:]]
    for command in commands:
        if not command:
            sys.exit("alternate.py: an empty command")
    wall = [[] for _ in commands]
    cpu = [[] for _ in commands]
    devnull = os.open(os.devnull, os.O_WRONLY)
    for run in range(runs):
        order = range(len(commands)) if run % 2 == 0 else reversed(range(len(commands)))
        for index in order:
            command = commands[index]
            start = time.perf_counter()
            try:
                pid = os.posix_spawnp(command[0], command, os.environ,
                                      file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
            except OSError as error:
                sys.exit(f"alternate.py: cannot start {command[0]!r}: {error.strerror}")
            _, status, usage = os.wait4(pid, 0)
            wall[index].append(time.perf_counter() - start)
            cpu[index].append(usage.ru_utime + usage.ru_stime)
            if status != 0:
                sys.exit(f"alternate.py: {shlex.join(command)!r} ended with wait status {status}")
    for index, command in enumerate(commands):
        print(f"{statistics.median(wall[index]) * 1e3:7.2f} ms wall  {statistics.median(cpu[index]) * 1e3:7.2f} ms CPU  "
              f"{shlex.join(command)}")


if __name__ == "__main__":
    main()
