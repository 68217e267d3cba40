#!/bin/bash
# Instructions per test, counted by valgrind's callgrind: deterministic where wall time on this
# 2-core machine moves by several percent between runs and builds (an "empty run" read anywhere
# from 0.85x to 1.37x of the same base in A/B runs; callgrind showed it 16% up, and why).
# Each row runs a profiling part twice (N and 2N tests) and reports the difference over N, so
# the process's start-up cancels out.
#
# Usage: scripts/instruction-counts.sh BINARY [BINARY...]   (MarblesBenchmarks builds, release)
# `make bench-instructions` builds this tree's and counts it. Needs valgrind.
set -euo pipefail
command -v valgrind >/dev/null || { echo "instruction-counts: valgrind not found (apt-get install valgrind)" >&2; exit 1; }
[ $# -ge 1 ] || { echo "usage: $0 MarblesBenchmarks [MarblesBenchmarks...]" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

count() {  # binary part tests -> instructions
    PROFILE_TESTS=$3 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" --only "$2" 2>&1 |
        awk '/Collected/ { print $4 }'
}

printf '%-28s %16s %16s %16s\n' "build" "empty run" "10-event test" "delay, 1,000 ev."
for binary in "$@"; do
    [ -x "$binary" ] || { echo "instruction-counts: $binary is not an executable" >&2; exit 2; }
    # valgrind cannot read the DWARF Swift 6.3 writes: count a copy without it.
    stripped="$work/$(basename "$binary").$RANDOM"
    strip -g -o "$stripped" "$binary"
    row=()
    for spec in "empty-run-loop 10000" "small-test-loop 2000" "delay-loop 40"; do
        set -- $spec
        # An older build may not have the part (delay-loop came in session 31).
        if ! PROFILE_TESTS=0 "$stripped" --only "$1" >/dev/null 2>&1; then row+=("n/a"); continue; fi
        one=$(count "$stripped" "$1" "$2")
        two=$(count "$stripped" "$1" $(($2 * 2)))
        row+=("$(( (two - one) / $2 ))")
    done
    printf '%-28s %16s %16s %16s\n' "$binary" "${row[@]}"
done
