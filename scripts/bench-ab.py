#!/usr/bin/env python3
"""A/B of two MarblesBenchmarks builds in one run: alternates them ROUNDS times per section and
prints, per line, each side's fastest figure (slower ones add the machine's noise) and the
ratio new / base (below 1: the new build is faster). Run it on an idle machine.

Usage: bench-ab.py BASE_BINARY NEW_BINARY [--rounds N] [--sections a,b,c] [--single-threaded]
Build each side with `cd Benchmarks && swift build -c release --product MarblesBenchmarks`
(the base in a worktree: git worktree add /tmp/base REV).

Both sides run with one idle thread started at load (an LD_PRELOAD built here with `cc`), as a
test process always has other threads (Swift Testing runs tests on the cooperative pool): in a
process with no other thread, glibc takes every mutex without atomic instructions
(`__libc_single_threaded`), and a build that starts a thread of its own (the run watchdog, since
fe7b998) would pay for atomics its base did not, in the Swift runtime's locks as in ours. That is
up to 8% of an async test here, and no test process sees it. `--single-threaded` measures without
the idle thread.
"""
import os
import re
import subprocess
import sys
import tempfile

IDLE_THREAD = r"""
#include <pthread.h>
#include <unistd.h>
static void *idle(void *unused) { for (;;) pause(); return unused; }
__attribute__((constructor)) static void start_idle_thread(void) {
    pthread_t thread;
    if (pthread_create(&thread, 0, idle, 0) == 0) pthread_detach(thread);
}
"""


def idle_thread_preload():
    """Builds the idle-thread library; returns its path, or None (no C compiler)."""
    directory = tempfile.mkdtemp(prefix="bench-ab-")
    source, library = os.path.join(directory, "idle.c"), os.path.join(directory, "idle.so")
    with open(source, "w") as file:
        file.write(IDLE_THREAD)
    for compiler in ("cc", "clang", "gcc"):
        try:
            built = subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", library, source, "-lpthread"],
                                   capture_output=True)
        except FileNotFoundError:
            continue
        if built.returncode == 0:
            return library
    return None

LINE = re.compile(r"^\s+(.+?)\s{2,}([0-9][0-9,.]*)\s")


ENV = dict(os.environ)


def run(binary, section):
    out = subprocess.run([binary, "--only", section], capture_output=True, text=True, timeout=900, env=ENV).stdout
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
    preload = None if "--single-threaded" in args else idle_thread_preload()
    if preload:
        ENV["LD_PRELOAD"] = preload
        print("both sides with an idle thread, as in a test process (--single-threaded: without)")
    else:
        print("single-threaded processes" + ("" if "--single-threaded" in args else " (no C compiler for the idle thread)"))
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
