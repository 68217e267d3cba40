#!/usr/bin/env python3
"""A/B of two MarblesBenchmarks builds on the profiling loops (empty-run-loop, small-test-loop,
async-test, task-sleep): each side's loop is timed ROUNDS times, alternating, and the fastest
of each side is compared (the minimum is what the code costs; slower runs add the machine's noise).

Usage: profile-ab.py BASE_BINARY NEW_BINARY [--rounds N] [--parts a,b]
"""
import os
import subprocess
import sys
import time

PARTS = {  # part: the loop's iterations (PROFILE_TESTS), to print a per-iteration figure
    "empty-run-loop": 300_000,
    "small-test-loop": 100_000,
    "async-test": 50_000,
    "task-sleep": None,
}


def timed(binary, part, count):
    env = dict(os.environ)
    if count:
        env["PROFILE_TESTS"] = str(count)
    start = time.perf_counter()
    subprocess.run([binary, "--only", part], env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main():
    args = sys.argv[1:]
    base, new = args[0], args[1]
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 7
    parts = args[args.index("--parts") + 1].split(",") if "--parts" in args else list(PARTS)
    for part in parts:
        count = PARTS[part]
        times = {"base": [], "new": []}
        for _ in range(rounds):
            for side, binary in (("base", base), ("new", new)):
                times[side].append(timed(binary, part, count))
        b, n = min(times["base"]), min(times["new"])
        unit = f"{b / count * 1e6:8.3f} → {n / count * 1e6:8.3f} µs per iteration" if count else f"{b:6.2f} → {n:6.2f} s"
        print(f"{part:<16} {unit}   {n / b:5.3f}×", flush=True)


if __name__ == "__main__":
    main()
