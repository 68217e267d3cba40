#!/usr/bin/env bash
# Hummingbird's own test suite (make server-own-tests; issue 69's check that NIO servers and
# clients outside any run behave as without Marbles): run as published, then again with
# MarblesTesting linked into every test target, so that the clock, socket, epoll and Dispatch
# interposers sit in front of libc in its test executable. Prints both counts and the tests
# whose outcome differs. Builds Hummingbird's tests twice: about 10 minutes on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
VERSION=${HUMMINGBIRD_VERSION:-2.28.1}
repo=$(pwd)
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
[ -d "$work/hummingbird" ] || git clone -q https://github.com/hummingbird-project/hummingbird "$work/hummingbird"
cd "$work/hummingbird"
git checkout -q "$VERSION" -- . && git checkout -q "$VERSION"

# Outcome lines of both frameworks, one per test: "passed NAME" / "failed NAME".
outcomes() {
    sed -nE 's/^✔ Test ([^ ]+\(\)).* passed after.*/passed \1/p; s/^✘ Test ([^ ]+\(\)).* failed after.*/failed \1/p;
        s/^Test Case .([^ ]+ [^]]+)\]?. passed.*/passed \1/p; s/^Test Case .([^ ]+ [^]]+)\]?. failed.*/failed \1/p' "$1" | sort -u
}

run() {
    local name=$1
    "$SWIFT" build --build-tests >"$work/$name-build.log" 2>&1 || { tail -30 "$work/$name-build.log"; exit 1; }
    "$SWIFT" test --skip-build >"$work/$name.log" 2>&1 || true
    outcomes "$work/$name.log" >"$work/$name.outcomes"
    printf '%-28s %4d passed, %3d failed\n' "$name" "$(grep -c '^passed' "$work/$name.outcomes")" "$(grep -c '^failed' "$work/$name.outcomes")"
}

run "as published"
python3 - "$repo" <<'PY'
import re, sys
repo = sys.argv[1]
text = open("Package.swift").read()
text = text.replace("dependencies: [\n        .package(", f'dependencies: [\n        .package(name: "Marbles", path: "{repo}"),\n        .package(', 1)
text = re.sub(r'(\.testTarget\(\s*name: "[^"]+",\s*dependencies: \[)', r'\1\n                .product(name: "MarblesTesting", package: "Marbles"),', text)
open("Package.swift", "w").write(text)
PY
run "with MarblesTesting linked"
binary=$(find .build -name '*PackageTests.xctest' -type f | head -1)
if nm --defined-only "$binary" | grep -wE 'epoll_wait|clock_gettime' >/dev/null; then
    echo "the test executable defines the interposers (epoll_wait, clock_gettime): Marbles is linked"
else
    echo "the test executable does not define the interposers: Marbles is not linked"; exit 1
fi
if ! diff <(sed 's/^failed //;t;d' "$work/as published.outcomes") <(sed 's/^failed //;t;d' "$work/with MarblesTesting linked.outcomes") >"$work/diff.txt"; then
    echo "tests whose outcome differs:"; cat "$work/diff.txt"; exit 1
fi
echo "the same tests pass and fail with and without Marbles"
