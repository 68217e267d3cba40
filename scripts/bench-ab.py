#!/usr/bin/env python3
"""A/B of two MarblesBenchmarks builds in one run: alternates them ROUNDS times per section and
prints, per line, each side's fastest figure (slower ones add the machine's noise) and the
ratio new / base (below 1: the new build is faster). Run it on an idle machine.

Usage: bench-ab.py BASE_BINARY NEW_BINARY [--rounds N] [--sections a,b,c]
Build each side with `cd Benchmarks && swift build -c release --product MarblesBenchmarks`
(the base in a worktree: git worktree add /tmp/base REV).
"""
import re
import subprocess
import sys

LINE = re.compile(r"^\s+(.+?)\s{2,}([0-9][0-9,.]*)\s")


def run(binary, section):
    out = subprocess.run([binary, "--only", section], capture_output=True, text=True, timeout=900).stdout
    figures, header = {}, ""
    for line in out.splitlines():
        if line.startswith("=="):
            header = line.strip("= ").strip()
            continue
        match = LINE.match(line)
        if match:
            figures[(header, match.group(1).strip())] = float(match.group(2).replace(",", ""))
    return figures


def main():
    args = sys.argv[1:]
    base, new = args[0], args[1]
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 5
    sections = (args[args.index("--sections") + 1] if "--sections" in args else
                "scheduler,small-test,marble-test,async,parser,chain,subject").split(",")
    for section in sections:
        samples = {"base": {}, "new": {}}
        for _ in range(rounds):
            for side, binary in (("base", base), ("new", new)):
                for key, value in run(binary, section).items():
                    samples[side].setdefault(key, []).append(value)
        print(f"== {section}")
        for key in samples["base"]:
            if key not in samples["new"]:
                continue
            b, n = min(samples["base"][key]), min(samples["new"][key])
            ratio = n / b if b else float("nan")
            print(f"  {key[1][:60]:<60} {b:>10.3f} {n:>10.3f}  {ratio:5.2f}×")


if __name__ == "__main__":
    main()
