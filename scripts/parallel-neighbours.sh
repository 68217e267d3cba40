#!/usr/bin/env bash
# Issue 68's measurement (make test): 8 `.virtualTime` tests that each wait 1 s for real on a
# thread the run did not start, beside 100 plain 1 ms tests, `--parallel`. A driving test must
# not hold a thread of the cooperative pool: the plain tests' median stays under 20 ms and the
# suite takes under 2 s. Prints the figures; exits 1 when either bound is broken.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
MARBLES_NEIGHBOURS=1 "$SWIFT" test ${TRAITS:-} --skip-build --parallel --verbose --filter ParallelNeighbours >"$log" 2>&1 || {
    grep -E "✘|error" "$log" | head -20
    exit 1
}
python3 - "$log" <<'PY'
import re, statistics, sys
text = open(sys.argv[1], encoding="utf-8").read()
plain = [float(t) for t in re.findall(r'to "?aPlainMillisecondTest\(_:\)"? passed after ([0-9.]+) seconds', text)]
slow = [float(t) for t in re.findall(r'to "?aRequestToAServerThatTakesOneSecond\(_:\)"? passed after ([0-9.]+) seconds', text)]
suite = re.search(r'Suite "Parallel neighbours[^"]*".* passed after ([0-9.]+) seconds', text)
if len(plain) != 100 or len(slow) != 8 or suite is None:
    sys.exit(f"expected 100 plain and 8 slow test cases and the suite's time; found {len(plain)}, {len(slow)}, {suite is not None}")
median = statistics.median(plain) * 1000
total = float(suite.group(1))
print(f"parallel neighbours: plain tests' median {median:.1f} ms (max {max(plain) * 1000:.1f} ms), "
      f"the 1 s tests {min(slow):.2f}-{max(slow):.2f} s, the suite {total:.2f} s")
if median >= 20 or total >= 2:
    sys.exit("a driving test held up its neighbours: the bounds are a median under 20 ms and a suite under 2 s")
PY
